"""Matching results in Neo4j (``MATCHES`` + ``(:Run)``) and as an Alignment API file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgagents.agent.matching.settings import MatchSettings
from kgagents.cypher import cypher
from kgagents.graph.connection import Graph
from kgagents.graph.properties import as_properties, seconds_properties
from kgagents.llm import Ledger
from kgagents.loaders.alignment import Alignment, Cell, write_alignment


def write_run(graph: Graph, state: dict[str, Any], settings: MatchSettings, model: str,
              timings: dict[str, float], ledger: Ledger | None = None) -> None:
    """Write the run's pairs and its (:Run) node in one transaction, after the LLM ledger: the run's
    ``llm_calls`` is the number of requests the ledger holds for it (every retry and repair included,
    and those of the run's earlier, interrupted processes). The settings and the per-stage seconds are
    typed properties of the run (``threshold``, ``channels``, ``retrieve_seconds``, …)."""
    calls = ledger.flush(graph, state["run_id"]).calls if ledger is not None else 0
    rows = [{"source": m["source"], "target": m["target"], "score": float(m["score"]),
             "similarity": m.get("similarity"), "channels": list(m["channels"]), "validated": bool(m["validated"]),
             "reason": m.get("reason")}
            for m in state.get("matches", [])]
    with graph.transaction() as tx:
        graph.write_rows(tx, "matching/write_matches", rows, run_id=state["run_id"], model=model, mode=settings.mode)
        tx.run(cypher("matching/write_run"), run_id=state["run_id"], source=state["source"],
               target=state["target"], model=model, mode=settings.mode,
               props={**as_properties(settings.model_dump(mode="json")), **seconds_properties(timings)},
               matches=len(rows), llm_calls=calls, started_at=state.get("started_at")).consume()


def run_alignment(graph: Graph, run_id: str, source: str, target: str) -> Alignment:
    """The run's matches as an Alignment API alignment (relation '=', measure = fused score capped at 1)."""
    rows = graph.run("matching/run_matches", run_id=run_id)
    cells = [Cell(entity1=r["source"], entity2=r["target"], relation="=", measure=min(1.0, float(r["score"])))
             for r in rows]
    uris = [(graph.run("matching/ontology_uri", ontology=o) or [{"uri": o}])[0]["uri"] for o in (source, target)]
    return Alignment(onto1=uris[0], onto2=uris[1], cells=cells)


def export_alignment(graph: Graph, run_id: str, source: str, target: str, path: Path) -> Alignment:
    alignment = run_alignment(graph, run_id, source, target)
    write_alignment(alignment, path)
    return alignment
