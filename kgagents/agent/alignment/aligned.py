"""The pairs an alignment run decided, as a user takes them away: an ``(:Alignment)`` node with ``[:ALIGNED]`` links
in the graph, and a TSV, JSON or SSSOM file.

Why the same ``(:Alignment {name})`` node as a loaded OAEI alignment: one place to find every alignment in the
graph, read back with :func:`~kgagents.loaders.alignment.stored_alignment` whatever produced it. The links run
between ``(:Entity)`` nodes: ``(s)-[:ALIGNED {alignment, relation: '=', measure, confidence, assigned, decided_by,
reviewer}]->(t)``, read back by :func:`stored_pairs`; ``measure`` is the fused score, ``confidence`` the calibrated
one (:mod:`~kgagents.agent.alignment.confidence`), absent where the run had no seed links to calibrate on.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from kgagents.cypher import cypher
from kgagents.graph.connection import Graph

#: columns of the TSV pairs file
TSV_HEADER = ("source", "target", "score", "assigned", "decided_by", "confidence")


@dataclass(frozen=True)
class AlignedPair:
    """One decided pair: the fused retrieval score, whether the global one-to-one assignment chose it, what
    decided it (``retrieval`` or the EA-Agent's tool path), the chat model that chose it, if one did, and the
    calibrated confidence in [0, 1] (None: no seed links to calibrate on, or a target retrieval did not rank
    first)."""

    source: str
    target: str
    score: float
    assigned: bool
    decided_by: str = "retrieval"
    reviewer: str | None = None
    confidence: float | None = None


def store_alignment(graph: Graph, *, name: str, kg1: str, kg2: str, pairs: Sequence[AlignedPair]) -> None:
    """Write (or replace) ``(:Alignment {name})`` and its ``[:ALIGNED]`` links in one transaction."""
    with graph.transaction() as tx:
        tx.run(cypher("alignment_ea/unlink_alignment"), alignment=name, kg1=kg1).consume()
        tx.run(cypher("alignment/merge_alignment"), alignment=name, file=None, onto1=kg1, onto2=kg2, uri1=None,
               uri2=None, level="0", type="11", cells=len(pairs), linked=len(pairs), missing=0,
               entity1=[p.source for p in pairs], entity2=[p.target for p in pairs],
               relation=["=" for _ in pairs], measure=[p.score for p in pairs]).consume()
        graph.write_rows(tx, "alignment_ea/link_alignment", [asdict(p) | {"s": p.source, "t": p.target}
                                                             for p in pairs], alignment=name, kg1=kg1, kg2=kg2)


def stored_pairs(graph: Graph, name: str) -> tuple[str, str, list[AlignedPair]] | None:
    """(kg1, kg2, pairs) of the entity alignment stored as ``(:Alignment {name})``; None when there is none."""
    rows = graph.run("alignment_ea/stored_pairs", alignment=name)
    if not rows:
        return None
    pairs = [AlignedPair(r["source"], r["target"], float(r["score"]), bool(r["assigned"]), r["decided_by"],
                         r["reviewer"], r["confidence"]) for r in rows]
    return rows[0]["source_kg"], rows[0]["target_kg"], pairs


def write_pairs_file(path: Path, pairs: Sequence[AlignedPair], summary: Mapping[str, Any],
                     as_json: bool | None = None) -> None:
    """JSON (``as_json``; None: a ``.json`` name): the summary with every pair; else TSV with :data:`TSV_HEADER`."""
    if as_json if as_json is not None else path.suffix.lower() == ".json":
        path.write_text(json.dumps({**summary, "pairs": [asdict(p) for p in pairs]}, indent=1, ensure_ascii=False),
                        encoding="utf-8")
        return
    with path.open("w", encoding="utf-8") as fh:
        fh.write("\t".join(TSV_HEADER) + "\n")
        for p in pairs:
            confidence = "" if p.confidence is None else repr(p.confidence)
            fh.write(f"{p.source}\t{p.target}\t{p.score!r}\t{str(p.assigned).lower()}\t{p.decided_by}\t{confidence}\n")
