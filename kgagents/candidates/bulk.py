"""The ``bulk`` back-end: GDS filtered KNN over a projection of just the sources and the target scope.

Needs no vector index, so an all-against-all job does not pay for building one; the projection is dropped
afterwards. GDS KNN is approximate (NN-descent: neighbours of neighbours); it searches
``max(k, gds_top_k)`` neighbours per node and keeps ``k``, because a search for few neighbours barely explores.
Excluded targets are left out of the projection, so they never take a slot. With ``gds_concurrency`` 1 a seeded
run repeats exactly.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping

from kgagents.candidates.requests import SourceRows, hits_of
from kgagents.candidates.settings import EngineSettings
from kgagents.candidates.types import Hit
from kgagents.embeddings.index import Scope, render
from kgagents.graph.connection import Graph


def search_bulk(graph: Graph, sources: SourceRows, target: Scope, *, settings: EngineSettings, k: int,
                vector_property: str, source_vector_property: str, floor: float,
                exclude: Mapping[str, bool]) -> dict[str, list[Hit]]:
    """Top-``k`` targets per node source by GDS KNN (sources without a hit map to ``[]``)."""
    graph_name = f"kgagents_candidates_{uuid.uuid4().hex}"
    key_of = {row["id"]: row["key"] for row in sources.rows}
    try:
        projected = graph.run_text(render("candidates/gds_project", target_label=target.label),
                                   graph_name=graph_name, target=target.params(), sources=sources.rows,
                                   vector_property=vector_property, source_vector_property=source_vector_property,
                                   exclude=exclude)
        if not projected or not projected[0]["sources"]:
            return {}
        found: dict[str, list[Hit]] = {key_of[i]: [] for i in projected[0]["sources"]}
        if not projected[0]["targets"]:
            return found
        rows = graph.run("candidates/gds_knn", graph_name=graph_name, k=k, search_k=max(k, settings.gds_top_k),
                         floor=floor, sample_rate=settings.gds_sample_rate,
                         max_iterations=settings.gds_max_iterations, concurrency=settings.gds_concurrency,
                         seed=settings.gds_random_seed)
    finally:
        graph.run("candidates/gds_drop", graph_name=graph_name)
    for row in rows:
        found[key_of[row["source_id"]]] = hits_of(row["hits"])
    return {row["key"]: found[row["key"]] for row in sources.rows if row["key"] in found}
