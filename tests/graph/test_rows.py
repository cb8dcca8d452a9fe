"""Rows as dicts: the fast path for scalar rows must give what ``Record.data()`` gives for every value type."""

from __future__ import annotations

import pytest

from kgagents.graph.connection import Graph

pytestmark = pytest.mark.integration


def test_rows_of_scalars_lists_nodes_maps_and_nested_lists_are_plain_python(graph: Graph) -> None:
    graph.run_text("CREATE (:Probe {name: 'a', vec: [0.5, 1.5]})-[:R {w: 2}]->(:Probe {name: 'b'})")
    row = graph.run_text(
        "MATCH (a:Probe {name: 'a'})-[r:R]->(b:Probe) "
        "RETURN a.name AS name, a.vec AS vec, a AS node, r AS rel, {k: b.name} AS map, [[1, 2], [3]] AS nested, "
        "[b] AS nodes, null AS nothing")[0]
    assert row["name"] == "a" and row["vec"] == [0.5, 1.5] and row["nothing"] is None
    assert row["node"] == {"name": "a", "vec": [0.5, 1.5]}  # nodes become property dicts, as Record.data() does
    assert row["map"] == {"k": "b"} and row["nested"] == [[1, 2], [3]] and row["nodes"] == [{"name": "b"}]
    assert isinstance(row["rel"], tuple) and row["rel"][1] == "R"
