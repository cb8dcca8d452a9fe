"""``--json`` and ``--version``: what a script reads from the CLI."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import BaseModel, SecretStr
from typer.testing import CliRunner

from kgagents import __version__
from kgagents.cli import app
from kgagents.cli.common import App, console
from kgagents.cli.output import emit_json, json_option, jsonable
from kgagents.config import Neo4jSettings
from kgagents.graph.connection import Graph

runner = CliRunner()


def test_version_prints_the_package_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"kgagents {__version__}"


@dataclass
class _Row:
    name: str
    where: Path
    scores: tuple[float, ...]


class _Model(BaseModel):
    key: SecretStr
    tags: set[str]


def test_jsonable_turns_results_into_plain_json_types() -> None:
    value = {"row": _Row("a", Path("/x/y"), (0.5, float("nan"))), "model": _Model(key=SecretStr("s3cret"),
                                                                                   tags={"b", "a"}), 3: None}
    assert jsonable(value) == {"row": {"name": "a", "where": "/x/y", "scores": [0.5, None]},
                               "model": {"key": "**********", "tags": ["a", "b"]}, "3": None}
    with pytest.raises(TypeError, match="object"):
        jsonable(object())


def test_json_keeps_stdout_for_the_document_alone() -> None:
    demo = App()

    @demo.command("show")
    def show(as_json: bool = json_option()) -> None:
        console.print("working …")  # the App sends this to stderr under --json
        if as_json:
            return emit_json({"answer": 42})
        console.print("answer: 42")

    @demo.command("other")
    def other() -> None:
        console.print("after")

    plain = runner.invoke(demo, ["show"])
    assert plain.exit_code == 0 and "working" in plain.stdout and "answer: 42" in plain.stdout
    scripted = runner.invoke(demo, ["show", "--json"])
    assert scripted.exit_code == 0
    assert json.loads(scripted.stdout) == {"answer": 42}
    assert "working" in scripted.stderr
    assert "after" in runner.invoke(demo, ["other"]).stdout  # the switch ends with the command


def test_stats_json_lists_what_the_graph_holds(graph: Graph, neo4j_settings: Neo4jSettings, fixtures: Path) -> None:
    from kgagents.loaders.ontology import load_ontology

    load_ontology(graph, fixtures / "matching" / "conf_a.ttl", name="conf_a")
    env = {"KGAGENTS_NEO4J_URI": neo4j_settings.uri,
           "KGAGENTS_NEO4J_PASSWORD": neo4j_settings.password.get_secret_value()}
    result = runner.invoke(app, ["stats", "--json"], env=env)
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert set(document) == {"ontologies", "knowledge_graphs", "vector_indexes", "runs"}
    [row] = document["ontologies"]
    classes = graph.run_text("MATCH (c:Class)-[:DEFINED_IN]->(:Ontology {name: 'conf_a'}) RETURN count(c) AS n")
    assert row["ontology"] == "conf_a" and row["classes"] == classes[0]["n"] > 0
