"""Two processes starting on a fresh database create its schema at once (two benchmarks started together did);
``CREATE … IF NOT EXISTS`` checks before the other creator commits, and the server tells the loser an equivalent
rule exists. :func:`ensure_schema` takes that as done instead of failing the command."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from kgagents.graph.connection import Graph
from kgagents.graph.schema import ensure_schema

pytestmark = pytest.mark.integration

WRITERS, ROUNDS = 4, 5


def _create(graph: Graph, together: threading.Barrier) -> None:
    together.wait()
    ensure_schema(graph)


def test_concurrent_schema_creation_on_a_database_without_it(graph: Graph) -> None:
    for _ in range(ROUNDS):
        graph.run_text("DROP INDEX resource_ontologies IF EXISTS")
        graph.run_text("DROP INDEX entity_kg IF EXISTS")
        together = threading.Barrier(WRITERS, timeout=30)

        with ThreadPoolExecutor(WRITERS) as pool:
            for future in [pool.submit(_create, graph, together) for _ in range(WRITERS)]:
                future.result(timeout=120)
    names = {r["name"] for r in graph.run_text("SHOW INDEXES YIELD name")}
    assert {"resource_ontologies", "entity_kg"} <= names
