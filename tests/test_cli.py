"""The CLI against the real test server, and its behaviour when the server is not there."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgagents.cli import app
from kgagents.config import Neo4jSettings
from kgagents.graph.connection import Graph

runner = CliRunner()


def _env(settings: Neo4jSettings) -> dict[str, str]:
    return {"KGAGENTS_NEO4J_URI": settings.uri, "KGAGENTS_NEO4J_PASSWORD": settings.password.get_secret_value()}


def test_commands_that_need_the_database_say_how_to_start_it_when_it_is_down() -> None:
    result = runner.invoke(app, ["stats"], env={"KGAGENTS_NEO4J_URI": "bolt://127.0.0.1:1"})
    assert result.exit_code == 1
    assert "kgagents neo4j start" in result.output
    assert "Traceback" not in result.output


def test_load_malformed_ontology_names_file_and_line_and_exits_1(graph: Graph, neo4j_settings: Neo4jSettings,
                                                                  fixtures: Path) -> None:
    bad = fixtures / "ontology" / "malformed.ttl"
    result = runner.invoke(app, ["load", "ontology", str(bad)], env=_env(neo4j_settings))
    assert result.exit_code == 1
    assert "malformed.ttl:" in result.output.replace("\n", "")
    assert graph.run_text("MATCH (n:Resource) RETURN count(n) AS n")[0]["n"] == 0


def test_load_embed_and_stats_on_a_conference_ontology(graph: Graph, neo4j_settings: Neo4jSettings,
                                                      shared_data: Path) -> None:
    cmt = shared_data / "om" / "conference" / "ontologies" / "cmt.owl"
    env = _env(neo4j_settings)
    assert runner.invoke(app, ["load", "ontology", str(cmt)], env=env).exit_code == 0
    embedded = runner.invoke(app, ["embed", "--ontology", "cmt"], env=env)
    assert embedded.exit_code == 0, embedded.output
    stats = runner.invoke(app, ["stats"], env=env)
    assert stats.exit_code == 0 and "cmt" in stats.output and "resource_embedding" in stats.output
    with_vectors = graph.run_text(
        "MATCH (r:Resource) WHERE 'cmt' IN r.ontologies AND r.embedding IS NOT NULL RETURN count(r) AS n")[0]["n"]
    declared = graph.run_text("MATCH (r:Resource) WHERE 'cmt' IN r.ontologies RETURN count(r) AS n")[0]["n"]
    assert with_vectors == declared > 0


@pytest.mark.parametrize("args", [["embed"], ["bench", "om", "nonsense", "--no-llm"]])
def test_bad_arguments_are_explained(args: list[str], neo4j_settings: Neo4jSettings) -> None:
    result = runner.invoke(app, args, env=_env(neo4j_settings))
    assert result.exit_code == 1 and "error:" in result.output


def test_match_no_llm_scores_against_a_reference_and_exports_the_alignment(
        graph: Graph, neo4j_settings: Neo4jSettings, fixtures: Path, tmp_path: Path) -> None:
    from kgagents.embeddings.index import drop_vector_index, vector_indexes
    from kgagents.loaders.alignment import read_alignment
    from kgagents.metrics.oaei import equivalence_pairs, score_pairs

    for index in vector_indexes(graph):
        drop_vector_index(graph, index.name)
    d = fixtures / "matching"
    out = tmp_path / "ab.rdf"
    result = runner.invoke(app, ["match", str(d / "conf_a.ttl"), str(d / "conf_b.ttl"), "--no-llm",
                                 "--reference", str(d / "ref_ab.rdf"), "--out", str(out)], env=_env(neo4j_settings))
    assert result.exit_code == 0, result.output
    assert "no_llm" in result.output
    found = equivalence_pairs(read_alignment(out))
    expected = score_pairs(found, equivalence_pairs(read_alignment(d / "ref_ab.rdf")))
    assert f"F1={expected.f1:.4f}" in result.output
    stored = graph.run_text("MATCH (:Resource)-[m:MATCHES]->(:Resource) RETURN count(m) AS n")[0]["n"]
    assert stored == len(found) > 0
    run = graph.run_text("MATCH (r:Run {job: 'matching'}) RETURN r.id AS id, r.f1 AS f1, r.mode AS mode, "
                         "r.threshold AS threshold, r.channels AS channels, r.prematch_seconds AS prematch")[0]
    assert run["mode"] == "no_llm" and run["f1"] == pytest.approx(expected.f1)
    # settings and timings are typed properties, not JSON text
    assert run["threshold"] == 0.9 and run["channels"] == ["syntactic", "lexical"]
    assert isinstance(run["prematch"], float)
    stats = runner.invoke(app, ["stats"], env=_env(neo4j_settings))  # an 80-column terminal
    assert stats.exit_code == 0 and run["id"] in stats.output  # in full, on one line


def test_load_kg_prints_one_table_row_per_kg(graph: Graph, neo4j_settings: Neo4jSettings, fixtures: Path) -> None:
    result = runner.invoke(app, ["load", "kg", str(fixtures / "kg" / "jape_tiny_de_en"), "--format", "jape"],
                           env=_env(neo4j_settings))
    assert result.exit_code == 0, result.output
    counts = {r["kg"]: r["n"] for r in graph.run_text("MATCH (e:Entity) RETURN e.kg AS kg, count(e) AS n")}
    rows = [line for line in result.output.splitlines() if "jape_tiny_de_en:" in line]
    assert len(rows) == 2 and "{" not in result.output
    for row in rows:
        kg, entities = row.split("│")[1].strip(), int(row.split("│")[2].strip().replace(",", ""))
        assert counts[kg] == entities
    assert "gold links: " in result.output



def test_load_non_utf8_triples_is_one_line_naming_file_and_line(graph: Graph, neo4j_settings: Neo4jSettings,
                                                                 fixtures: Path) -> None:
    bad = fixtures / "kg" / "triples_latin1.txt"
    result = runner.invoke(app, ["load", "kg", str(bad), "--format", "triples"], env=_env(neo4j_settings))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "triples_latin1.txt:2: not UTF-8" in result.output.replace("\n", "")
    assert graph.run_text("MATCH (n:Entity) RETURN count(n) AS n")[0]["n"] == 0


def test_load_tab_separated_triples_says_which_separator(graph: Graph, neo4j_settings: Neo4jSettings,
                                                         fixtures: Path) -> None:
    path = fixtures / "kg" / "triples_tabs.txt"
    result = runner.invoke(app, ["load", "kg", str(path), "--format", "triples", "--name", "pq"],
                           env=_env(neo4j_settings))
    assert result.exit_code == 0, result.output
    assert "separator: tab (detected)" in result.output
    given = runner.invoke(app, ["load", "kg", str(path), "--format", "triples", "--name", "pq", "--sep", "\\t"],
                          env=_env(neo4j_settings))
    assert given.exit_code == 0 and "separator: tab (given)" in given.output
