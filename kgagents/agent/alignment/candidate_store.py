"""Retrieval results in Neo4j: the ``(:Run {job: 'ea-retrieval'})`` node (through the run store) and the ranked
``(s)-[:CANDIDATE {run_id, rank, score, assigned, <signal values>}]->(t)`` relationships the agent reads."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kgagents.agent.alignment.signals import PairSignals
from kgagents.cypher import cypher
from kgagents.graph.connection import Graph

JOB = "ea-retrieval"


@dataclass(frozen=True)
class Candidate:
    """One stored candidate: its rank (1 = the assigned target when the one-to-one assignment gave one, else the
    best fused score), fused score, whether the assignment chose it, and its signal values."""

    target: str
    rank: int
    score: float
    signals: PairSignals
    assigned: bool = False


def store_candidates(graph: Graph, *, run_id: str, kg1: str, kg2: str,
                     candidates: Mapping[str, Sequence[Candidate]]) -> None:
    """Write the CANDIDATE relationships of run ``run_id`` in one transaction, replacing earlier ones of that id
    (the run node itself is the run store's)."""
    rows = [{"s": s, "candidates": [
        {"t": c.target, "rank": c.rank, "score": c.score, "assigned": c.assigned,
         "signals": sorted(c.signals.found_by), "name": c.signals.name, "multilingual": c.signals.multilingual,
         "exact": c.signals.exact, "structure": c.signals.structure, "attributes": c.signals.attributes}
        for c in cands]} for s, cands in candidates.items()]
    per_batch = max(1, graph.settings.batch_size // max(1, max((len(c) for c in candidates.values()), default=1)))
    with graph.transaction() as tx:
        tx.run(cypher("alignment_ea/delete_candidates"), kg1=kg1, run_id=run_id).consume()
        graph.write_rows(tx, "alignment_ea/write_candidates", rows, batch_size=per_batch, kg1=kg1, kg2=kg2,
                         run_id=run_id)


def stored_candidates(graph: Graph, *, run_id: str, kg1: str, source: str) -> list[dict[str, Any]]:
    """The stored candidates of one source of a run (target, rank, score, assigned, signals), best first."""
    return graph.run("alignment_ea/candidates_of", run_id=run_id, kg1=kg1, source=source)
