"""Candidate retrieval on the hand-written JAPE pair tests/fixtures/kg/jape_tiny_de_en.

Expectations are read off the fixture files: test sources 1 (Deutschland, translated "Germany"), 2 (Angela
Merkel) and 3 (Café Einstein, translated "Cafe Einstein"); the only train link is Berlin 0 → 10. Every
test source's translated name equals its gold target's name. Structure: 1 and 2 are neighbours of Berlin (0),
whose seed counterpart 10 has three relationships in the English KG (to 11 twice, to 13), so targets 11 and
13 each get 1/ln(e + 3); source 3's only neighbour is 1, whose link is a TEST link, so 3 gets no structure.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from kgagents.agent.alignment.assignment import assigned_first, csls, stable_assignment
from kgagents.agent.alignment.bootstrap import pseudo_seeds
from kgagents.agent.alignment.candidate_store import stored_candidates
from kgagents.agent.alignment.embedding import embed_names
from kgagents.agent.alignment.retrieval import retrieve, split_links
from kgagents.agent.alignment.settings import RetrievalSettings
from kgagents.embeddings import get_embedder
from kgagents.embeddings.local_minilm import LocalMiniLM
from kgagents.graph.connection import Graph
from kgagents.loaders.jape import load_jape_pair
from kgagents.metrics.ea import rank_scores

DATASET = "jape_tiny_de_en"
KG1, KG2 = f"{DATASET}:de", f"{DATASET}:en"


@pytest.fixture(scope="module")
def embedder() -> LocalMiniLM:
    model = get_embedder()
    assert isinstance(model, LocalMiniLM)
    return model


@pytest.fixture
def loaded(graph: Graph, fixtures: Path, embedder: LocalMiniLM) -> Graph:
    load_jape_pair(graph, fixtures / "kg" / DATASET)
    embed_names(graph, embedder, (KG1, KG2), RetrievalSettings())
    return graph


def test_signals_ranking_and_storage(loaded: Graph) -> None:
    run = retrieve(loaded, dataset=DATASET, run_id="ea-test")
    assert sorted(run.sources) == ["http://de.dbpedia.org/resource/Angela_Merkel",
                                   "http://de.dbpedia.org/resource/Caf%C3%A9_Einstein",
                                   "http://de.dbpedia.org/resource/Deutschland"]
    de, en = "http://de.dbpedia.org/resource/", "http://dbpedia.org/resource/"
    germany = run.signals[de + "Deutschland"][en + "Germany"]
    assert germany.exact == 1.0
    assert germany.name == pytest.approx(1.0, abs=1e-4)
    assert germany.structure == pytest.approx(1 / math.log(math.e + 3))
    assert run.signals[de + "Deutschland"][en + "Cafe_Einstein"].structure == pytest.approx(1 / math.log(math.e + 3))
    assert all(p.structure == 0.0 and "structure" not in p.found_by
               for p in run.signals[de + "Caf%C3%A9_Einstein"].values())
    # candidate space "test": Berlin (train target) is never ranked
    assert all(c.target != en + "Berlin" for cands in run.candidates.values() for c in cands)
    scores = rank_scores({s: [c.target for c in cands] for s, cands in run.candidates.items()},
                         split_links(loaded, DATASET))
    assert (scores.n, scores.hits_at_1, scores.mrr) == (3, 1.0, 1.0)

    stored = stored_candidates(loaded, run_id="ea-test", kg1=KG1, source=de + "Deutschland")
    assert [r["rank"] for r in stored] == [1, 2, 3]
    assert stored[0]["target"] == en + "Germany"
    assert set(stored[0]["signals"]) == {"name", "exact", "structure"}
    assert stored[0]["assigned"] is True and not any(r["assigned"] for r in stored[1:])
    run_node = loaded.run("alignment_ea/run", run_id="ea-test")[0]
    assert run_node["run"]["job"] == "ea-retrieval"
    assert run_node["run"]["status"] == "finished"
    assert (run_node["run"]["metric"], run_node["run"]["score"]) == ("hits_at_1", 1.0)
    assert run_node["candidates"] == 3 * 3


def test_rerun_replaces_and_all_space(loaded: Graph) -> None:
    retrieve(loaded, dataset=DATASET, run_id="ea-rerun")
    run = retrieve(loaded, dataset=DATASET, run_id="ea-rerun",
                   settings=RetrievalSettings(candidate_space="all", top_k=2))
    # a train seed's target (Berlin) is taken: no candidate even when every target entity may be ranked
    assert all("Berlin" not in t for targets in run.signals.values() for t in targets)
    row = loaded.run("alignment_ea/run", run_id="ea-rerun")[0]
    assert row["candidates"] == 3 * 2
    assert row["run"]["candidate_space"] == "all"


def test_assignment_resolves_conflicts_greedily_by_score() -> None:
    ranked = {"a": [("x", 0.9), ("y", 0.5)],
              "b": [("x", 0.8), ("y", 0.7)],   # wants x too, but a's claim scores higher: b gets y
              "c": [("y", 0.6)],               # y went to b (0.7 > 0.6), nothing left for c
              "d": [("w", 0.95)], "e": [("w", 0.95)],  # a tie: broken by id, so runs repeat
              "f": []}
    assignment = stable_assignment(ranked)
    assert assignment == {"a": "x", "b": "y", "d": "w"}
    final = assigned_first(ranked, assignment)
    assert final["b"] == [("y", 0.7), ("x", 0.8)]  # the assigned target first, the rest kept for the agent
    assert final["c"] == [("y", 0.6)] and final["e"] == [("w", 0.95)]


def test_taken_penalty_moves_targets_owned_elsewhere_behind_free_ones() -> None:
    ranked = {"a": [("x", 0.9)],
              "b": [("z", 0.8), ("x", 0.6), ("w", 0.55), ("v", 0.2)],  # z assigned; x is a's (0.9), w and v free
              "c": [("z", 0.5)]}  # z went to b (0.8 > 0.5)
    assignment = stable_assignment(ranked)
    assert assignment == {"a": "x", "b": "z"}
    assert [t for t, _ in assigned_first(ranked, assignment)["b"]] == ["z", "x", "w", "v"]
    # 0.6 - 1.0 * (0.9 - 0.6) = 0.3: behind the free w (0.55), still ahead of the free v (0.2)
    final = assigned_first(ranked, assignment, taken_penalty=1.0)
    assert final["b"] == [("z", 0.8), ("w", 0.55), ("x", 0.6), ("v", 0.2)]  # fused scores kept, only the order moves
    assert [t for t, _ in assigned_first(ranked, assignment, taken_penalty=0.1)["b"]] == ["z", "x", "w", "v"]  # 0.57 > 0.55
    assert final["c"] == [("z", 0.5)]


def test_csls_discounts_a_hub_target() -> None:
    # x scores high with both sources (a hub); with k = 1: r_a = 0.9, r_b = 0.85, r_x = 0.9, r_y = 0.84
    ranked = {"a": [("x", 0.9), ("y", 0.8)], "b": [("x", 0.85), ("y", 0.84)]}
    out = csls(ranked, 1)
    assert [t for t, _ in out["b"]] == ["y", "x"]  # b's hub candidate falls behind y: -0.01 > -0.05
    assert out["a"][0][0] == "x" and out["a"][0][1] == pytest.approx(0.0)
    assert out["b"][0][1] == pytest.approx(2 * 0.84 - 0.85 - 0.84)
    assert stable_assignment(out) == {"a": "x", "b": "y"}


def test_pseudo_seeds_are_the_best_scoring_share_of_the_assignment() -> None:
    ranked = {"a": [("x", 0.9)], "b": [("x", 0.8), ("y", 0.3)], "c": [("z", 0.6)]}
    assert pseudo_seeds(ranked, 1.0) == {"a": "x", "c": "z", "b": "y"}
    assert pseudo_seeds(ranked, 0.5) == {"a": "x", "c": "z"}  # round(1.5) = 2 best of 3


def test_bootstrap_counts_pseudo_seeds_stored_on_the_run(loaded: Graph) -> None:
    run = retrieve(loaded, dataset=DATASET, run_id="ea-boot", settings=RetrievalSettings(bootstrap_share=1.0,
                                                                                        bootstrap_rounds=1))
    assert run.pseudo_seeds == [3]
    assert loaded.run("alignment_ea/run", run_id="ea-boot")[0]["run"]["pseudo_seeds"] == [3]
    few = retrieve(loaded, dataset=DATASET, run_id="ea-boot",
                   settings=RetrievalSettings(bootstrap_share=0.1, bootstrap_rounds=2))
    assert few.pseudo_seeds == [0, 0]
