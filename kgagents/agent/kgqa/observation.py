"""ODA's recursive observation, every step in Neo4j: neighbour triples by Cypher, their scores by the engine.

Per topic entity, for depth d = 0 … D−1: collect the relation triples touching the frontier
(``kgqa/neighbours``), score each by cosine(question, its reading from the frontier side — see
:mod:`readings`), append the best N to the observation, and make the far ends of the best P % the next
frontier. Scoring is one :class:`~kgagents.candidates.CandidateEngine` ``exact`` search per reading direction
over exactly those relationships' element ids, so the vectors never leave the database and nothing is scored
in a Python loop.

Two guards keep it finite on hubs, both recorded in the result: a triple is observed once (a later depth does not
re-score it), and an entity joins a frontier once, at most ``max_frontier`` per depth (P % of a genre's
4,000 films would otherwise grow the next expansion without bound).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from kgagents.agent.kgqa.readings import IN_VECTOR, OUT_VECTOR
from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.agent.kgqa.triples import Triple
from kgagents.candidates import CandidateEngine, Ids, Vectors
from kgagents.graph.connection import Graph, Row


@dataclass
class Observation:
    """What one observation found: triples best first, and what it cost."""

    triples: list[Triple] = field(default_factory=list)
    seconds: float = 0.0
    scored: int = 0
    frontier_sizes: list[int] = field(default_factory=list)

    def best_answer(self, exclude: Iterable[str]) -> Triple | None:
        """The best-scoring triple whose far end is not one of ``exclude`` (the no-LLM baseline's answer)."""
        skip = set(exclude)
        return next((t for t in self.triples if t.target not in skip), None)


def neighbour_rows(graph: Graph, kg: str, entities: Sequence[str]) -> list[Row]:
    """GetNeighbor in Cypher: every triple touching ``entities``, with the side it is seen from."""
    return graph.run("kgqa/neighbours", kg=kg, ids=list(entities)) if entities else []


def score_rows(engine: CandidateEngine, question: np.ndarray, rows: Sequence[Row], *, k: int,
               depth: int = 0) -> list[Triple]:
    """The ``k`` best of ``rows`` by cosine to ``question`` (one exact engine search per reading), best first.

    A relationship seen from both ends keeps its better reading."""
    best: dict[str, Triple] = {}
    for outgoing, prop in ((True, OUT_VECTOR), (False, IN_VECTOR)):
        side = {row["rid"]: row for row in rows if row["outgoing"] is outgoing}
        if not side:
            continue
        hits = engine.search(Vectors(question), Ids(list(side), kind="relationship"), k=min(k, len(side)),
                             vector_property=prop, backend="exact").get("0", [])
        for hit in hits:
            triple = Triple.from_row(side[hit.element_id], score=hit.cosine, depth=depth)
            if triple.rid not in best or triple.score > best[triple.rid].score:
                best[triple.rid] = triple
    return sorted(best.values(), key=lambda t: (-t.score, t.rid))[:k]


class Observer:
    """Runs the recursive observation for one KG with one settings object."""

    def __init__(self, graph: Graph, kg: str, settings: KGQASettings, engine: CandidateEngine | None = None) -> None:
        self.graph = graph
        self.kg = kg
        self.settings = settings
        self.engine = engine or CandidateEngine(graph)

    def observe(self, question: np.ndarray, entities: Sequence[str]) -> Observation:
        """Observe from each of ``entities`` in turn; the union is kept best first (a triple once)."""
        started = time.perf_counter()
        result = Observation()
        found: dict[str, Triple] = {}
        for entity in dict.fromkeys(entities):
            for triple in self._observe_one(question, entity, result):
                if triple.rid not in found or triple.score > found[triple.rid].score:
                    found[triple.rid] = triple
        result.triples = sorted(found.values(), key=lambda t: (-t.score, t.rid))
        result.seconds = time.perf_counter() - started
        return result

    def _observe_one(self, question: np.ndarray, entity: str, result: Observation) -> list[Triple]:
        s = self.settings
        frontier, visited, seen, observed = [entity], {entity}, set(), []
        for depth in range(s.depth):
            rows = [r for r in neighbour_rows(self.graph, self.kg, frontier) if r["rid"] not in seen]
            result.frontier_sizes.append(len(frontier))
            if not rows:
                break
            n_triples = len({r["rid"] for r in rows})
            keep = math.ceil(s.top_percent * n_triples)
            ranked = score_rows(self.engine, question, rows, k=max(s.top_n, keep), depth=depth)
            result.scored += n_triples
            seen.update(r["rid"] for r in rows)
            observed.extend(ranked[:s.top_n])
            frontier = []
            for triple in ranked[:keep]:
                if triple.target not in visited and len(frontier) < s.max_frontier:
                    visited.add(triple.target)
                    frontier.append(triple.target)
            if not frontier:
                break
        return observed
