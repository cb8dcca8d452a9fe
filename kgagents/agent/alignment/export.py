"""Read a stored EA-Agent run back out of Neo4j: aligned pairs as TSV, trajectories as JSONL.

Why from the graph and not from the run's memory: the (SAME_AS, AlignTrace) records of a run are the result of
record; exporting from them means pairs and fine-tuning data can be produced later, for any stored run, without
running the model again — and a benchmark's numbers come from the same records a user can query.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from kgagents.agent.alignment.aligned import AlignedPair, stored_pairs, write_pairs_file
from kgagents.agent.alignment.confidence import Calibration
from kgagents.agent.alignment.reward import write_trajectories
from kgagents.agent.alignment.rewriter import LLMPathRewriter
from kgagents.agent.alignment.sssom_out import write_alignment_sssom, write_ea_sssom
from kgagents.agent.base import NO_LLM
from kgagents.errors import KgAgentsError
from kgagents.graph.connection import Graph
from kgagents.graph.runs import RunStore
from kgagents.loaders.sssom import sssom_named

PAIRS_HEADER = ("source", "target", "score", "path", "confidence")


def stored_decisions(graph: Graph, run_id: str) -> list[dict[str, Any]]:
    """One row per traced source of run ``run_id`` (``alignment_ea/agent_alignments``), sorted by source id;
    an error naming the fix when the run stored nothing."""
    rows = graph.run("alignment_ea/agent_alignments", run_id=run_id)
    if not rows:
        raise KgAgentsError(f"No EA-Agent decisions stored for run '{run_id}': run `kgagents align` (or "
                            "`kgagents bench ea-agent`) first, or list runs with MATCH (r:Run {job: 'ea-agent'}) "
                            "RETURN r.id.")
    return rows


def write_pairs(graph: Graph, run_id: str, path: Path | str, *, as_sssom: bool | None = None) -> int:
    """TSV ``source<TAB>target<TAB>score<TAB>path<TAB>confidence`` (tools joined by ``>``; the confidence as the
    SSSOM file carries it, empty where there is none), one line per SAME_AS of the run, after a header line — or,
    for a ``.sssom.tsv`` name, an SSSOM mapping set (:mod:`~kgagents.agent.alignment.sssom_out`; ``as_sssom`` says
    so whatever the name); sources without a decision
    are left out. ``run_id`` may also name an entity alignment ``kgagents align`` stored: its pairs, TSV as
    ``align --out`` writes it, or SSSOM. Returns the number of pairs."""
    sssom = sssom_named(path) if as_sssom is None else as_sssom
    rows = graph.run("alignment_ea/agent_alignments", run_id=run_id)
    if not rows:
        return _write_alignment(graph, run_id, Path(path), sssom)
    rows = [r for r in rows if r["target"] is not None]
    if sssom:
        return _write_sssom(graph, run_id, Path(path), rows)
    confidence = _retrieval_confidence(graph, run_id, rows[0]["source_kg"], rows) if rows else {}
    with Path(path).open("w", encoding="utf-8") as fh:
        fh.write("\t".join(PAIRS_HEADER) + "\n")
        for r in rows:
            score = "" if r["score"] is None else repr(float(r["score"]))
            sure = "" if (c := confidence.get(r["source"])) is None else repr(c)
            fh.write(f"{r['source']}\t{r['target']}\t{score}\t{'>'.join(r['path'] or [])}\t{sure}\n")
    return len(rows)


def _write_alignment(graph: Graph, name: str, path: Path, sssom: bool) -> int:
    stored = stored_pairs(graph, name)
    if stored is None:
        raise KgAgentsError(f"No EA-Agent decisions stored for run '{name}' and no entity alignment of that name: "
                            "run `kgagents align` first; MATCH (r:Run {job: 'ea-agent'}) RETURN r.id lists the "
                            "runs, MATCH (a:Alignment) RETURN a.name the alignments.")
    kg1, kg2, pairs = stored
    if sssom:
        return write_alignment_sssom(graph, path, name=name, kg1=kg1, kg2=kg2, pairs=pairs)
    write_pairs_file(path, pairs, {}, as_json=False)
    return len(pairs)


def reviewer(row: dict[str, Any]) -> str | None:
    """The chat model that chose a stored EA-Agent decision, if one did (not in ``no_llm`` mode, not a fallback)."""
    return None if row["mode"] == NO_LLM or row["fallback"] else row["model"]


def _write_sssom(graph: Graph, run_id: str, path: Path, rows: list[dict[str, Any]]) -> int:
    if not rows:
        raise KgAgentsError(f"Run '{run_id}' decided no pair: nothing to write to {path}.")
    kg1, kg2 = rows[0]["source_kg"], rows[0]["target_kg"]
    confidence = _retrieval_confidence(graph, run_id, kg1, rows)
    decisions = [AlignedPair(r["source"], r["target"], math.nan if r["score"] is None else float(r["score"]), False,
                             ">".join(r["path"] or []) or "none", reviewer(r), confidence.get(r["source"]))
                 for r in rows]
    return write_ea_sssom(graph, path, kg1=kg1, kg2=kg2, decisions=decisions,
                          set_id=f"https://w3id.org/kgagents/run/{run_id}",
                          comment=f"kgagents EA-Agent run {run_id}: {kg1} → {kg2}")


def _retrieval_confidence(graph: Graph, run_id: str, kg1: str, rows: list[dict[str, Any]]) -> dict[str, float]:
    """source → the calibrated confidence of the retrieval run the EA-Agent run ``run_id`` decided on, for the
    decisions that are that run's rank 1 (the confidence is in retrieval's own choice); empty when it has none."""
    store = RunStore(graph)
    run = store.get(run_id)
    retrieval_id = run.get("retrieval_run_id") if run is not None else None
    retrieval = store.get(retrieval_id) if retrieval_id else None
    calibration = Calibration.stored(retrieval.properties) if retrieval is not None else None
    if calibration is None:
        return {}
    decided = {r["source"]: r["target"] for r in rows}
    ranked = graph.run("alignment_ea/agent_candidates", run_id=retrieval_id, kg1=kg1, sources=sorted(decided))
    return {r["source"]: calibration.of_ranking([(c["target"], c["score"]) for c in r["candidates"]])
            for r in ranked if r["candidates"] and r["candidates"][0]["target"] == decided[r["source"]]}


def write_stored_trajectories(graph: Graph, run_id: str, path: Path | str,
                              rewriter: LLMPathRewriter | None = None) -> int:
    """The run's trajectories as JSONL ({query, path, reward, rewritten_path}, as the agent writes them during a
    run). With ``rewriter`` the rewritten path comes from the LLM where its answer is valid (each line then says
    ``rewrite_source``). Traces written before the query was stored cannot be exported: that is an error, not a
    silent gap."""
    rows = stored_decisions(graph, run_id)
    if missing := [r["source"] for r in rows if r["query"] is None or r["rewritten_path"] is None]:
        raise KgAgentsError(f"Run '{run_id}' has {len(missing)} traces without the stored query/rewritten path "
                            f"(e.g. {missing[0]}): they predate trajectory storage; re-run the agent for this run.")
    records = ({"query": json.loads(r["query"]), "path": r["trace_path"], "reward": r["reward"],
                "rewritten_path": r["rewritten_path"]} for r in rows)
    return write_trajectories(path, rewriter.rewrite_all(records) if rewriter is not None else records)
