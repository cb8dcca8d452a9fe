"""The candidate engine on the real Neo4j: every back-end returns the exact (numpy) top-k on real ontologies.

Data: three OAEI conference ontologies (cmt, confOf, conference) from ../shared/data, their labels embedded
with MiniLM. The reference is a brute-force numpy top-k over the very vectors stored in Neo4j. Cosines from
the index / GDS are float32, so hits whose cosine is within TOL of the k-th are treated as tied.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from kgagents.candidates import CandidateEngine, EngineSettings, Hit, Ids, Vectors
from kgagents.config import Neo4jSettings
from kgagents.embeddings.index import Scope, drop_vector_index, embed_nodes, vector_indexes
from kgagents.embeddings.local_minilm import LocalMiniLM
from kgagents.errors import KgAgentsError
from kgagents.graph.connection import Graph
from kgagents.graph.schema import ensure_schema
from kgagents.loaders.ontology import load_ontology

ONTOLOGIES = ("cmt", "confOf", "conference")
VEC = "name_vec"
TOL = 1e-5
BACKENDS = ("exact", "single", "batched", "bulk")


@pytest.fixture(scope="module")
def embedder() -> LocalMiniLM:
    return LocalMiniLM()


@pytest.fixture(scope="module")
def conference(neo4j_settings: Neo4jSettings, shared_data: Path, embedder: LocalMiniLM) -> Iterator[Graph]:
    """Three conference ontologies loaded and their labels embedded; read-only for the tests of this module."""
    with Graph(neo4j_settings) as g:
        g.run("admin/wipe")
        for index in vector_indexes(g):
            drop_vector_index(g, index.name)
        ensure_schema(g)
        for name in ONTOLOGIES:
            load_ontology(g, shared_data / "om" / "conference" / "ontologies" / f"{name.lower()}.owl", name=name)
            embed_nodes(g, embedder, scope=Scope.ontology(name), text_properties=[("label", "name")],
                        vector_property=VEC)
        yield g


def vectors_of(graph: Graph, fixtures: Path, label: str, ontology: str | None) -> tuple[list[str], np.ndarray]:
    rows = graph.run_text((fixtures / "candidates" / "scope_vectors.cypher").read_text(), label=label,
                          ontology=ontology, vector_property=VEC)
    return [r["key"] for r in rows], np.array([r["vector"] for r in rows], dtype=np.float64)


def numpy_topk(queries: np.ndarray, query_keys: list[str], keys: list[str], matrix: np.ndarray, k: int,
               floor: float = -1.0, exclude: frozenset[str] = frozenset()) -> dict[str, list[tuple[str, float]]]:
    """Brute force: cosine of every pair, self and excluded keys dropped, best first, ties by key."""
    unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    q = queries / np.linalg.norm(queries, axis=1, keepdims=True)
    out = {}
    for key, row in zip(query_keys, q @ unit.T):
        scored = [(t, float(c)) for t, c in zip(keys, row) if t != key and t not in exclude and c >= floor]
        out[key] = sorted(scored, key=lambda x: (-x[1], x[0]))[:k]
    return out


def assert_same_topk(got: dict[str, list[Hit]], want: dict[str, list[tuple[str, float]]]) -> None:
    assert set(got) == set(want)
    for source, expected in want.items():
        hits = got[source]
        assert len(hits) == len(expected), source
        assert [h.cosine for h in hits] == sorted((h.cosine for h in hits), reverse=True)
        for hit, (_, cosine) in zip(hits, expected):
            assert hit.cosine == pytest.approx(cosine, abs=TOL), source
        if expected:
            boundary = expected[-1][1]
            sure = {t for t, c in expected if c > boundary + TOL}
            assert sure <= {h.key for h in hits}, source
            exact = dict(expected)
            assert all(h.key in exact or h.cosine <= boundary + TOL for h in hits), source


@pytest.mark.integration
@pytest.mark.parametrize("backend", BACKENDS)
def test_each_backend_returns_the_numpy_top_k(conference: Graph, fixtures: Path, backend: str) -> None:
    engine = CandidateEngine(conference)
    src_keys, src = vectors_of(conference, fixtures, "Class", "cmt")
    tgt_keys, tgt = vectors_of(conference, fixtures, "Class", "confOf")
    got = engine.search(Scope("Class", "ontologies", "cmt", many=True), Scope("Class", "ontologies", "confOf", many=True),
                        k=5, vector_property=VEC, backend=backend)
    assert len(src_keys) > 20 and len(tgt_keys) > 20
    assert_same_topk(got, numpy_topk(src, src_keys, tgt_keys, tgt, 5))
    assert all(h.element_id and h.name for hits in got.values() for h in hits)


@pytest.mark.integration
@pytest.mark.parametrize("backend", ("single", "batched"))
def test_approximate_index_search_keeps_most_of_the_exact_top_k(conference: Graph, fixtures: Path,
                                                               backend: str) -> None:
    """With the small-scope exhaustive fetch switched off the HNSW search is approximate: measured, not equal."""
    engine = CandidateEngine(conference, EngineSettings(exhaustive_below=0, fetch_factor=1.0, min_fetch=20))
    src_keys, src = vectors_of(conference, fixtures, "Class", "cmt")
    tgt_keys, tgt = vectors_of(conference, fixtures, "Class", "confOf")
    got = engine.search(Scope("Class", "ontologies", "cmt", many=True), Scope("Class", "ontologies", "confOf", many=True),
                        k=5, vector_property=VEC, backend=backend)
    want = numpy_topk(src, src_keys, tgt_keys, tgt, 5)
    recall = sum(len({h.key for h in got[s]} & {t for t, _ in want[s]}) for s in want) / (5 * len(want))
    assert 0.9 <= recall <= 1.0


@pytest.mark.integration
@pytest.mark.parametrize("backend", BACKENDS)
def test_floor_and_exclude_on_every_backend(conference: Graph, fixtures: Path, backend: str) -> None:
    engine = CandidateEngine(conference)
    src_keys, src = vectors_of(conference, fixtures, "Class", "confOf")
    tgt_keys, tgt = vectors_of(conference, fixtures, "Class", "conference")
    best = numpy_topk(src, src_keys, tgt_keys, tgt, 1)
    exclude = frozenset(hits[0][0] for hits in best.values() if hits)  # every source's favourite is taken
    got = engine.search(Scope("Class", "ontologies", "confOf", many=True),
                        Scope("Class", "ontologies", "conference", many=True),
                        k=3, vector_property=VEC, floor=0.5, exclude=exclude, backend=backend)
    want = numpy_topk(src, src_keys, tgt_keys, tgt, 3, floor=0.5, exclude=exclude)
    assert_same_topk(got, want)
    assert any(not hits for hits in got.values()), "some sources have nothing at cosine ≥ 0.5"


@pytest.mark.integration
@pytest.mark.parametrize("backend", ("exact", "single", "batched"))
def test_raw_vectors_as_sources(conference: Graph, fixtures: Path, embedder: LocalMiniLM, backend: str) -> None:
    questions = ["Who reviews a paper?", "conference dinner", "registration fee paid by a participant"]
    tgt_keys, tgt = vectors_of(conference, fixtures, "Resource", "cmt")
    got = CandidateEngine(conference).search(Vectors(embedder.embed(questions)), Scope.ontology("cmt"), k=4,
                                             vector_property=VEC, backend=backend)
    assert list(got) == ["0", "1", "2"]
    assert_same_topk(got, numpy_topk(embedder.embed(questions).astype(np.float64), ["0", "1", "2"],
                                     tgt_keys, tgt, 4))
    named = CandidateEngine(conference).search(Vectors(embedder.embed(questions[:1]), keys=["q"]),
                                               Scope.ontology("cmt"), k=4, vector_property=VEC, backend=backend)
    assert [h.key for h in named["q"]] == [h.key for h in got["0"]]


@pytest.mark.integration
def test_ids_by_key_and_by_element_id(conference: Graph, fixtures: Path) -> None:
    engine = CandidateEngine(conference)
    src_keys, src = vectors_of(conference, fixtures, "Class", "cmt")
    tgt_keys, tgt = vectors_of(conference, fixtures, "Class", "confOf")
    scope = Scope("Class", "ontologies", "cmt", many=True)
    wanted = src_keys[:6]
    by_key = engine.search(Ids([*wanted, "http://nowhere.example/unknown"], by="key", scope=scope),
                           Scope("Class", "ontologies", "confOf", many=True), k=3, vector_property=VEC)
    assert list(by_key) == wanted  # in the order given; an unknown key is absent
    want = numpy_topk(src[:6], wanted, tgt_keys, tgt, 3)
    assert_same_topk(by_key, want)
    # the same targets given as an explicit element-id list: the exact back-end
    target_ids = [h.element_id for hits in by_key.values() for h in hits]
    explicit = engine.search(Ids(wanted, by="key", scope=scope), Ids(target_ids), k=2, vector_property=VEC)
    assert {s: [h.key for h in hits] for s, hits in explicit.items()} == \
        {s: [h.key for h in hits[:2]] for s, hits in by_key.items()}


@pytest.fixture
def toy(graph: Graph, fixtures: Path) -> Graph:
    graph.run_text((fixtures / "candidates" / "toy_graph.cypher").read_text())
    return graph


@pytest.mark.integration
@pytest.mark.parametrize("backend", BACKENDS)
def test_ties_are_broken_by_key_and_vectorless_targets_never_appear(toy: Graph, backend: str) -> None:
    got = CandidateEngine(toy).search(Scope.ontology("toy_src"), Scope.ontology("toy_tgt"), k=5,
                                      vector_property="vec", backend=backend)
    assert [h.key for h in got["toy:s"]] == ["toy:a", "toy:b", "toy:c", "toy:d"]
    assert [round(h.cosine, 5) for h in got["toy:s"]] == [0.8, 0.8, 0.6, -1.0]
    floored = CandidateEngine(toy).search(Scope.ontology("toy_src"), Scope.ontology("toy_tgt"), k=5,
                                          vector_property="vec", floor=0.7, backend=backend)
    assert [h.key for h in floored["toy:s"]] == ["toy:a", "toy:b"]


@pytest.mark.integration
def test_exact_over_relationship_targets(toy: Graph, fixtures: Path) -> None:
    rels = {r["name"]: r["id"] for r in toy.run_text((fixtures / "candidates" / "toy_relationships.cypher").read_text())}
    got = CandidateEngine(toy).search(Vectors(np.array([[0.0, 1.0, 0.0]]), keys=["q"]),
                                      Ids(list(rels.values()), kind="relationship"), k=5, vector_property="vec")
    assert [(h.key, h.name, round(h.cosine, 5)) for h in got["q"]] == [(rels["close"], "close", 0.8),
                                                                        (rels["far"], "far", 0.0)]
    excluded = CandidateEngine(toy).search(Vectors(np.array([[0.0, 1.0, 0.0]]), keys=["q"]),
                                           Ids(list(rels.values()), kind="relationship"), k=5,
                                           vector_property="vec", exclude=[rels["close"]])
    assert [h.name for h in excluded["q"]] == ["far"]


@pytest.mark.integration
def test_sources_without_hits_map_to_empty_and_without_vector_are_absent(toy: Graph) -> None:
    engine = CandidateEngine(toy)
    got = engine.search(Ids(["toy:s", "toy:e"], by="key", scope=Scope.ontology("toy_tgt")),
                        Scope.ontology("toy_src"), k=2, vector_property="vec", backend="batched")
    assert got == {}  # toy:s is not in toy_tgt; toy:e has no vector
    got = engine.search(Scope.ontology("toy_src"), Scope.ontology("toy_tgt"), k=2, vector_property="vec",
                        floor=0.99, backend="batched")
    assert got == {"toy:s": []}


@pytest.mark.integration
def test_wrong_requests_are_clear_errors(toy: Graph) -> None:
    engine = CandidateEngine(toy)
    with pytest.raises(KgAgentsError, match="exact"):
        engine.search(Scope.ontology("toy_src"), Ids(["x"]), k=1, vector_property="vec", backend="batched")
    with pytest.raises(KgAgentsError, match="node sources"):
        engine.search(Vectors(np.ones(3)), Scope.ontology("toy_tgt"), k=1, vector_property="vec", backend="bulk")
    with pytest.raises(KgAgentsError, match="Unknown back-end"):
        engine.search(Scope.ontology("toy_src"), Scope.ontology("toy_tgt"), k=1, vector_property="vec",
                      backend="fast")
    with pytest.raises(KgAgentsError, match="needs a scope"):
        Ids(["a"], by="key")
    with pytest.raises(KgAgentsError, match="not a usable property"):
        engine.search(Scope.ontology("toy_src"), Scope.ontology("toy_tgt"), k=1, vector_property="vec) //")


@pytest.mark.integration
def test_scope_index_covers_exactly_the_scope(toy: Graph) -> None:
    engine = CandidateEngine(toy)
    scope = Scope.ontology("toy_tgt")
    index = engine.prepare(scope, "vec", 3)
    label = engine.scope_label(scope)
    assert index.label == label and index.name in {i.name for i in vector_indexes(toy)}
    members = toy.run_text(f"MATCH (n:{label}) RETURN n.uri AS uri ORDER BY uri")
    assert [r["uri"] for r in members] == ["toy:a", "toy:b", "toy:c", "toy:d", "toy:e"]
    toy.run_text("MATCH (n:Resource {uri: 'toy:d'}) SET n.ontologies = ['elsewhere']")
    CandidateEngine(toy).prepare(scope, "vec", 3)  # a new engine re-checks the labels
    assert "toy:d" not in {r["uri"] for r in toy.run_text(f"MATCH (n:{label}) RETURN n.uri AS uri")}


def test_auto_picks_by_workload_size() -> None:
    engine = CandidateEngine(Graph(), EngineSettings(exact_max_pairs=1000, bulk_min_sources=500))
    scope = Scope.kg("x")
    assert engine.choose("node", 10, scope, 100) == "exact"
    assert engine.choose("vector", 1, scope, 5000) == "single"
    assert engine.choose("node", 20, scope, 5000) == "batched"
    assert engine.choose("node", 600, scope, 5000) == "bulk"
    assert engine.choose("vector", 600, scope, 5000) == "batched"  # GDS needs nodes
    assert engine.choose("node", 600, Ids(["a"]), 1) == "exact"
    never = CandidateEngine(Graph(), EngineSettings(exact_max_pairs=0, bulk_min_sources=0))
    assert never.choose("node", 10_000, scope, 10_000) == "batched"
