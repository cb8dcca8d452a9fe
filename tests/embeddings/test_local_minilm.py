"""The numpy MiniLM reproduces sentence-transformers: published numbers, a reference file, known properties."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from kgagents.config import EmbeddingSettings
from kgagents.embeddings import get_embedder
from kgagents.embeddings.local_minilm import LocalMiniLM, gelu, length_batches
from kgagents.errors import EmbeddingError


@pytest.fixture(scope="module")
def embedder() -> LocalMiniLM:
    return LocalMiniLM()


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_published_similarity_matrix(embedder: LocalMiniLM) -> None:
    # The sentence-transformers README quickstart prints this matrix for all-MiniLM-L6-v2 (4 decimals).
    published = np.array([[1.0000, 0.6660, 0.1046], [0.6660, 1.0000, 0.1411], [0.1046, 0.1411, 1.0000]])
    v = embedder.embed(["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."])
    assert np.abs(v @ v.T - published).max() < 6e-4


def test_matches_sentence_transformers_reference(embedder: LocalMiniLM, fixtures: Path) -> None:
    """Vectors written by sentence-transformers (torch) for labels, unicode, empty and >256-token texts."""
    ref = json.loads((fixtures / "embeddings" / "minilm_reference.json").read_text())
    assert max(ref["untruncated_token_counts"]) > 256  # the file exercises truncation
    got = embedder.embed(ref["texts"])
    want = np.asarray(ref["vectors"], dtype=np.float32)
    assert got.shape == want.shape
    assert np.abs(got - want).max() < 2e-5


def test_shape_dtype_and_unit_norm(embedder: LocalMiniLM) -> None:
    v = embedder.embed(["a", "Conference paper", "Paper presented at a conference " * 20])
    assert v.shape == (3, 384) and v.dtype == np.float32 and embedder.dimensions == 384
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert embedder.embed([]).shape == (0, 384)


def test_paraphrase_is_closer_than_unrelated(embedder: LocalMiniLM) -> None:
    cat, kitten, stocks = embedder.embed(["a cat sits on the mat", "a kitten is sitting on a rug", "stock market crash"])
    assert cos(cat, kitten) > cos(cat, stocks) + 0.3


def test_identical_texts_and_repeated_calls_agree(embedder: LocalMiniLM) -> None:
    a = embedder.embed(["Program committee", "Hotel", "Program committee"])
    assert np.array_equal(a[0], a[2])
    assert np.array_equal(a, embedder.embed(["Program committee", "Hotel", "Program committee"]))


def test_vector_does_not_depend_on_batch_neighbours(embedder: LocalMiniLM) -> None:
    """Padding must be invisible: a label alone equals the same label batched with long texts."""
    alone = embedder.embed(["Registration fee"])[0]
    long = "The fee that every attendee pays when registering for the main conference and workshops. " * 3
    # One thread and a huge budget put all four in one batch, so the label is padded to the longest.
    mixed = LocalMiniLM(threads=1, max_batch_tokens=100_000).embed([long, "Registration fee", "x", long + "more"])
    assert np.abs(mixed[1] - alone).max() < 1e-6


def test_length_batches_respect_budget_and_cover_everything() -> None:
    lengths = [5, 40, 7, 7, 300, 12, 5]
    batches = length_batches(lengths, 64)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for b in batches:
        assert len(b) == 1 or len(b) * max(lengths[i] for i in b) <= 64


def test_gelu_matches_erf_definition() -> None:
    xs = np.linspace(-10, 10, 20001, dtype=np.float32)
    exact = np.array([0.5 * x * (1 + math.erf(x / math.sqrt(2))) for x in xs.astype(float)])
    assert np.abs(gelu(xs.copy()).astype(float) - exact).max() < 1e-6


def test_registry_gives_local_model_and_rejects_others() -> None:
    assert isinstance(get_embedder(EmbeddingSettings(provider="local")), LocalMiniLM)
    with pytest.raises(EmbeddingError, match="only ships all-MiniLM-L6-v2"):
        get_embedder(EmbeddingSettings(provider="local", model="bge-small"))
    with pytest.raises(EmbeddingError, match="KGAGENTS_EMBED_PROVIDER"):
        get_embedder(EmbeddingSettings(provider="nope"))
