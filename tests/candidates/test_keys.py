"""Graph-native key joins: keys written as shared (:MatchKey) nodes, pairs found by a two-hop traversal."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgagents.candidates.keys import key_rows, shared_keys, write_keys
from kgagents.embeddings.index import Scope
from kgagents.graph.connection import Graph


def test_a_key_that_is_both_label_and_synonym_counts_as_label() -> None:
    rows = key_rows({"n": [("k", "heart", True), ("k", "heart", False), ("k", "", False), ("j", "heart", True)]})
    assert rows == [{"key": "n", "keys": [{"kind": "j", "text": "heart", "synonym": True},
                                          {"kind": "k", "text": "heart", "synonym": False}]}]


@pytest.mark.integration
def test_shared_keys_join_in_the_graph_and_rewriting_replaces(graph: Graph, fixtures: Path) -> None:
    rows = [{"uri": u, "ontology": o} for u, o in (("a:1", "a"), ("a:2", "a"), ("b:1", "b"), ("b:2", "b"))]
    graph.run_text((fixtures / "matching" / "resources.cypher").read_text(), rows=rows)
    a, b = Scope.ontology("a"), Scope.ontology("b")
    write_keys(graph, a, {"a:1": [("x", "heart", False)], "a:2": [("x", "lung", False)]}, ["x"])
    write_keys(graph, b, {"b:1": [("x", "heart", True), ("y", "lung", False)], "b:2": [("x", "lung", False)]},
               ["x", "y"])
    pairs = {(r["source"], r["target"], r["kind"], r["source_synonym"], r["target_synonym"])
             for r in shared_keys(graph, a, b, kinds=["x", "y"])}
    assert pairs == {("a:1", "b:1", "x", False, True), ("a:2", "b:2", "x", False, False)}  # kinds never cross
    assert [r["target"] for r in shared_keys(graph, a, b, kinds=["x"], exclude=["b:1"])] == ["b:2"]
    assert [r["source"] for r in shared_keys(graph, a, b, kinds=["x"], sources=["a:2"])] == ["a:2"]
    write_keys(graph, a, {"a:1": [("x", "lung", False)]}, ["x"])  # a:1 renamed: its old key is gone
    pairs = {(r["source"], r["target"]) for r in shared_keys(graph, a, b, kinds=["x"])}
    assert pairs == {("a:1", "b:2"), ("a:2", "b:2")}
