"""Bad input on the command line: one message saying what, where and what to do, a non-zero exit, never a
traceback, and nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgagents.cli import app
from kgagents.config import Neo4jSettings
from kgagents.graph.connection import Graph

runner = CliRunner()


def _env(settings: Neo4jSettings, **extra: str) -> dict[str, str]:
    return {"KGAGENTS_NEO4J_URI": settings.uri, "KGAGENTS_NEO4J_PASSWORD": settings.password.get_secret_value(),
            **extra}


def _fails_cleanly(result, *expected: str) -> str:  # noqa: ANN001 - click's Result
    text = " ".join(result.output.split())  # rich wraps long lines
    assert result.exit_code != 0, text
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    for piece in expected:
        assert piece in text, text
    return text


def _nodes(graph: Graph) -> int:
    return graph.run_text("MATCH (n) RETURN count(n) AS n")[0]["n"]


def test_an_http_uri_is_explained() -> None:
    result = runner.invoke(app, ["stats"], env={"KGAGENTS_NEO4J_URI": "http://127.0.0.1:7474"})
    _fails_cleanly(result, "http://127.0.0.1:7474", "bolt://")


@pytest.mark.parametrize("threshold", ["2", "-1.5"])
def test_a_threshold_outside_the_cosine_range_is_a_usage_error(threshold: str, fixtures: Path) -> None:
    d = fixtures / "matching"
    result = runner.invoke(app, ["match", str(d / "conf_a.ttl"), str(d / "conf_b.ttl"), "--no-llm",
                                 "--threshold", threshold])
    _fails_cleanly(result, "--threshold")


def test_a_bad_setting_in_the_environment_is_one_line(neo4j_settings: Neo4jSettings, fixtures: Path) -> None:
    d = fixtures / "matching"
    result = runner.invoke(app, ["match", str(d / "conf_a.ttl"), str(d / "conf_b.ttl"), "--no-llm"],
                           env=_env(neo4j_settings, KGAGENTS_MATCH_THRESHOLD="2"))
    _fails_cleanly(result, "invalid", "threshold", "less than or equal to 1")


def test_match_with_a_missing_file_says_so(graph: Graph, neo4j_settings: Neo4jSettings, fixtures: Path) -> None:
    result = runner.invoke(app, ["match", "nope.owl", str(fixtures / "matching" / "conf_b.ttl"), "--no-llm"],
                           env=_env(neo4j_settings))
    _fails_cleanly(result, "nope.owl: no such file")
    assert graph.run_text("MATCH (r:Run) RETURN count(r) AS n")[0]["n"] == 0


def test_match_with_an_unknown_ontology_name_lists_the_loaded_ones(graph: Graph, neo4j_settings: Neo4jSettings,
                                                                   fixtures: Path) -> None:
    d = fixtures / "matching"
    assert runner.invoke(app, ["load", "ontology", str(d / "conf_a.ttl")], env=_env(neo4j_settings)).exit_code == 0
    result = runner.invoke(app, ["match", "conf_a", "nope", "--no-llm"], env=_env(neo4j_settings))
    _fails_cleanly(result, "'nope' is neither a file nor a loaded ontology (loaded: conf_a)")


def test_load_of_an_empty_owl_file_fails(graph: Graph, neo4j_settings: Neo4jSettings, tmp_path: Path) -> None:
    empty = tmp_path / "empty.owl"
    empty.write_text("")
    result = runner.invoke(app, ["load", "ontology", str(empty)], env=_env(neo4j_settings))
    _fails_cleanly(result, "empty.owl: holds no RDF triples")
    assert _nodes(graph) == 0


def test_load_of_a_uri_over_8_kb_names_file_and_line(graph: Graph, neo4j_settings: Neo4jSettings,
                                                      tmp_path: Path) -> None:
    big = tmp_path / "big.ttl"
    big.write_text("@prefix owl: <http://www.w3.org/2002/07/owl#> .\n<http://x#A> a owl:Class .\n"
                   f"<http://x#{'B' * 9000}> a owl:Class .\n")
    result = runner.invoke(app, ["load", "ontology", str(big)], env=_env(neo4j_settings))
    _fails_cleanly(result, "big.ttl:3:", f"{len('http://x#') + 9000:,} bytes", "shorten it")
    assert _nodes(graph) == 0


def test_match_with_two_tasks_source_files_refuses_the_clash_then_takes_a_name(
        graph: Graph, neo4j_settings: Neo4jSettings, fixtures: Path) -> None:
    one, two = fixtures / "ontology" / "task1" / "source.ttl", fixtures / "ontology" / "task2" / "source.ttl"
    other = fixtures / "matching" / "conf_b.ttl"
    env = _env(neo4j_settings)
    assert runner.invoke(app, ["match", str(one), str(other), "--no-llm"], env=env).exit_code == 0
    _fails_cleanly(runner.invoke(app, ["match", str(two), str(other), "--no-llm"], env=env),
                   "an ontology named 'source' is already loaded", "--source-name")
    named = runner.invoke(app, ["match", str(two), str(other), "--no-llm", "--source-name", "task2"], env=env)
    assert named.exit_code == 0, named.output
    assert "matching task2 → conf_b" in " ".join(named.output.split())


def test_bench_load_refuses_a_work_dir_that_does_not_exist_before_touching_a_server(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    # the URI points nowhere: had the command got as far as a server, it would fail differently
    result = runner.invoke(app, ["bench", "load", "--work-dir", str(missing)],
                           env={"KGAGENTS_NEO4J_URI": "bolt://127.0.0.1:1"})
    assert result.exit_code == 2 and "'--work-dir'" in result.output and not missing.exists()
