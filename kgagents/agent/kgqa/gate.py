"""The LLM gate stored for a KG (learned by :func:`kgagents.jobs.kgqa_gate.learn_gate`), as the agent reads it."""

from __future__ import annotations

from kgagents.graph.connection import Graph


def stored_gate(graph: Graph, kg: str, model: str, memory: bool) -> float | None:
    """The gate (``confident``) learned for ``kg``, ``model`` and the memory setting, else None."""
    rows = graph.run("kgqa/gate_read", kg=kg, model=model, memory=memory)
    return float(rows[0]["confident"]) if rows else None
