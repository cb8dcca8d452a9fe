"""How well a relation path answers a question, without a model and without examples (zero-shot), plus the memory.

    score(path) = sim(question, path text) − length_penalty · |path| · length_words / |question|
                  + type_weight · fit(end names) + prior_weight · prior [+ direct, one-relation paths only]

* ``sim(question, path text)``: the cosine between the question (its topic entity masked as ``X``) and the path
  read from the answer back to the topic (:func:`~kgagents.agent.kgqa.paths.path_text`), so "directed by of the
  starred actors of" meets "who directed the films starred by X" — by two encoders, averaged with ``e5_weight``:
  the KG's embedder (MiniLM by default) and multilingual-e5-small. They err differently: on MetaQA's train
  questions e5 picks a question's relation better (1-hop) and MiniLM a chain's length (2/3-hop); the average
  beats either.
* ``length_penalty``: every relation costs a little, so a longer path wins only when its extra relations are in
  the question (cosine alone prefers longer paths: more relation words, more overlap). A question's words are
  its evidence: a short question names few relations, so each one costs more (``length_words`` / its word count);
  a long one pays less.
* ``fit(end names)``: the mean cosine between the question and the names of the path's best-supported end
  entities (their stored name vectors, in Cypher): the answer's *type* — years for "when", languages for
  "which language", people for "who" — which relation words alone do not say.
* ``prior``: the path memory's vote for this path (:mod:`kgagents.agent.kgqa.pathmemory`), 0 without memory.
* ``direct``: with a model, how much its answer to "is the answer stored directly about X?" favours one-relation
  paths (``direct_weight`` · (log-odds − ``direct_center``), carried by the :class:`Query`); 0 without a model.
* the relation check (:meth:`PathScorer.relation_term`): with a model, after the observation, the best paths gain
  ``relation_weight`` · Σ over their distinct relations of (the model's log-odds that the question asks about it −
  ``relation_center``), and are ranked again. Why: cosines between a question and relation words confuse relations
  of one topic ("who wrote the film X" meets "directed by" almost as well as "written by"), and a longer path
  wins by the words its extra relation adds; a model asked about one relation at a time tells them apart better.

Path texts repeat across questions (a KG has few relations), so their vectors are cached per scorer.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.embeddings import multilingual_e5
from kgagents.embeddings.base import Embedder
from kgagents.errors import EmbeddingError

#: path texts whose vectors a scorer keeps
TEXT_CACHE = 200_000


@dataclass(frozen=True)
class Query:
    """A question as the scorer reads it: ``vector``, its masked text by the KG's embedder (compared with entity
    names and the memory's phrasings); ``path_vector``, the same text in path space (compared with path texts, see
    :meth:`PathScorer.path_vectors`); ``words``, its length in words; ``direct``, what one-relation paths gain
    from the model's view of the question (0 without a model)."""

    vector: np.ndarray
    path_vector: np.ndarray
    words: int
    direct: float = 0.0


def words(text: str) -> int:
    """A question's length for the length penalty: its words (at least 1)."""
    return max(len(text.split()), 1)


def relation_shift(odds: Sequence[float], weight: float, center: float) -> float:
    """weight × Σ (log-odds − center) over a path's distinct relations: a relation the model thinks the question
    asks about helps, any other costs (the relation check; pure, so a weight search re-ranks with the same sum)."""
    return weight * sum(o - center for o in odds)


def second_encoder() -> Embedder:
    """multilingual-e5-small, the scorer's second encoder (``e5_weight`` > 0)."""
    try:
        return multilingual_e5()
    except EmbeddingError as exc:
        raise EmbeddingError(f"{exc} KGQA's path scorer averages it with the KG's embedder (e5_weight); "
                             "or set e5_weight=0 to score with the KG's embedder alone.") from exc


