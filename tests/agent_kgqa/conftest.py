"""A tiny MetaQA-style movie KG (26 triples), loaded and prepared (names embedded, linking index) once per module;
and :func:`prepared` for a test's own small KG."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kgagents.config import Neo4jSettings
from kgagents.graph.connection import Graph
from kgagents.graph.schema import ensure_schema
from kgagents.jobs.kgqa import prepare_kg
from kgagents.loaders.triples import load_triples

KG = "movies"


def load_prepared(g: Graph, triples: Path, kg: str) -> Graph:
    """The database wiped, ``triples`` loaded as KG ``kg`` and prepared (as a user's `load kg` + `kgqa prepare`)."""
    g.run("admin/wipe")
    ensure_schema(g)
    load_triples(g, triples, kg=kg)
    prepare_kg(g, kg)
    return g


@pytest.fixture(scope="module")
def movies(neo4j_settings: Neo4jSettings, fixtures: Path) -> Iterator[Graph]:
    """The database wiped, the movie KG loaded and prepared; tests add runs and traces but never change the KG."""
    with Graph(neo4j_settings) as g:
        yield load_prepared(g, fixtures / "kgqa" / "movies_kb.txt", KG)


@pytest.fixture
def prepared(neo4j_settings: Neo4jSettings) -> Iterator[Callable[[Path, str], Graph]]:
    """A test's own KG: ``prepared(triples_file, kg)`` wipes the database, loads and prepares it, and returns the
    graph (closed after the test)."""
    with Graph(neo4j_settings) as g:
        yield lambda triples, kg: load_prepared(g, triples, kg)
