"""A tiny MetaQA-style movie KG (26 triples), loaded and its triple readings embedded once per module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kgagents.agent.kgqa.readings import embed_triples
from kgagents.config import Neo4jSettings
from kgagents.embeddings import get_embedder
from kgagents.graph.connection import Graph
from kgagents.graph.schema import ensure_schema
from kgagents.loaders.triples import load_triples

KG = "movies"


@pytest.fixture(scope="module")
def movies(neo4j_settings: Neo4jSettings, fixtures: Path) -> Iterator[Graph]:
    """The database wiped, the movie KG loaded and embedded; tests add runs and traces but never change the KG."""
    with Graph(neo4j_settings) as g:
        g.run("admin/wipe")
        ensure_schema(g)
        load_triples(g, fixtures / "kgqa" / "movies_kb.txt", kg=KG)
        embed_triples(g, get_embedder(), KG)
        yield g
