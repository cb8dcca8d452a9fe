"""Embedding nodes and vector indexes on the real Neo4j, with a hand-written two-ontology fixture
(nearest-neighbour search over them: tests/candidates)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from kgagents.embeddings.base import Embedder
from kgagents.embeddings.cache import VectorCache
from kgagents.embeddings.index import (
    Pending,
    Scope,
    drop_vector_index,
    embed_nodes,
    embed_pending,
    ensure_vector_index,
    text_groups,
    text_of,
    vector_indexes,
)
from kgagents.embeddings.local_minilm import LocalMiniLM
from kgagents.errors import KgAgentsError, VectorIndexError
from kgagents.graph.connection import Graph

A = "http://a.example/conf#"
B = "http://b.example/onto#"
CONF_A_NODES = 8  # 6 classes, 1 property, Person (shared with conf_b)
INDEX = "test_resource_embedding"


@pytest.fixture(scope="module")
def embedder() -> LocalMiniLM:
    return LocalMiniLM()


@pytest.fixture
def fixture_query(fixtures: Path):
    def read(name: str) -> str:
        return (fixtures / "embeddings" / f"{name}.cypher").read_text()

    return read


@pytest.fixture
def onto(graph: Graph, fixture_query) -> Iterator[Graph]:
    """The two-ontology fixture loaded, and no vector index before or after (the wipe keeps indexes)."""
    for index in vector_indexes(graph):
        drop_vector_index(graph, index.name)
    graph.run_text(fixture_query("two_ontologies"))
    yield graph
    for index in vector_indexes(graph):
        drop_vector_index(graph, index.name)


@pytest.fixture
def indexed(onto: Graph, embedder: LocalMiniLM) -> Graph:
    for name in ("conf_a", "conf_b", "conf_c"):
        embed_nodes(onto, embedder, scope=Scope.ontology(name), text_properties="name", vector_property="embedding")
    ensure_vector_index(onto, name=INDEX, label="Resource", property="embedding", dimensions=embedder.dimensions)
    return onto


class Renamed(Embedder):
    """The same vectors under another model name: must invalidate every stored hash."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name + "-renamed"

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed(texts)


def stored(graph: Graph, fixture_query, key: str) -> dict:
    return graph.run_text(fixture_query("vector_of"), key=key, vector_property="embedding")[0]


def test_reembedding_skips_unchanged_and_redoes_changed(onto: Graph, embedder: LocalMiniLM, fixture_query) -> None:
    scope = Scope.ontology("conf_a")
    ticks: list[int] = []
    first = embed_nodes(onto, embedder, scope=scope, text_properties="name", vector_property="embedding",
                        progress=ticks.append)
    assert (first.embedded, first.unchanged, first.empty) == (CONF_A_NODES, 0, 0)
    assert sum(ticks) == CONF_A_NODES

    again = embed_nodes(onto, embedder, scope=scope, text_properties="name", vector_property="embedding")
    assert (again.embedded, again.unchanged) == (0, CONF_A_NODES)

    before = stored(onto, fixture_query, A + "Hotel")
    onto.run_text(fixture_query("rename"), uri=A + "Hotel", name="Hotel", comment=None)
    changed = embed_nodes(onto, embedder, scope=scope, text_properties="name", vector_property="embedding")
    assert (changed.embedded, changed.unchanged) == (1, CONF_A_NODES - 1)
    after = stored(onto, fixture_query, A + "Hotel")
    assert after["sha"] != before["sha"]
    assert np.allclose(after["vector"], embedder.embed(["Hotel"])[0], atol=1e-6)

    # Another model name invalidates every hash, even with identical texts.
    renamed = embed_nodes(onto, Renamed(embedder), scope=scope, text_properties="name", vector_property="embedding")
    assert renamed.embedded == CONF_A_NODES


def test_text_joins_several_properties(onto: Graph, embedder: LocalMiniLM, fixture_query) -> None:
    onto.run_text(fixture_query("rename"), uri=A + "Hotel", name="Hotel", comment="A room booked for attendees")
    # The fixture has no `label` property, so the (label, name) group falls back to the name.
    embed_nodes(onto, embedder, scope=Scope.ontology("conf_a"), text_properties=[("label", "name"), "comment"],
                vector_property="embedding")
    got = stored(onto, fixture_query, A + "Hotel")["vector"]
    assert np.allclose(got, embedder.embed(["Hotel. A room booked for attendees"])[0], atol=1e-6)


def test_text_of_groups_lists_and_blanks() -> None:
    groups = text_groups([("label", "name"), "synonyms", "comment"])
    node = {"label": " ", "name": "PC", "synonyms": ["Programme committee", None, "", "TPC"], "comment": None}
    assert text_of(node, groups) == "PC. Programme committee, TPC"
    assert text_of({"name": None}, groups) == ""


def test_kg_scope_embeds_one_kg_and_counts_empty(graph: Graph, embedder: LocalMiniLM, fixture_query) -> None:
    graph.run_text(fixture_query("entities"))
    stats = embed_nodes(graph, embedder, scope=Scope.kg("kg1"), text_properties="name", vector_property="embedding")
    assert (stats.embedded, stats.empty) == (2, 1)
    assert stored(graph, fixture_query, "Q90")["vector"] is not None
    assert stored(graph, fixture_query, "paris_fr")["vector"] is None


def test_index_dimension_mismatch_and_duplicates_are_errors(indexed: Graph) -> None:
    again = ensure_vector_index(indexed, name=INDEX, label="Resource", property="embedding", dimensions=384)
    assert (again.dimensions, again.state) == (384, "ONLINE")
    with pytest.raises(VectorIndexError, match="384 dimensions.*768 dimensions"):
        ensure_vector_index(indexed, name=INDEX, label="Resource", property="embedding", dimensions=768)
    with pytest.raises(VectorIndexError, match="already covers"):
        ensure_vector_index(indexed, name=INDEX + "_other", label="Resource", property="embedding", dimensions=384)


def test_identifiers_are_validated() -> None:
    with pytest.raises(KgAgentsError, match="not a usable label"):
        Scope("Resource) DETACH DELETE n //")
    with pytest.raises(KgAgentsError, match="not a usable property"):
        Scope("Resource", key="bad key", value="x")


class Counting(Embedder):
    """The wrapped embedder's vectors; remembers every text it was asked to embed."""

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.name, self.asked = inner, inner.name, []

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.asked += list(texts)
        return self.inner.embed(texts)


def test_a_text_switched_back_to_is_read_from_the_vector_cache(
        onto: Graph, embedder: LocalMiniLM, fixture_query, tmp_path: Path) -> None:
    cache, model = VectorCache(tmp_path / "vectors.sqlite"), Counting(embedder)
    node = onto.run_text("MATCH (n:Resource {uri: $uri}) RETURN elementId(n) AS id", uri=A + "Hotel")[0]["id"]

    def embed(text: str) -> tuple[int, int, int]:
        row = stored(onto, fixture_query, A + "Hotel")
        stats = embed_pending(onto, model, [Pending(node, [text], row["vector"] is not None, row["sha"])],
                              vector_property="embedding", cache=cache)
        return stats.embedded, stats.texts_embedded, stats.texts_cached

    assert embed("Hotel") == (1, 1, 0)
    assert embed("Guest house") == (1, 1, 0)
    assert embed("Hotel") == (1, 0, 1)  # the node's vector is rewritten, the text not embedded again
    assert model.asked == ["Hotel", "Guest house"]
    assert np.array_equal(np.asarray(stored(onto, fixture_query, A + "Hotel")["vector"], dtype=np.float32),
                          embedder.embed(["Hotel"])[0])
