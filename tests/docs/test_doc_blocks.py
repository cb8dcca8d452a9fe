"""Every command block of the README and docs/ is checked against the code, so a page cannot show an option that
does not exist or a snippet that does not run: each ``kgagents …`` line is parsed by the CLI itself (its options,
its arguments), each ``make`` target must exist, each Cypher block is planned by the server (``EXPLAIN``), each
Python block runs against the test server, and the fast commands run."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from typer.main import get_command
from typer.testing import CliRunner

from kgagents.cli import app
from kgagents.config import Neo4jSettings
from kgagents.graph.connection import Graph
from kgagents.paths import REPO_ROOT

PAGES = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
CLI = get_command(app)
#: commands run as written (fast, no server, no data): the rest are parsed only
FAST = (("--version",), ("config", "show"), ("config", "template"), ("--help",))


def blocks(language: str) -> Iterator[tuple[str, str]]:
    """(page:line, text) of every fenced block in ``language``."""
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in re.finditer(rf"^```{language}\n(.*?)^```", text, re.S | re.M):
            yield f"{page.relative_to(REPO_ROOT)}:{text[:match.start()].count(chr(10)) + 1}", match.group(1)


def command_lines(text: str) -> Iterator[str]:
    """The shell commands of a block: continuation lines joined, comments dropped."""
    for line in text.replace("\\\n", " ").splitlines():
        words = shlex.split(line, comments=True)
        if words:
            yield " ".join(shlex.quote(w) for w in words)


def _concrete(words: list[str]) -> list[str]:
    """A documented command line as one concrete call: optional parts (``[--out FILE]``) kept without their
    brackets, the first of alternatives (``a|b``), a placeholder (``<run id>``, ``…``) as a value."""
    text = " ".join(words).replace("[", " ").replace("]", " ").replace("…", " ")
    text = re.sub(r"<[^>]*>", "VALUE", text)
    return [w.split("|")[0] if "|" in w and not w.startswith("|") else w for w in text.split()]


DOC_COMMANDS = [(where, line) for where, text in blocks("bash") for line in command_lines(text)
                if line.split()[0] in ("kgagents", ".venv/bin/kgagents", "make")]


def test_the_pages_show_commands() -> None:
    assert len([c for c in DOC_COMMANDS if "kgagents" in c[1].split()[0]]) >= 20


@pytest.mark.parametrize("where, line", DOC_COMMANDS, ids=[f"{w} {c[:60]}" for w, c in DOC_COMMANDS])
def test_a_documented_command_exists_with_the_options_it_shows(where: str, line: str) -> None:
    words = _concrete(shlex.split(line))
    if words[0] == "make":
        targets = re.findall(r"^([\w-]+):", (REPO_ROOT / "Makefile").read_text(encoding="utf-8"), re.M)
        assert all(t in targets for t in words[1:]), f"{where}: `{line}`: no such make target"
        return
    command: click.Command = CLI
    args = words[1:]
    path = []
    while isinstance(command, click.Group) and args and not args[0].startswith("-"):
        name = args.pop(0)
        assert name in command.commands, f"{where}: `{line}`: no command '{' '.join([*path, name])}'"
        path.append(name)
        command = command.commands[name]
    if "--help" in args or "--version" in args:
        return
    try:
        command.make_context(" ".join(["kgagents", *path]), list(args), resilient_parsing=False)
    except click.ClickException as exc:
        pytest.fail(f"{where}: `{line}`: {exc.format_message()}")


FAST_COMMANDS: dict[str, list[str]] = {}
for _where, _line in DOC_COMMANDS:
    if tuple(_concrete(shlex.split(_line))[1:3]) in FAST or tuple(shlex.split(_line)[1:2]) in FAST:
        FAST_COMMANDS.setdefault(_where.split(":")[0], []).append(_line)


@pytest.mark.parametrize("page", list(FAST_COMMANDS))
def test_the_fast_documented_commands_run_as_written(page: str, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # one folder per page, in page order: a file one command writes, the next reads
    for line in FAST_COMMANDS[page]:
        result = CliRunner().invoke(app, shlex.split(line)[1:])
        assert result.exit_code == 0, f"{page}: `{line}` exited {result.exit_code}: {result.output}"


CYPHER = [(where, statement.strip()) for where, text in blocks("cypher") for statement in text.split(";")
          if statement.strip()]


@pytest.mark.parametrize("where, query", CYPHER, ids=[w for w, _ in CYPHER])
def test_a_documented_query_is_valid_cypher(where: str, query: str, graph: Graph) -> None:
    graph.run_text(f"EXPLAIN {query}")  # a syntax error or an unknown function fails here


#: pages whose Python block another test runs with more checks of what it wrote
RUN_ELSEWHERE = ("docs/api.md", "docs/tools.md")  # tests/api/test_api_example.py, tests/agent_extraction/…
PYTHON = [(where, code) for where, code in blocks("python") if not where.startswith(RUN_ELSEWHERE)]


@pytest.mark.parametrize("where, code", PYTHON, ids=[w for w, _ in PYTHON])
def test_a_documented_python_block_runs(where: str, code: str, graph: Graph, neo4j_settings: Neo4jSettings,
                                        shared_data: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KGAGENTS_NEO4J_URI", neo4j_settings.uri)
    monkeypatch.setenv("KGAGENTS_NEO4J_PASSWORD", neo4j_settings.password.get_secret_value())
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "documented_block"}
    for written, path in (("../shared/data", str(shared_data)), ("benchmarks/data/", f"{REPO_ROOT}/benchmarks/data/"),
                          ("tests/fixtures/", f"{REPO_ROOT}/tests/fixtures/")):  # the block's files, from anywhere
        code = code.replace(written, path)
    exec(compile(code, where, "exec"), namespace)  # noqa: S102
    driver = namespace.get("driver")
    if driver is not None:
        driver.close()  # type: ignore[attr-defined]
