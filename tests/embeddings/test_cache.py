"""The on-disk vector cache: a text embedded once by a model is read back bit for bit, never embedded again; the
model is part of the key; the file stays within its bound."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from kgagents.embeddings.base import Embedder, l2_normalise
from kgagents.embeddings.cache import VectorCache, embed_cached
from kgagents.embeddings.index import text_sha


class Counting(Embedder):
    """Deterministic vectors from the text's bytes; remembers every text it was asked to embed."""

    def __init__(self, name: str = "counting") -> None:
        self.name = name
        self.asked: list[str] = []

    @property
    def dimensions(self) -> int:
        return 8

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.asked += list(texts)
        rng = [np.random.default_rng(list(t.encode()) or [0]).standard_normal(8) for t in texts]
        return l2_normalise(np.array(rng).reshape(len(texts), 8))


def _shas(model: Embedder, texts: Sequence[str]) -> list[str]:
    return [text_sha(model.name, t) for t in texts]


def test_a_cached_text_is_read_back_bit_for_bit_and_not_embedded_again(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path / "vectors.sqlite")
    model = Counting()
    first, embedded = embed_cached(model, ["heart", "lung"], _shas(model, ["heart", "lung"]), cache)
    assert embedded == 2 and model.asked == ["heart", "lung"]
    again, embedded = embed_cached(model, ["lung", "liver", "heart"], _shas(model, ["lung", "liver", "heart"]),
                                   VectorCache(tmp_path / "vectors.sqlite"))  # another process, the same file
    assert embedded == 1 and model.asked == ["heart", "lung", "liver"]
    assert again.dtype == np.float32
    assert again[0].tobytes() == first[1].tobytes() and again[2].tobytes() == first[0].tobytes()
    assert again[1].tobytes() == model.embed(["liver"])[0].tobytes()


def test_another_model_does_not_read_the_first_ones_vectors(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path / "vectors.sqlite")
    one, other = Counting("one"), Counting("other")
    embed_cached(one, ["heart"], _shas(one, ["heart"]), cache)
    _, embedded = embed_cached(other, ["heart"], _shas(other, ["heart"]), cache)
    assert embedded == 1 and other.asked == ["heart"]


def test_without_a_cache_every_text_is_embedded(tmp_path: Path) -> None:
    model = Counting()
    for _ in range(2):
        embed_cached(model, ["heart"], _shas(model, ["heart"]), None)
    assert model.asked == ["heart", "heart"]


def test_past_its_bound_the_cache_drops_the_oldest_quarter(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path / "vectors.sqlite", max_mb=1)
    model = Counting()
    big = np.zeros(32_768, dtype=np.float32)  # 128 KiB a vector: the eighth passes 1 MiB
    cache.put((f"sha{i}", big) for i in range(7))
    assert len(cache) == 7
    cache.put([("sha7", big)])
    assert len(cache) == 6  # 8 − ⌊8 / 4⌋, the oldest ones
    assert set(cache.get([f"sha{i}" for i in range(8)])) == {f"sha{i}" for i in range(2, 8)}
    assert model.asked == []


def test_a_damaged_cache_file_costs_speed_not_the_run(tmp_path: Path) -> None:
    path = tmp_path / "vectors.sqlite"
    cache = VectorCache(path)
    for file in tmp_path.iterdir():  # the database and its write-ahead log, damaged after it was opened
        file.unlink()
    path.write_bytes(b"this is no SQLite database" * 100)
    with pytest.raises(sqlite3.DatabaseError):
        cache.get(["any"])
    model = Counting()
    vectors, embedded = embed_cached(model, ["heart"], _shas(model, ["heart"]), cache)
    assert embedded == 1 and vectors[0].tobytes() == model.embed(["heart"])[0].tobytes()
