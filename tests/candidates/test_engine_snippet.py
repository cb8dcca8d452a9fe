"""The candidate engine as a newcomer writes it: ``CandidateEngine(connect())`` on the configured database (the
snippet proposed for the README, run here as written)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgagents.config import Neo4jSettings
from kgagents.embeddings import get_embedder
from kgagents.embeddings.index import Scope, embed_nodes
from kgagents.graph.connection import Graph
from kgagents.loaders.triples import load_triples

SNIPPET = '''
from kgagents import connect
from kgagents.candidates import CandidateEngine
from kgagents.embeddings.index import Scope

with connect() as graph:                    # the database KGAGENTS_NEO4J_* configures
    engine = CandidateEngine(graph)
    hits = engine.search(Scope.kg("left"), Scope.kg("right"), k=3, vector_property="embedding")
for source, best in sorted(hits.items())[:3]:
    print(source, [(h.key, round(h.cosine, 3)) for h in best])
'''


def test_the_engine_snippet_runs_as_written(graph: Graph, neo4j_settings: Neo4jSettings, fixtures: Path,
                                            monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    embedder = get_embedder()
    for kg in ("left", "right"):
        load_triples(graph, fixtures / "kgqa" / "movies_kb.txt", kg=kg)
        embed_nodes(graph, embedder, scope=Scope.kg(kg), text_properties=[("label", "name")],
                    vector_property="embedding")
    monkeypatch.setenv("KGAGENTS_NEO4J_URI", neo4j_settings.uri)
    monkeypatch.setenv("KGAGENTS_NEO4J_PASSWORD", neo4j_settings.password.get_secret_value())
    exec(compile(SNIPPET, "snippet", "exec"), {})  # noqa: S102 - the snippet is the test's subject
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    for line in lines:  # the same KG twice: every entity's best match is itself, cosine 1
        source, best = line.split(" ", 1)
        assert best.startswith(f"[('{source}', 1.0)")
