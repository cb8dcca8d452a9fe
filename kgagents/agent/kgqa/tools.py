"""ODA's two KG tools, each one named Cypher query: GetNeighbor(entity) and GetPath(e1, e2).

GetNeighbor returns every triple touching the entity, ranked by cosine to the question through the candidate
engine (the same ``exact`` scoring as the observation) and cut to ``neighbor_cap``, so a hub's thousands of
triples never reach a prompt unranked. GetPath returns up to ``path_cap`` paths of at most
``path_max_length`` relationships (shortest first); their triples are oriented along the path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from kgagents.agent.kgqa.observation import neighbour_rows, score_rows
from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.agent.kgqa.triples import Triple
from kgagents.candidates import CandidateEngine
from kgagents.graph.connection import Graph


def get_neighbor(graph: Graph, engine: CandidateEngine, kg: str, entity: str, question: np.ndarray,
                 settings: KGQASettings) -> list[Triple]:
    """The triples around ``entity``, best cosine to the question first, at most ``neighbor_cap``."""
    rows = neighbour_rows(graph, kg, [entity])
    return score_rows(engine, question, rows, k=settings.neighbor_cap) if rows else []


def _oriented(row: Mapping[str, Any], at: str) -> Triple:
    """A path triple walked from ``at`` (its head or its tail)."""
    forward = row["head"] == at
    return Triple.from_row({**row, "source": at, "target": row["tail"] if forward else row["head"]})


def get_path(graph: Graph, kg: str, source: str, target: str, settings: KGQASettings) -> list[Triple]:
    """The triples of the paths between ``source`` and ``target`` (each path in walking order, once each)."""
    rows = graph.run("kgqa/paths", kg=kg, source=source, target=target, max_length=settings.path_max_length,
                     cap=settings.path_cap)
    out: dict[str, Triple] = {}
    for row in rows:
        for triple_row, at in zip(row["triples"], row["entities"]):
            out.setdefault(triple_row["rid"], _oriented(triple_row, at))
    return list(out.values())
