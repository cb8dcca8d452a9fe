"""What every embedding provider offers: a name, a dimension, and unit-length float32 vectors.

Why unit length: every consumer (Neo4j cosine indexes, GDS KNN, the matching agents) compares with
cosine, and with normalised vectors cosine is a dot product, so providers that return raw vectors
are normalised here once instead of everywhere.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np


class Embedder(ABC):
    """One text-embedding model. ``name`` identifies the model: vectors of different names never mix."""

    name: str

    @property
    @abstractmethod
    def dimensions(self) -> int:
        """Length of every vector this embedder returns."""

    @abstractmethod
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for ``texts``: float32, shape ``(len(texts), dimensions)``, each of L2 norm 1."""


def l2_normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as float32."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, np.float32(1e-12))
