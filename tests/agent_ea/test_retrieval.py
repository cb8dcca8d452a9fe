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

from kgagents.agent.alignment.retrieval import (
    embed_names, mutual_best, retrieve, stored_candidates, split_links,
)
from kgagents.agent.alignment.settings import RetrievalSettings
from kgagents.embeddings import get_embedder
from kgagents.embeddings.local_minilm import LocalMiniLM
from kgagents.metrics.ea import rank_scores
from kgagents.graph.connection import Graph
from kgagents.loaders.jape import load_jape_pair

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
    run_node = loaded.run("alignment_ea/run", run_id="ea-test")[0]
    assert run_node["run"]["job"] == "ea-retrieval"
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


def test_mutual_best_needs_threshold_and_an_uncontested_target() -> None:
    ranked = {"a": [("x", 0.9), ("y", 0.5)],
              "b": [("x", 0.7)],             # loses x to a
              "c": [("z", 0.6)],             # below the threshold
              "d": [("w", 0.95)], "e": [("w", 0.95)],  # tie: nobody gets w
              "f": []}
    assert mutual_best(ranked, 0.65) == {"a": "x"}
    assert mutual_best(ranked, 0.5) == {"a": "x", "c": "z"}


def test_bootstrap_counts_pseudo_seeds_stored_on_the_run(loaded: Graph) -> None:
    # every test source's top candidate is its own-name target with fused score >= 1.5 (cosine 1 + exact 0.5)
    run = retrieve(loaded, dataset=DATASET, run_id="ea-boot", settings=RetrievalSettings(bootstrap_threshold=1.4, bootstrap_rounds=1))
    assert run.pseudo_seeds == [3]
    assert loaded.run("alignment_ea/run", run_id="ea-boot")[0]["run"]["pseudo_seeds"] == [3]
    strict = retrieve(loaded, dataset=DATASET, run_id="ea-boot",
                      settings=RetrievalSettings(bootstrap_threshold=10.0, bootstrap_rounds=2))
    assert strict.pseudo_seeds == [0, 0]
