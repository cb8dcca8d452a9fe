"""The LLM gate stored for a KG (learned by :func:`kgagents.jobs.kgqa_gate.learn_gate`), as the agent reads it."""

from __future__ import annotations

from kgagents.graph.connection import Graph


def stored_gate(graph: Graph, kg: str, model: str, memory: bool, verify_weight: float,
                ranking: str) -> float | None:
    """The gate (``confident``) learned for ``kg``, ``model``, the memory setting, ``verify_weight`` and
    ``ranking``, else None."""
    rows = graph.run("kgqa/gate_read", kg=kg, model=model, memory=memory, verify_weight=verify_weight,
                     ranking=ranking)
    return float(rows[0]["confident"]) if rows else None
