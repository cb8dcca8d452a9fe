"""The LLM gate stored for a KG (learned by :func:`kgagents.jobs.kgqa_gate.learn_gate`), as the agent reads it."""

from __future__ import annotations

from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.graph.connection import Graph


def stored_gate(graph: Graph, kg: str, model: str, settings: KGQASettings) -> float | None:
    """The gate (``confident``) learned for ``kg``, ``model`` and the settings' memory, ``verify_weight``,
    ``ranking`` and model checks (:meth:`~kgagents.agent.kgqa.settings.KGQASettings.model_checks`), else None."""
    rows = graph.run("kgqa/gate_read", kg=kg, model=model, memory=settings.memory,
                     verify_weight=settings.verify_weight, ranking=settings.ranking, checks=settings.model_checks())
    return float(rows[0]["confident"]) if rows else None
