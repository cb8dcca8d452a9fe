"""The multilingual name-variant vectors and the channel they feed, on tests/fixtures/kg/jape_tiny_de_en.

A deterministic stand-in embedder (one fixed random unit vector per distinct text) makes the mean checkable: an
entity's vector must be the normalised mean of the vectors of its names that differ after name_key.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from kgagents.agent.alignment.embedding import distinct_names, embed_name_variants
from kgagents.agent.alignment.settings import RetrievalSettings
from kgagents.agent.alignment.signals import PairView, SignalCollector
from kgagents.embeddings.base import Embedder, l2_normalise
from kgagents.graph.connection import Graph
from kgagents.loaders.jape import load_jape_pair

DATASET = "jape_tiny_de_en"
KG1, KG2 = f"{DATASET}:de", f"{DATASET}:en"
DE, EN = "http://de.dbpedia.org/resource/", "http://dbpedia.org/resource/"


class TextHashEmbedder(Embedder):
    name = "text-hash-test"

    def __init__(self) -> None:
        self.calls: list[str] = []

    @property
    def dimensions(self) -> int:
        return 16

    def vector(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")
        return l2_normalise(np.random.default_rng(seed).normal(size=(1, 16)))[0]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.extend(texts)
        return np.stack([self.vector(t) for t in texts]) if texts else np.zeros((0, 16), np.float32)


def test_distinct_names_drop_spellings_that_normalise_alike() -> None:
    assert distinct_names(["Café Einstein", "Cafe_Einstein", None, " ", "Kaffee"]) == ["Cafe_Einstein", "Kaffee"]


def test_variant_vector_is_the_mean_of_distinct_names_and_incremental(graph: Graph, fixtures: Path) -> None:
    load_jape_pair(graph, fixtures / "kg" / DATASET)
    model = TextHashEmbedder()
    first = embed_name_variants(graph, model, KG1, "name_ml_test")
    assert (first.embedded, first.unchanged) == (4, 0)
    row = graph.run_text("MATCH (e:Entity {kg: $kg, id: $id}) RETURN e.name AS name, e.name_en AS en, "
                         "e.name_ml_test AS v", kg=KG1, id=DE + "Deutschland")[0]
    texts = distinct_names([row["name"], row["en"]])
    assert texts == ["Deutschland", "Germany"]
    expected = l2_normalise(np.mean([model.vector(t) for t in texts], axis=0, keepdims=True))[0]
    assert np.allclose(row["v"], expected, atol=1e-6)
    again = embed_name_variants(graph, model, KG1, "name_ml_test")
    assert (again.embedded, again.unchanged) == (0, 4)


def test_multilingual_channel_scores_every_pair(graph: Graph, fixtures: Path) -> None:
    load_jape_pair(graph, fixtures / "kg" / DATASET)
    model = TextHashEmbedder()
    settings = RetrievalSettings(multilingual_vector_property="name_ml_test", vector_property="name_vec_test",
                                 w_name=0.0, structure_top_n=0)
    for kg in (KG1, KG2):
        embed_name_variants(graph, model, kg, "name_ml_test")
    view = PairView(graph, kg1=KG1, kg2=KG2, settings=settings)
    assert view.has_multilingual
    collector = SignalCollector(view, settings, taken=[EN + "Berlin"])
    signals: dict = {}
    collector.names(signals, [DE + "Deutschland"])
    collector.complete(signals)
    germany = signals[DE + "Deutschland"][EN + "Germany"]
    # "Germany" is a name of both sides: the two means share one of their vectors
    de = l2_normalise(np.mean([model.vector("Deutschland"), model.vector("Germany")], axis=0, keepdims=True))[0]
    assert germany.multilingual == pytest.approx(float(de @ model.vector("Germany")), abs=1e-5)
    assert germany.name == 0.0  # no English-name vectors under that property: cosine 0, not an error
    assert EN + "Berlin" not in signals[DE + "Deutschland"]
