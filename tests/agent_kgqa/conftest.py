"""A tiny MetaQA-style movie KG (26 triples), loaded and prepared (names embedded, linking index) once per module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kgagents.config import Neo4jSettings
from kgagents.graph.connection import Graph
from kgagents.graph.schema import ensure_schema
from kgagents.jobs.kgqa import prepare_kg
from kgagents.loaders.triples import load_triples

KG = "movies"


@pytest.fixture(scope="module")
def movies(neo4j_settings: Neo4jSettings, fixtures: Path) -> Iterator[Graph]:
    """The database wiped, the movie KG loaded and prepared; tests add runs and traces but never change the KG."""
    with Graph(neo4j_settings) as g:
        g.run("admin/wipe")
        ensure_schema(g)
        load_triples(g, fixtures / "kgqa" / "movies_kb.txt", kg=KG)
        prepare_kg(g, KG)
        yield g
