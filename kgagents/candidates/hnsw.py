"""The ``single`` and ``batched`` back-ends: ``db.index.vector.queryNodes`` on an index covering only the target
scope (:mod:`kgagents.candidates.scopes`).

``single`` sends one source per round trip; ``batched`` sends ``batch_size`` sources per round trip (UNWIND) and
keeps ``parallel`` round trips in flight (one vector search runs on one server thread). HNSW search is a beam
search whose width is the number of neighbours asked for, so asking for ``fetch`` > k buys recall; sources
whose hits were thinned below ``k`` by ``exclude`` or self-matches are asked again, only them, with 4× more.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from kgagents.candidates.requests import SourceRows, hits_of, query_params, run_batched
from kgagents.candidates.types import Hit
from kgagents.cypher import cypher
from kgagents.graph.connection import Graph, Row

REFETCH_GROWTH = 4


def fetch_size(k: int, fetch_factor: float, min_fetch: int) -> int:
    """Neighbours asked of the index for ``k`` wanted hits."""
    return max(math.ceil(k * fetch_factor), min_fetch, k)


def search_index(graph: Graph, sources: SourceRows, *, index: str, size: int, k: int, fetch: int,
                 vector_property: str, source_vector_property: str, floor: float, exclude: Mapping[str, bool],
                 batch_size: int, parallel: int) -> dict[str, list[Hit]]:
    """Top-``k`` per source from the scope index ``index`` holding ``size`` vectors."""
    query = cypher("candidates/index_search")
    params = query_params(sources, k=k, vector_property=vector_property,
                          source_vector_property=source_vector_property, floor=floor, exclude=exclude)
    found: dict[str, list[Hit]] = {}
    todo = sources.rows
    fetch = min(fetch, max(size, 1))
    while todo:
        def run(chunk: list[Row], fetch: int = fetch) -> list[Row]:
            return graph.run_text(query, sources=chunk, index=index, fetch=fetch, **params)

        incomplete: set[str] = set()
        for row in run_batched(graph, run, todo, batch_size=batch_size, parallel=parallel):
            found[row["source"]] = hits_of(row["hits"])
            if not row["complete"]:
                incomplete.add(row["source"])
        if not incomplete or fetch >= size:
            break
        todo = [row for row in todo if row["key"] in incomplete]
        fetch = min(size, fetch * REFETCH_GROWTH)
    return {row["key"]: found[row["key"]] for row in sources.rows if row["key"] in found}
