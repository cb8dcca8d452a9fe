"""KGQA traces in Neo4j, queryable in Cypher (the run itself is written by the run store).

    (:QATrace {run_id, question_id, question, masked, answer, answer_path, path_steps, decided_by, confidence,
               gold, correct, precision, recall, f1, iterations, cap_hit, llm_calls, …, observation, prior,
               neighbours, mentions, linked, observe_ms, direct, relation_odds, chain, seconds})-[:IN_RUN]->(:Run)

``direct`` (only with the model's direct check): what one-relation paths gained from it (see the settings'
``direct_weight``); ``relation_odds`` (only with the relation check, JSON text): the model's log-odds per relation
name (see ``relation_weight``); ``chain`` (only with the chain check): the relations the model wrote, in order,
as relationship types without directions (see ``chain_weight``).
    (:QATrace)-[:TOUCHED {role: 'topic' | 'explored' | 'memory' | 'answer'}]->(:Entity)
    (:QAStep {run_id, question_id, iteration, action, call, fallback, note, output, kept,
              reflect_fallback})-[:STEP_OF]->(:QATrace)

Lists of paths (observation, prior, the memory's neighbours, the linker's mentions) are JSON text
(``apoc.convert.fromJsonList`` reads them back); the answer path's steps are a list property (``path_steps``), and
the entities a trace used are linked with ``TOUCHED``, so "which runs answered with this entity" or "which questions
took this path" are plain matches.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from kgagents.graph.connection import Graph

#: observed paths a trace keeps (best first), and end entities per path
TRACE_PATHS, TRACE_ENDS = 10, 5


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _compact(items: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Observed paths as a trace keeps them: topic, steps, display, size, first ends, score and its parts."""
    keep = ("topic", "path", "display", "size", "score", "similarity", "type_score", "prior")
    return [{**{k: p[k] for k in keep}, "ends": p["end_names"][:TRACE_ENDS]} for p in items[:TRACE_PATHS]]


def trace_row(state: Mapping[str, Any], *, extra: Mapping[str, Any]) -> dict[str, Any]:
    """One question's final agent state as a ``kgqa/write_traces`` row; ``extra`` adds scored fields."""
    touched = [{"id": e, "role": "topic"} for e in state.get("topics", [])]
    touched += [{"id": h["entity"], "role": "explored"} for h in state.get("history", []) if h.get("entity")]
    touched += [{"id": e, "role": "answer"} for e in state.get("answer_entities", [])[:TRACE_PATHS * 10]]
    unique = list({(t["id"], t["role"]): t for t in touched}.values())
    steps = [{"iteration": s["iteration"], "action": s["action"]["action"], "call": s["action"]["call"],
              "fallback": s["action"]["fallback"], "note": s["action"]["note"], "output": s["output"],
              "kept": s["kept"], "reflect_fallback": s["reflect_fallback"]}
             for s in state.get("steps", [])]
    path = state.get("answer_path")
    props = {
        "question": state["question"], "masked": state.get("masked"), "answer": state.get("answer", ""),
        "answer_path": path["display"] if path else None, "path_steps": path["path"] if path else None,
        "iterations": state.get("iteration", 0), "cap_hit": bool(state.get("cap_hit", False)),
        "observation": _json(_compact(state.get("observation", []))),
        "prior": _json(state.get("prior", [])), "neighbours": _json(state.get("neighbours", [])),
        "mentions": _json(state.get("linked", [])),
        "history": [h["call"] for h in state.get("history", [])], "gate": state.get("gate_note"),
        "direct": state.get("direct") or None,
        "relation_odds": _json(state["relation_odds"]) if state.get("relation_odds") else None,
        "chain": state.get("chain") or None,
        "parsed_chain": (state.get("parsed_chain") or {}).get("chain"),
        "parsed_mentions": (state.get("parsed_chain") or {}).get("mentions"),
        "observe_ms": [round(s * 1000, 2) for s in state.get("observe_seconds", [])],
        **extra,
    }
    return {"question_id": state["question_id"], "props": {k: v for k, v in props.items() if v is not None},
            "touched": unique, "steps": steps}


def write_traces(graph: Graph, run_id: str, kg: str, rows: Sequence[dict[str, Any]]) -> None:
    """Write a batch of trace rows under the run (whose node the run store created)."""
    if not rows:
        return
    graph.run_script("kgqa/constraints")
    with graph.transaction() as tx:
        graph.write_rows(tx, "kgqa/write_traces", rows, batch_size=200, run_id=run_id, kg=kg)


def stored_trace(graph: Graph, run_id: str, question_id: str) -> dict[str, Any] | None:
    """One stored trace with its steps and touched entities, read back from Neo4j."""
    rows = graph.run("kgqa/trace", run_id=run_id, question_id=question_id)
    return rows[0] if rows else None
