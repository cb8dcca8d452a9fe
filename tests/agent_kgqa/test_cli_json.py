"""`ask --json` and `kgqa run --json`: one JSON document on stdout, the numbers the run stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgagents.cli import app
from kgagents.config import Neo4jSettings
from kgagents.graph.connection import Graph

from .conftest import KG

runner = CliRunner()


def _env(settings: Neo4jSettings) -> dict[str, str]:
    return {"KGAGENTS_NEO4J_URI": settings.uri, "KGAGENTS_NEO4J_PASSWORD": settings.password.get_secret_value()}


def test_ask_json_gives_the_answers_and_the_path(movies: Graph, neo4j_settings: Neo4jSettings) -> None:
    result = runner.invoke(app, ["ask", "who directed [Sunset Boulevard]", "--kg", KG, "--no-llm", "--json"],
                           env=_env(neo4j_settings))
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["mode"] == "no_llm" and document["model"] is None
    assert document["answers"] == ["Billy Wilder"] and document["path"] == "directed by"
    stored = movies.run_text("MATCH (r:Run {id: $id}) RETURN r.job AS job", id=document["run_id"])
    assert stored and stored[0]["job"] == "kgqa"
    assert document["paths"] and "MATCH (t:QATrace" in document["trace_query"]


def test_kgqa_run_json_gives_the_summary_and_every_result(movies: Graph, neo4j_settings: Neo4jSettings,
                                                          fixtures: Path) -> None:
    questions = fixtures / "kgqa" / "movies_questions.jsonl"
    result = runner.invoke(app, ["kgqa", "run", str(questions), "--kg", KG, "--no-llm", "--json"],
                           env=_env(neo4j_settings))
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    lines = [line for line in questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert document["summary"]["questions"] == len(document["results"]) == len(lines)
    right = sum(1 for r in document["results"] if r["correct"])
    assert abs(document["summary"]["hits_at_1"] - right / len(lines)) < 1e-3
    assert document["files"] == [str(questions)]


def test_the_question_graph_snippet_in_the_kgqa_docs_runs(movies: Graph, neo4j_settings: Neo4jSettings,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from kgagents.paths import REPO_ROOT

    text = (REPO_ROOT / "docs" / "kgqa.md").read_text(encoding="utf-8")
    snippet = text.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.setenv("KGAGENTS_NEO4J_URI", neo4j_settings.uri)
    monkeypatch.setenv("KGAGENTS_NEO4J_PASSWORD", neo4j_settings.password.get_secret_value())
    exec(compile(snippet, "docs/kgqa.md", "exec"), {})  # noqa: S102 - the documented snippet is the subject
    assert capsys.readouterr().out.strip() == "William Dieterle directed by"
