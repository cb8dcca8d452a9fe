"""What a search is asked about (:class:`Ids`, :class:`Vectors`, or a :class:`~kgagents.embeddings.index.Scope`)
and what it answers (:class:`Hit`).

Sources and targets are named the way callers already hold them: a scope ("the classes of ontology A"), an
explicit list of nodes or relationships (by element id, or by node key inside a scope), or raw query vectors
(a question embedding). Every back-end takes the same request, so the engine can choose among them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from kgagents.embeddings.index import Scope
from kgagents.errors import KgAgentsError

Kind = Literal["node", "relationship"]
By = Literal["element_id", "key"]


@dataclass(frozen=True)
class Ids:
    """An explicit list of nodes or relationships.

    ``by="key"`` means the values are node keys (``uri`` of ontology resources, ``id`` of KG entities),
    resolved inside ``scope``; relationships are always named by element id.
    """

    values: Sequence[str]
    kind: Kind = "node"
    by: By = "element_id"
    scope: Scope | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("node", "relationship"):
            raise KgAgentsError(f"Ids kind must be 'node' or 'relationship', not {self.kind!r}")
        if self.by not in ("element_id", "key"):
            raise KgAgentsError(f"Ids must be given by 'element_id' or 'key', not {self.by!r}")
        if self.by == "key" and self.kind == "relationship":
            raise KgAgentsError("relationships have no key: give them by element id (Ids(..., by='element_id'))")
        if self.by == "key" and self.scope is None:
            raise KgAgentsError("Ids(by='key') needs a scope to resolve the keys in (e.g. Scope.kg(name))")


@dataclass(frozen=True)
class Vectors:
    """Raw query vectors (n × d). Results are keyed by ``keys`` or by "0", "1", … in row order."""

    array: np.ndarray
    keys: Sequence[str] | None = None

    def __post_init__(self) -> None:
        array = np.asarray(self.array, dtype=np.float32)
        if array.ndim == 1:
            array = array[None, :]
        if array.ndim != 2 or array.shape[1] == 0:
            raise KgAgentsError(f"Vectors needs an n × d array, got shape {np.shape(self.array)}")
        if self.keys is not None and len(self.keys) != array.shape[0]:
            raise KgAgentsError(f"Vectors has {array.shape[0]} rows but {len(self.keys)} keys")
        object.__setattr__(self, "array", array)

    def named(self) -> list[str]:
        return list(self.keys) if self.keys is not None else [str(i) for i in range(self.array.shape[0])]


@dataclass(frozen=True)
class Hit:
    """One candidate: the target's element id, key (node ``uri``/``id``, or the relationship element id),
    name, and cosine in [-1, 1]."""

    element_id: str
    key: str | None
    name: str | None
    cosine: float


Source = Scope | Ids | Vectors
Target = Scope | Ids
BACKENDS = ("auto", "single", "batched", "bulk", "exact")
