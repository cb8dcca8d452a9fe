"""The errors a newcomer still tripped on (issue 40): each says what and where, in one line, and writes nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgagents.cli import app
from kgagents.config import Neo4jSettings
from kgagents.errors import InputFileError, ParseError
from kgagents.graph.connection import Graph
from kgagents.loaders.batched import BATCH_SIZE, wikidata_source
from kgagents.loaders.ontology_model import parse_ontology
from kgagents.loaders.triples import load_triples, parse_triples

runner = CliRunner()


def _env(settings: Neo4jSettings) -> dict[str, str]:
    return {"KGAGENTS_NEO4J_URI": settings.uri, "KGAGENTS_NEO4J_PASSWORD": settings.password.get_secret_value(),
            "COLUMNS": "200"}


@pytest.mark.parametrize("args", [["ask", "who wrote Notes?", "--no-llm"], ["kgqa", "run", "QUESTIONS", "--no-llm"]])
def test_a_misspelt_kg_is_an_error_naming_the_loaded_ones_and_records_no_run(
        graph: Graph, neo4j_settings: Neo4jSettings, fixtures: Path, args: list[str]) -> None:
    load_triples(graph, fixtures / "kg" / "triples_small.txt", kg="small")
    questions = fixtures / "kgqa" / "movies_questions.jsonl"
    args = [str(questions) if a == "QUESTIONS" else a for a in args]
    result = runner.invoke(app, [*args, "--kg", "smal"], env=_env(neo4j_settings))
    text = " ".join(result.output.split())
    assert result.exit_code == 1, text
    assert "no KG named 'smal' is loaded" in text and "the KGs loaded: small" in text
    assert graph.run_text("MATCH (r:Run) RETURN count(r) AS n")[0]["n"] == 0


def test_ask_prints_its_note_as_a_note_not_as_markup(graph: Graph, neo4j_settings: Neo4jSettings,
                                                    fixtures: Path) -> None:
    load_triples(graph, fixtures / "kg" / "triples_small.txt", kg="small")
    result = runner.invoke(app, ["ask", "what is the weather like?", "--kg", "small", "--no-llm"],
                           env=_env(neo4j_settings))
    assert result.exit_code == 0, result.output
    assert "note: no topic entity of KG 'small'" in result.output
    assert "[yellow]" not in result.output and "[/yellow]" not in result.output


def test_batch_size_help_gives_the_default_the_code_uses() -> None:
    result = runner.invoke(app, ["load", "kg", "--help"], env={"COLUMNS": "200"})
    assert f"default {BATCH_SIZE:,}" in " ".join(result.output.split())


def test_driver_log_lines_do_not_reach_the_terminal() -> None:
    """The driver logs a server that went away as warnings ("defunct connection"); the CLI says it in one line."""
    code = ("import logging, kgagents.cli; "
            "logging.getLogger('neo4j.io').warning('Failed to read from defunct connection IPv4Address(...)')")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={"PATH": "/usr/bin:/bin", "HOME": str(Path.home())})
    assert result.returncode == 0 and result.stderr == ""


def test_a_binary_file_as_wikidata_names_the_file_and_line(tmp_path: Path) -> None:
    dump = tmp_path / "dump.nt"
    dump.write_bytes(b"<http://www.wikidata.org/entity/Q1> <http://www.wikidata.org/prop/direct/P1> "
                     b"<http://www.wikidata.org/entity/Q2> .\n\x89PNG\r\n\x1a\n\x00\xff\xfe binary\n")
    with pytest.raises(ParseError, match="not UTF-8 text") as info:
        wikidata_source(dump)
    assert info.value.path == str(dump) and info.value.line == 2


def test_a_directory_given_for_a_file_is_called_a_directory(tmp_path: Path) -> None:
    for read in (parse_ontology, lambda p: parse_triples(p, kg="x", sep="|"), wikidata_source):
        with pytest.raises(InputFileError, match="is a directory; give a file"):
            read(tmp_path)


@pytest.mark.parametrize("suffix, text", [
    (".owl", '<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
             'xmlns:owl="http://www.w3.org/2002/07/owl#">\n<owl:Class rdf:about="http://x.org/A`B"/>\n</rdf:RDF>\n'),
    (".ttl", "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n\n<http://x.org/A`B> a owl:Class .\n"),
])
def test_an_iri_with_a_backtick_is_refused_with_its_line(tmp_path: Path, suffix: str, text: str) -> None:
    path = tmp_path / f"onto{suffix}"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ParseError, match="may not contain") as info:
        parse_ontology(path)
    assert info.value.line == 3