class PathScorer:
    """Scores observed paths for one question (see the module docstring); ``second``: the second encoder (default:
    :func:`second_encoder`, made on first use when ``e5_weight`` > 0)."""

    def __init__(self, embedder: Embedder, settings: KGQASettings, second: Embedder | None = None) -> None:
        self.embedder = embedder
        self.settings = settings
        self._second = second
        self._vectors: dict[str, np.ndarray] = {}
        self._paths: dict[str, np.ndarray] = {}
        self._words: dict[str, np.ndarray] = {}  # question words and phrases (word_vectors)
        self._fresh: dict[str, np.ndarray] = {}  # path vectors computed since the last take_fresh()
        self._lock = threading.Lock()
        self._second_lock = threading.Lock()  # one engine call at a time

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors of ``texts`` by the KG's embedder (computed once per distinct text)."""
        return self._cached(self._vectors, texts, self.embedder.embed, self.embedder.dimensions)

    def path_vectors(self, texts: Sequence[str]) -> np.ndarray:
        """``texts`` in path space: the KG embedder's vector scaled by √(1 − e5_weight) next to e5's scaled by
        √e5_weight, so that a dot product of two of them is the weighted average of the two cosines (the KG
        embedder's vector alone when e5_weight is 0). Computed ones are kept to be stored (:meth:`take_fresh`)."""
        def embed(missing: Sequence[str]) -> np.ndarray:
            found = self._in_path_space(missing)
            with self._lock:
                self._fresh.update(zip(missing, found, strict=True))
            return found

        return self._cached(self._paths, texts, embed, self._path_dims())

    def word_vectors(self, texts: Sequence[str]) -> np.ndarray:
        """A question's words and phrases in path space (as :meth:`path_vectors`), cached apart and never stored
        with the KG's path texts."""
        return self._cached(self._words, texts, self._in_path_space, self._path_dims())

    def _in_path_space(self, texts: Sequence[str]) -> np.ndarray:
        weight = self.settings.e5_weight
        if weight <= 0:
            return self.vectors(texts)
        with self._second_lock:
            second = self._encoder().embed(texts)
        return np.hstack([math.sqrt(1.0 - weight) * self.vectors(texts), math.sqrt(weight) * second])

    def _path_dims(self) -> int:
        return self.embedder.dimensions + (self._encoder().dimensions if self.settings.e5_weight > 0 else 0)

    @property
    def space(self) -> str:
        """The path space's identity: the encoders and the weight that combine them (stored vectors are only
        reused in the same space, :mod:`~kgagents.agent.kgqa.pathtexts`)."""
        weight = self.settings.e5_weight
        first = getattr(self.embedder, "name", type(self.embedder).__name__)
        second = getattr(self._encoder(), "name", type(self._encoder()).__name__) if weight > 0 else ""
        return first + (f"+{second}@{weight}" if weight > 0 else "")

    def preload(self, vectors: Mapping[str, np.ndarray]) -> None:
        """Path vectors computed before (text → vector in this :attr:`space`)."""
        with self._lock:
            self._paths.update(vectors)

    def take_fresh(self) -> dict[str, np.ndarray]:
        """The path vectors computed since the last call (to be stored)."""
        with self._lock:
            fresh, self._fresh = self._fresh, {}
        return fresh

    def queries(self, texts: Sequence[str], vectors: np.ndarray | None = None) -> list[Query]:
        """The questions ``texts`` (masked) as :class:`Query` objects, embedded at once; ``vectors``: their KG
        embedder vectors when already known."""
        if not texts:
            return []
        vectors = self.vectors(texts) if vectors is None else np.asarray(vectors, dtype=np.float32)
        paths = self.path_vectors(texts)
        return [Query(v, p, words(t)) for v, p, t in zip(vectors, paths, texts, strict=True)]

    def query(self, text: str, vector: np.ndarray | None = None) -> Query:
        return self.queries([text], None if vector is None else np.asarray([vector]))[0]

    def similarities(self, query: Query, texts: Sequence[str]) -> np.ndarray:
        return self.path_vectors(texts) @ np.asarray(query.path_vector, dtype=np.float32)

    def score(self, similarity: float, length: int, type_score: float | None, prior: float, words: int,
              direct: float = 0.0) -> float:
        s = self.settings
        penalty = s.length_penalty * (s.length_words / max(words, 1) if s.length_words else 1.0)
        return (similarity - penalty * length + s.type_weight * (type_score or 0.0) + s.prior_weight * prior
                + (direct if length == 1 else 0.0))

    def relation_term(self, odds: Sequence[float]) -> float:
        """What a path gains from the model's log-odds for its relations (settings ``relation_weight`` and
        ``relation_center``; see :func:`relation_shift`)."""
        return relation_shift(odds, self.settings.relation_weight, self.settings.relation_center)

    def _encoder(self) -> Embedder:
        if self._second is None:
            with self._second_lock:
                if self._second is None:
                    self._second = second_encoder()
        return self._second

    def _cached(self, cache: dict[str, np.ndarray], texts: Sequence[str],
                embed: Callable[[Sequence[str]], np.ndarray], dims: int) -> np.ndarray:
        """``texts``' vectors from ``cache``, the missing ones computed by ``embed`` (once per distinct text)."""
        if not texts:
            return np.zeros((0, dims), dtype=np.float32)
        found: dict[str, np.ndarray] = {}
        missing = []
        for text in dict.fromkeys(texts):
            vector = cache.get(text)
            if vector is None:
                missing.append(text)
            else:
                found[text] = vector
        if missing:
            computed = dict(zip(missing, embed(missing), strict=True))
            found.update(computed)
            with self._lock:
                if len(cache) + len(missing) > TEXT_CACHE:
                    cache.clear()
                cache.update(computed)
        return np.stack([found[t] for t in texts]).astype(np.float32, copy=False)
