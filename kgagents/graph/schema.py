"""Constraints and indexes every loader relies on, created before the first write."""

from __future__ import annotations

from kgagents.graph.connection import Graph


def ensure_schema(graph: Graph) -> None:
    """Create the uniqueness constraints and lookup indexes (no-op when they exist)."""
    graph.run_script("schema/constraints")
    graph.run("schema/await_indexes", timeout_s=300)
