"""The EA LLM gate: learned on held-out train links, stored on the retrieval run, read back by gated runs."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from kgagents.agent.alignment.embedding import embed_names
from kgagents.agent.alignment.gate import gate_on_validation
from kgagents.agent.alignment.retrieval import retrieve
from kgagents.agent.alignment.settings import RetrievalSettings
from kgagents.embeddings import get_embedder
from kgagents.graph.connection import Graph
from kgagents.graph.runs import RunStore
from kgagents.jobs.alignment import gate_margin_of
from kgagents.loaders.jape import load_jape_pair


def test_the_gate_is_the_smallest_margin_above_which_rank_one_is_precise_enough() -> None:
    # margins (rank 1 minus best other): a 0.5 right, b 0.4 right, c 0.3 wrong, d 0.2 right
    final = {"a": [("A", 0.9), ("x", 0.4)], "b": [("B", 0.8), ("x", 0.4)], "c": [("x", 0.7), ("C", 0.4)],
             "d": [("D", 0.6), ("x", 0.4)]}
    validation = [("a", "A"), ("b", "B"), ("c", "C"), ("d", "D")]
    gate = gate_on_validation(final, validation, precision=0.99)
    assert gate["margin"] == pytest.approx(0.4)  # a, b all right; adding c drops to 2/3
    assert gate["share_gated"] == 0.5 and gate["errors_gated"] == 1 and gate["errors_total"] == 1
    assert gate_on_validation(final, validation, precision=0.75)["margin"] == pytest.approx(0.2)  # 3 of 4 right
    assert math.isinf(gate_on_validation({"c": final["c"]}, [("c", "C")])["margin"])  # never precise: no gate


@pytest.mark.integration
def test_a_run_without_a_gate_learns_one_on_train_links_and_stores_it(graph: Graph, fixtures: Path) -> None:
    dataset = "jape_tiny_de_en"
    load_jape_pair(graph, fixtures / "kg" / dataset)
    embed_names(graph, get_embedder(), (f"{dataset}:de", f"{dataset}:en"), RetrievalSettings())
    run = retrieve(graph, dataset=dataset, run_id="ea-gate")
    # one train link: nothing is held out to show retrieval precise, so every source may go to the model
    assert math.isinf(gate_margin_of(graph, dataset, run.run_id))
    store = RunStore(graph)
    assert math.isinf(store.get("ea-gate").get("gate_margin"))  # type: ignore[union-attr]
    store.update("ea-gate", {"gate_margin": 0.25})
    assert gate_margin_of(graph, dataset, "ea-gate") == 0.25  # a stored gate is read, not learned again
