"""KGQA runs and traces in Neo4j, queryable in Cypher.

    (:Run {id, job: 'kgqa', kg, mode, model, …settings, …summary})
    (:QATrace {run_id, question_id, question, answer, gold, correct, iterations, cap_hit, llm_calls, tokens,
               observation, memory, history, observe_ms, seconds})-[:IN_RUN]->(:Run)
    (:QATrace)-[:TOUCHED {role: 'topic' | 'explored' | 'memory' | 'answer'}]->(:Entity)
    (:QAStep {run_id, question_id, iteration, action, call, fallback, note, output, kept,
              reflect_fallback})-[:STEP_OF]->(:QATrace)

Lists of triples (observation, memory, kept) are JSON text (``apoc.convert.fromJsonList`` reads them back); the
entities they name are linked with ``TOUCHED``, so "which runs used this entity" is a plain pattern match.
Traces are written per batch of questions, in one transaction each.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from kgagents.agent.kgqa.memory import memory_triples
from kgagents.graph.connection import Graph

def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _compact(items: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Triples as stored in a trace: ids, names, the side they were reached from (``source``), score and depth."""
    keep = ("head", "head_name", "relation", "tail", "tail_name", "source", "score", "depth")
    return [{k: t[k] for k in keep} for t in items]


def trace_row(state: Mapping[str, Any], *, shown: int, extra: Mapping[str, Any]) -> dict[str, Any]:
    """One question's final agent state as a ``kgqa/write_traces`` row; ``extra`` adds scored fields."""
    memory = state.get("memory", [])
    touched = [{"id": e, "role": "topic"} for e in state.get("topics", [])]
    touched += [{"id": a, "role": "explored"} for h in state.get("history", []) for a in h.get("args", [])]
    touched += [{"id": e, "role": "memory"} for t in memory_triples(memory) for e in (t.head, t.tail)]
    touched += [{"id": e, "role": "answer"} for e in state.get("answer_entities", [])]
    unique = list({(t["id"], t["role"]): t for t in touched}.values())
    steps = [{"iteration": s["iteration"], "action": s["action"]["action"], "call": s["action"]["call"],
              "fallback": s["action"]["fallback"], "note": s["action"]["note"], "output": s["output"],
              "observed": s["observed"], "kept": _json(_compact(s["kept"])), "reflect_fallback": s["reflect_fallback"]}
             for s in state.get("steps", [])]
    props = {
        "question": state["question"], "answer": state.get("answer", ""),
        "iterations": state.get("iteration", 0), "cap_hit": bool(state.get("cap_hit", False)),
        "observation": _json(_compact(state.get("observation", [])[:shown])),
        "memory": _json([_compact(p) for p in memory]),
        "history": [h["call"] for h in state.get("history", [])],
        "observe_ms": [round(s * 1000, 2) for s in state.get("observe_seconds", [])],
        **extra,
    }
    return {"question_id": state["question_id"], "props": props, "touched": unique, "steps": steps}


def write_traces(graph: Graph, run_id: str, kg: str, rows: Sequence[Mapping[str, Any]]) -> None:
    """Write a batch of trace rows (the run node must exist: :func:`write_run` first)."""
    if not rows:
        return
    with graph.transaction() as tx:
        graph.write_rows(tx, "kgqa/write_traces", rows, batch_size=200, run_id=run_id, kg=kg)


def write_run(graph: Graph, run_id: str, props: Mapping[str, Any]) -> None:
    """Create or update the run's ``(:Run {job: 'kgqa'})`` node (``None`` values are left out), and make sure the
    trace constraints exist."""
    graph.run_script("kgqa/constraints")
    graph.run("kgqa/write_run", run_id=run_id, props={k: v for k, v in props.items() if v is not None})


def stored_trace(graph: Graph, run_id: str, question_id: str) -> dict[str, Any] | None:
    """One stored trace with its steps and touched entities, read back from Neo4j."""
    rows = graph.run("kgqa/trace", run_id=run_id, question_id=question_id)
    return rows[0] if rows else None
