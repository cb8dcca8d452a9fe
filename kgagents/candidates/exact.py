"""The ``exact`` back-end: exact cosine in Cypher (``vector.similarity.cosine``) against an explicit target list.

No index and no projection: the target vectors are read once per query and every source is compared with all of
them. The right tool when the target set is small (the neighbour triples of a KGQA frontier, a small ontology);
its cost grows with sources × targets, which is what ``auto`` compares against ``EngineSettings.exact_max_pairs``.
"""

from __future__ import annotations

from collections.abc import Mapping

from kgagents.candidates.requests import SourceRows, TargetIds, hits_of, query_params, run_batched
from kgagents.candidates.types import Hit
from kgagents.cypher import cypher
from kgagents.graph.connection import Graph, Row

#: k × targets per query that stays well inside the transaction memory of the local server's 2 GB heap
PAIRS_PER_QUERY = 200_000


def search_exact(graph: Graph, sources: SourceRows, targets: TargetIds, *, k: int, vector_property: str,
                 source_vector_property: str, floor: float, exclude: Mapping[str, bool], batch_size: int,
                 parallel: int, target_batch: int) -> dict[str, list[Hit]]:
    """Top-``k`` targets per source by exact cosine (≥ ``floor``, not excluded, not the source itself).

    Targets go in slices of ``target_batch`` (2,000 by default), each slice's top-``k`` merged: a query holds one
    slice's vectors, so a hub's tens of thousands of neighbour triples stay within the server's transaction memory."""
    if not sources.rows:
        return {}
    query = cypher("candidates/exact")
    params = query_params(sources, k=k, vector_property=vector_property,
                          source_vector_property=source_vector_property, floor=floor, exclude=exclude)
    # the server's memory tracker counts each of the k rows a query keeps sorted with the slice it came from,
    # so the slice shrinks as k grows (k = 403 over 2,000 MetaQA triples exhausted a 2 GB heap's 1.4 GB)
    target_batch = max(100, min(target_batch, PAIRS_PER_QUERY // k))
    found: dict[str, list[Hit]] = {}
    for start in range(0, max(len(targets.ids), 1), target_batch):
        ids = targets.ids[start:start + target_batch]

        def run(chunk: list[Row], ids: list[str] = ids) -> list[Row]:
            return graph.run_text(query, sources=chunk, target_kind=targets.kind, targets=ids, **params)

        for row in run_batched(graph, run, sources.rows, batch_size=batch_size, parallel=parallel):
            found.setdefault(row["source"], []).extend(hits_of(row["hits"]))
    if len(targets.ids) <= target_batch:
        return found
    return {source: sorted(hits, key=lambda h: (-h.cosine, h.key or ""))[:k] for source, hits in found.items()}
