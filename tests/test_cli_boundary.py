"""The CLI's error boundary and its checks before the first write (issue: hardening round 2).

Every case fails before anything is written: option values are refused by the parser, and output paths and input
files are checked before the job connects, so most of these need no server at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from neo4j.exceptions import ServiceUnavailable
from typer.testing import CliRunner

from kgagents.cli import app
from kgagents.cli.common import console, guarded
from kgagents.config import Neo4jSettings
from kgagents.graph.connection import Graph
from kgagents.graph.runs import RunStore

runner = CliRunner()
NOWHERE = {"KGAGENTS_NEO4J_URI": "bolt://127.0.0.1:1"}  # a command that reaches the database fails differently


def _refused(args: list[str], *expected: str) -> str:
    result = runner.invoke(app, args, env=NOWHERE)
    text = " ".join(result.output.split())
    assert result.exit_code != 0, text
    assert "Traceback" not in result.output and "Cannot reach Neo4j" not in text, text
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    for piece in expected:
        assert piece in text, text
    return text


@pytest.mark.parametrize("args", [
    ["kgqa", "run", "q.jsonl", "--kg", "x", "--sample", "-3"],
    ["kgqa", "run", "q.jsonl", "--kg", "x", "--sample", "0"],
    ["kgqa", "run", "q.jsonl", "--kg", "x", "--workers", "0"],
    ["align", "pair", "--retrieval-run", "r", "--sample", "-1"],
    ["serve-tools", "t.ttl", "--http", "99999"],
])
def test_out_of_range_options_are_usage_errors(args: list[str]) -> None:
    _refused(args, "Invalid value")


def test_an_output_in_a_missing_folder_is_refused_before_matching(fixtures: Path) -> None:
    d = fixtures / "matching"
    _refused(["match", str(d / "conf_a.ttl"), str(d / "conf_b.ttl"), "--no-llm", "--out", "/nonexistent/x.rdf"],
             "--out /nonexistent/x.rdf", "does not exist")


def test_a_bad_reference_is_refused_before_matching(fixtures: Path, tmp_path: Path) -> None:
    bad = tmp_path / "ref.rdf"
    bad.write_text("<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'><Alignment>", encoding="utf-8")
    d = fixtures / "matching"
    _refused(["match", str(d / "conf_a.ttl"), str(d / "conf_b.ttl"), "--no-llm", "--reference", str(bad)],
             "ref.rdf")


def test_extract_refuses_a_turtle_path_it_cannot_write(fixtures: Path) -> None:
    _refused(["extract", "--ontology", "o.ttl", "--text", "x", "--turtle", "/nonexistent/x.ttl"],
             "--turtle /nonexistent/x.ttl")


def test_a_directory_where_a_file_is_expected(tmp_path: Path) -> None:
    _refused(["ea", "export", "run-1", "--pairs", str(tmp_path)], "is a directory")
    _refused(["compile", "o.ttl", "--json", str(tmp_path)], "is a directory")


def test_report_refuses_an_output_that_is_not_a_png() -> None:
    _refused(["report", "run-1", "--out", "x.owl"], ".png")


def test_a_lost_server_is_one_line() -> None:
    @guarded
    def command() -> None:
        raise ServiceUnavailable("Connection to 127.0.0.1:7687 closed")

    with pytest.raises(typer.Exit) as exit_:
        command()
    assert exit_.value.exit_code == 1


def test_a_bug_is_one_line_that_says_so(capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception no input explains (here a TypeError) is a bug: one line naming it, exit 2, no traceback."""
    @guarded
    def command() -> None:
        raise TypeError("unsupported format string passed to NoneType.__format__")

    monkeypatch.delenv("KGAGENTS_DEBUG", raising=False)
    with pytest.raises(typer.Exit) as exit_:
        command()
    assert exit_.value.exit_code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "TypeError: unsupported format string" in err and "KGAGENTS_DEBUG=1" in err
    assert "Traceback" not in err
    monkeypatch.setenv("KGAGENTS_DEBUG", "1")
    with pytest.raises(TypeError):
        command()


def test_a_failed_run_shows_as_failed_in_stats(graph: Graph, neo4j_settings: Neo4jSettings,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(console, "width", 250)  # a wide terminal: the test reads cells, not the layout
    store = RunStore(graph)
    with pytest.raises(RuntimeError), store.running("kgqa", run_id="died", mode="no_llm"):
        raise RuntimeError("out of memory")
    store.finish(store.start("matching", run_id="fine", mode="no_llm"), scores={"f1": 0.5}, metric="f1")
    result = runner.invoke(app, ["stats"], env={"KGAGENTS_NEO4J_URI": neo4j_settings.uri,
                                                "KGAGENTS_NEO4J_PASSWORD": neo4j_settings.password.get_secret_value()})
    text = " ".join(result.output.split())
    assert result.exit_code == 0, text
    assert "died" in text and "failed" in text and "RuntimeError: out of memory" in text
    assert "fine" in text and "finished" in text and "f1 0.5" in text


def test_a_killed_run_shows_as_failed_in_stats(graph: Graph, neo4j_settings: Neo4jSettings,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A process killed mid-run cannot mark its run; the reaper does, from the pid the run recorded."""
    import subprocess
    import sys

    monkeypatch.setattr(console, "width", 250)
    store = RunStore(graph)
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                           check=True)
    killed = store.start("kgqa", run_id="killed-run", mode="no_llm")
    store.update(killed, {"pid": int(child.stdout)})  # as if that (now gone) process had started it
    alive = store.start("kgqa", run_id="alive-run", mode="no_llm")  # this process: still running
    result = runner.invoke(app, ["stats"], env={"KGAGENTS_NEO4J_URI": neo4j_settings.uri,
                                                "KGAGENTS_NEO4J_PASSWORD": neo4j_settings.password.get_secret_value()})
    assert result.exit_code == 0, result.output
    dead, running = store.get(killed), store.get(alive)
    assert dead is not None and dead.status is not None and dead.status.value == "failed"
    assert dead.error is not None and "ended without finishing" in dead.error
    assert running is not None and running.status is not None and running.status.value == "running"
    store.finish(alive)


def test_a_kgqa_setting_that_does_not_exist_or_does_not_validate_is_refused_before_anything_runs(
        tmp_path: Path) -> None:
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"question": "who directed [Kismet]", "answers": ["William Dieterle"]}\n', encoding="utf-8")
    _refused(["kgqa", "run", str(questions), "--kg", "x", "--set", "nonsense=1"], "no setting 'nonsense'")
    _refused(["ask", "who directed Kismet", "--kg", "x", "--set", "ranking=best"], "ranking", "yes_no")
    _refused(["kgqa", "learn-gate", str(questions), "--kg", "x", "--set", "verify_weight=-1"], "verify_weight")


def test_none_unsets_an_optional_kgqa_setting_and_is_refused_for_a_required_one() -> None:
    from kgagents.errors import AgentSettingsError
    from kgagents.settings import resolve

    assert resolve("kgqa", sets=["length_words=none", "e5_weight=0"], env={}).settings.length_words is None
    assert resolve("kgqa", sets=["length_words=7"], env={}).settings.length_words == 7
    with pytest.raises(AgentSettingsError, match="length_penalty"):
        resolve("kgqa", sets=["length_penalty=none"], env={})
