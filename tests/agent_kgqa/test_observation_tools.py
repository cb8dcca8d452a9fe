"""Triple readings, the recursive observation and the two tools on the tiny movie KG (real Neo4j, real MiniLM).

Every expectation is computed here from the fixture file and the embedder, not written down by hand."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from kgagents.agent.kgqa.observation import Observer
from kgagents.agent.kgqa.readings import embed_triples, in_reading, out_reading, require_triple_vectors
from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.agent.kgqa.tools import get_neighbor, get_path
from kgagents.candidates import CandidateEngine
from kgagents.embeddings import get_embedder
from kgagents.errors import KgAgentsError
from kgagents.graph.connection import Graph
from kgagents.loaders.triples import load_triples
from tests.agent_kgqa.conftest import KG

QUESTION = "what movies did Marlene Dietrich act in"


def _kb(fixtures: Path) -> list[tuple[str, str, str]]:
    lines = (fixtures / "kgqa" / "movies_kb.txt").read_text(encoding="utf-8").splitlines()
    return [tuple(line.split("|")) for line in lines if line]  # type: ignore[misc]


def test_readings_are_stored_once_and_a_second_pass_embeds_nothing(movies: Graph, fixtures: Path) -> None:
    triples = _kb(fixtures)
    assert require_triple_vectors(movies, KG) == len(triples)
    again = embed_triples(movies, get_embedder(), KG)
    assert (again.texts, again.readings_written, again.unchanged) == (0, 0, 2 * len(triples))


def test_a_kg_without_readings_is_refused_with_the_command_to_run(movies: Graph, fixtures: Path) -> None:
    load_triples(movies, fixtures / "kg" / "triples_small.txt", kg="bare")
    with pytest.raises(KgAgentsError, match="kgagents embed --kg bare --triples"):
        require_triple_vectors(movies, "bare")
    with pytest.raises(KgAgentsError, match="not loaded"):
        require_triple_vectors(movies, "missing")


def test_observation_scores_the_right_reading_and_expands_the_best_share(movies: Graph, fixtures: Path) -> None:
    embedder = get_embedder()
    q = embedder.embed([QUESTION])[0]
    settings = KGQASettings(depth=3, top_n=3, top_percent=0.5)
    obs = Observer(movies, KG, settings).observe(q, ["Marlene Dietrich"])
    kb = _kb(fixtures)
    # every observed triple exists, is scored with the reading from the side it was reached from
    texts = [out_reading(t.relation, t.tail_name) if t.source == t.head else in_reading(t.head_name, t.relation)
             for t in obs.triples]
    expected = embedder.embed(texts) @ q
    assert np.allclose([t.score for t in obs.triples], expected, atol=1e-4)
    assert all((t.head, t.relation, t.tail) in kb for t in obs.triples)
    assert len({t.rid for t in obs.triples}) == len(obs.triples)
    assert [t.score for t in obs.triples] == sorted((t.score for t in obs.triples), reverse=True)
    by_depth = {d: [t for t in obs.triples if t.depth == d] for d in range(3)}
    assert all(len(v) <= 3 for v in by_depth.values())
    # depth 0: the topic's own triples; deeper ones start where a kept triple of the depth before ended
    assert {t.source for t in by_depth[0]} == {"Marlene Dietrich"}
    touching = [r for r in kb if "Marlene Dietrich" in (r[0], r[2])]
    assert len(by_depth[0]) == min(3, len(touching))
    for d in (1, 2):
        assert obs.frontier_sizes[d] <= math.ceil(0.5 * obs.scored)
        assert all(t.source != "Marlene Dietrich" for t in by_depth[d])


def test_get_neighbor_ranks_every_triple_of_the_entity(movies: Graph, fixtures: Path) -> None:
    q = get_embedder().embed(["who directed Kismet"])[0]
    found = get_neighbor(movies, CandidateEngine(movies), KG, "Kismet", q, KGQASettings())
    assert {(t.head, t.relation, t.tail) for t in found} == {r for r in _kb(fixtures) if "Kismet" in (r[0], r[2])}
    assert all(t.source == "Kismet" for t in found)
    assert [t.score for t in found] == sorted((t.score for t in found), reverse=True)
    assert len(get_neighbor(movies, CandidateEngine(movies), KG, "Kismet", q, KGQASettings(neighbor_cap=2))) == 2


def test_get_path_finds_paths_up_to_the_maximum_length(movies: Graph) -> None:
    two = get_path(movies, KG, "Marlene Dietrich", "Charles Laughton", KGQASettings(path_max_length=2))
    assert [(t.head, t.tail, t.source, t.target) for t in two] == [
        ("Witness for the Prosecution", "Marlene Dietrich", "Marlene Dietrich", "Witness for the Prosecution"),
        ("Witness for the Prosecution", "Charles Laughton", "Witness for the Prosecution", "Charles Laughton")]
    assert get_path(movies, KG, "Marlene Dietrich", "Charles Laughton", KGQASettings(path_max_length=1)) == []
    # no movie-movie edges: the next paths are 4 long (e.g. via Drama or English and The Hunchback of Notre Dame)
    assert get_path(movies, KG, "Marlene Dietrich", "Charles Laughton", KGQASettings(path_max_length=3)) == two
    longer = get_path(movies, KG, "Marlene Dietrich", "Charles Laughton", KGQASettings(path_max_length=4))
    assert len(longer) > len(two) and longer[:2] == two  # shortest first
    capped = get_path(movies, KG, "Marlene Dietrich", "Charles Laughton", KGQASettings(path_max_length=4, path_cap=1))
    assert capped == two
