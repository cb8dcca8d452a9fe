"""An input with nothing in it is an error, not an empty KG with a (:Load) record; embedding a KG or ontology
name that is not loaded is an error naming the loaded ones, not "0 embedded"."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgagents.cli import app
from kgagents.config import Neo4jSettings
from kgagents.embeddings.base import Embedder
from kgagents.embeddings.index import Scope, embed_nodes
from kgagents.errors import KgAgentsError, ParseError
from kgagents.graph.connection import Graph
from kgagents.loaders.ontology import load_ontology
from kgagents.loaders.triples import load_triples
from kgagents.loaders.wikidata import load_wikidata_nt

runner = CliRunner()


def _written(graph: Graph) -> int:
    return graph.run_text("MATCH (n) WHERE n:KG OR n:Entity OR n:Load RETURN count(n) AS n")[0]["n"]


@pytest.mark.parametrize("content", ["", "\n  \n\t\n"])
def test_an_empty_triples_file_is_refused(graph: Graph, tmp_path: Path, content: str) -> None:
    path = tmp_path / "empty.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ParseError, match="empty.txt: has no triples"):
        load_triples(graph, path, kg="empty")
    assert _written(graph) == 0


def test_an_empty_wikidata_dump_is_refused(graph: Graph, tmp_path: Path) -> None:
    path = tmp_path / "empty.nt"
    path.write_text("# nothing but a comment\n", encoding="utf-8")
    with pytest.raises(ParseError, match="empty.nt: holds no Wikidata item"):
        load_wikidata_nt(graph, path, kg="empty")
    assert _written(graph) == 0


def test_the_cli_refuses_an_empty_triples_file(graph: Graph, neo4j_settings: Neo4jSettings, tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_text("", encoding="utf-8")
    result = runner.invoke(app, ["load", "kg", str(path), "--format", "triples"],
                           env={"KGAGENTS_NEO4J_URI": neo4j_settings.uri,
                                "KGAGENTS_NEO4J_PASSWORD": neo4j_settings.password.get_secret_value()})
    assert result.exit_code != 0 and "has no triples" in " ".join(result.output.split())
    assert _written(graph) == 0


class _NeverCalled(Embedder):
    """An embedder the unknown-name check must stop before."""

    name = "never-called"
    dimensions = 3

    def embed(self, texts):  # type: ignore[no-untyped-def, override]
        raise AssertionError("nothing should be embedded")


def test_embedding_an_unknown_kg_or_ontology_names_the_loaded_ones(graph: Graph, fixtures: Path) -> None:
    load_triples(graph, fixtures / "kg" / "triples_small.txt", kg="small")
    load_ontology(graph, fixtures / "ontology" / "features.ttl")
    with pytest.raises(KgAgentsError, match="no KG named 'smal' .*the KGs loaded: small"):
        embed_nodes(graph, _NeverCalled(), scope=Scope.kg("smal"), text_properties="name", vector_property="v")
    with pytest.raises(KgAgentsError, match="no ontology named 'feature' .*the ontologies loaded: features"):
        embed_nodes(graph, _NeverCalled(), scope=Scope.ontology("feature"), text_properties="name",
                    vector_property="v")
