"""A search request resolved into what the Cypher back-ends take: source rows and target element ids.

Sources become rows ``{key, id}`` (nodes or relationships, read by element id inside the query, so vectors never
travel to Python and back) or ``{key, vector}`` (raw vectors). ``key`` is what the result is keyed by: the node key
for a scope, the caller's value for :class:`Ids`, the given key for :class:`Vectors`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal

from kgagents.candidates.scopes import resolve_keys, scope_members
from kgagents.candidates.types import Hit, Ids, Source, Vectors
from kgagents.embeddings.index import Scope
from kgagents.graph.connection import Graph, Row, batched

SourceKind = Literal["node", "relationship", "vector"]


@dataclass(frozen=True)
class SourceRows:
    kind: SourceKind
    rows: list[Row]

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def keys(self) -> list[str]:
        return [row["key"] for row in self.rows]


@dataclass(frozen=True)
class TargetIds:
    """An explicit target list: element ids of nodes or of relationships."""

    kind: Literal["node", "relationship"]
    ids: list[str]


def resolve_ids(graph: Graph, ids: Ids) -> list[Row]:
    """``{key, id}`` per value of ``ids`` that exists (by key: resolved in its scope; by element id: as given)."""
    values = list(dict.fromkeys(ids.values))
    if ids.by == "element_id":
        return [{"key": v, "id": v} for v in values]
    assert ids.scope is not None  # Ids checks this
    found = resolve_keys(graph, ids.scope, values)
    return [{"key": v, "id": found[v]} for v in values if v in found]


def resolve_source(graph: Graph, source: Source, vector_property: str) -> SourceRows:
    """The rows of a source; nodes of a scope without ``vector_property`` are left out."""
    if isinstance(source, Vectors):
        return SourceRows("vector", [{"key": k, "vector": v.tolist()} for k, v in zip(source.named(), source.array)])
    if isinstance(source, Scope):
        return SourceRows("node", scope_members(graph, source, vector_property))
    return SourceRows(source.kind, resolve_ids(graph, source))


def resolve_target(graph: Graph, target: Ids | Scope, vector_property: str) -> TargetIds:
    """Element ids of a target list, or of a scope's vector-bearing nodes (for the exact back-end)."""
    if isinstance(target, Scope):
        return TargetIds("node", [row["id"] for row in scope_members(graph, target, vector_property)])
    return TargetIds(target.kind, [row["id"] for row in resolve_ids(graph, target)])


def hits_of(rows: Iterable[Row]) -> list[Hit]:
    return [Hit(h["id"], h["key"], h["name"], float(h["cosine"])) for h in rows]


def run_batched(graph: Graph, run: Callable[[list[Row]], list[Row]], rows: Sequence[Row], *,
                batch_size: int, parallel: int) -> Iterator[Row]:
    """``run`` over ``rows`` in batches, ``parallel`` batches in flight (each its own session); rows in order."""
    chunks = list(batched(rows, batch_size))
    if parallel <= 1 or len(chunks) <= 1:
        for chunk in chunks:
            yield from run(chunk)
        return
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        for result in pool.map(run, chunks):
            yield from result


def exclusion_map(exclude: Iterable[str]) -> Mapping[str, bool]:
    """Excluded keys as a map: the queries test ``$exclude[key] IS NULL`` in constant time."""
    return {key: True for key in exclude}


def query_params(sources: SourceRows, *, k: int, vector_property: str, source_vector_property: str,
                 floor: float, exclude: Mapping[str, bool]) -> dict[str, Any]:
    """Parameters every back-end query takes."""
    return {"source_kind": sources.kind, "k": k, "vector_property": vector_property,
            "source_vector_property": source_vector_property, "floor": floor, "exclude": exclude}
