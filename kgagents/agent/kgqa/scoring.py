"""How well a relation path answers a question, without a model and without examples (zero-shot), plus the memory.

    score(path) = cos(question, path text) − length_penalty · |path| + type_weight · fit(end names)
                  + prior_weight · prior

* ``cos(question, path text)``: MiniLM cosine between the question (its topic entity masked as ``X``) and the
  path read from the answer back to the topic (:func:`~kgagents.agent.kgqa.paths.path_text`), so "directed by of
  the starred actors of" meets "who directed the films starred by X".
* ``length_penalty``: every relation costs a little, so a longer path wins only when its extra relations are in
  the question (cosine alone prefers longer paths: more relation words, more overlap).
* ``fit(end names)``: the mean cosine between the question and the names of the path's best-supported end
  entities (their stored name vectors, in Cypher): the answer's *type* — years for "when", languages for
  "which language", people for "who" — which relation words alone do not say.
* ``prior``: the path memory's vote for this path (:mod:`kgagents.agent.kgqa.pathmemory`), 0 without memory.

Path texts repeat across questions (a KG has few relations), so their vectors are cached per scorer.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.embeddings.base import Embedder

#: path texts whose vectors a scorer keeps
TEXT_CACHE = 200_000


class PathScorer:
    """Scores observed paths for one question vector (see the module docstring)."""

    def __init__(self, embedder: Embedder, settings: KGQASettings) -> None:
        self.embedder = embedder
        self.settings = settings
        self._vectors: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors of ``texts`` (computed once per distinct text)."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            computed = self.embedder.embed(missing)
            with self._lock:
                if len(self._vectors) + len(missing) > TEXT_CACHE:
                    self._vectors.clear()
                self._vectors.update(zip(missing, computed, strict=True))
        if not texts:
            return np.zeros((0, self.embedder.dimensions), dtype=np.float32)
        return np.stack([self._vectors[t] for t in texts])

    def similarities(self, question: np.ndarray, texts: Sequence[str]) -> np.ndarray:
        return self.vectors(texts) @ np.asarray(question, dtype=np.float32)

    def score(self, similarity: float, length: int, type_score: float | None, prior: float) -> float:
        s = self.settings
        return (similarity - s.length_penalty * length + s.type_weight * (type_score or 0.0)
                + s.prior_weight * prior)
