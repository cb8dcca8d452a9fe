"""Matching results in Neo4j (``MATCHES`` relationships) and as an Alignment API file."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kgagents.cypher import cypher
from kgagents.graph.connection import Graph
from kgagents.loaders.alignment import Alignment, Cell, write_alignment


def write_matches(graph: Graph, state: Mapping[str, Any], mode: str, model: str) -> None:
    """Write the run's pairs as ``MATCHES`` relationships (one per pair and run) in one transaction, and tie the
    run to its two ontologies. The ``(:Run)`` node itself is the run store's (:mod:`kgagents.graph.runs`)."""
    rows = [{"source": m["source"], "target": m["target"], "score": float(m["score"]),
             "similarity": m.get("similarity"), "channels": list(m["channels"]), "validated": bool(m["validated"]),
             "reason": m.get("reason"), "log_odds": m.get("log_odds")}
            for m in state.get("matches", [])]
    with graph.transaction() as tx:
        graph.write_rows(tx, "matching/write_matches", rows, run_id=state["run_id"], model=model, mode=mode)
        tx.run(cypher("matching/run_on"), run_id=state["run_id"], source=state["source"],
               target=state["target"]).consume()


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
