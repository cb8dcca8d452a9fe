"""What the wheel needs of the package: its data found as package resources, the benchmarks kept out, a broken
command-group plugin unable to take the CLI down (``make wheel-check`` builds and installs the real wheel)."""

from __future__ import annotations

from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
import tomllib
import typer
from typer.testing import CliRunner

from kgagents import __version__
from kgagents.cli import add_plugins
from kgagents.config import DataSettings
from kgagents.paths import REPO_ROOT
from kgagents.servers.neo4j import POM, pinned_versions

PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_server_pom_is_package_data_inside_kgagents() -> None:
    assert Path(str(POM)).resolve().is_relative_to((REPO_ROOT / "kgagents").resolve())
    assert set(pinned_versions()) == {"neo4j", "apoc", "gds"}
    data = PYPROJECT["tool"]["setuptools"]["package-data"]
    assert Path(str(POM)).name in data["kgagents.servers"]


def test_the_wheel_ships_only_kgagents_and_names_no_benchmark_entry_point() -> None:
    assert PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"] == ["kgagents*"]
    assert "entry-points" not in PYPROJECT["project"]
    benchmarks = tomllib.loads((REPO_ROOT / "benchmarks" / "pyproject.toml").read_text(encoding="utf-8"))
    assert benchmarks["project"]["entry-points"]["kgagents.cli"] == {"bench": "benchmarks.cli:app"}


def test_the_version_has_one_source() -> None:
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "kgagents.__version__"}
    assert __version__.count(".") == 2


def test_a_plugin_that_cannot_load_is_left_out_with_a_warning() -> None:
    app = typer.Typer()

    @app.command()
    def hello() -> None:
        typer.echo("hello")

    add_plugins(app, [EntryPoint("broken", "no_such_module_kgagents:app", "kgagents.cli"),
                      EntryPoint("srv", "kgagents.cli.neo4j:app", "kgagents.cli")])
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0 and "srv" in result.stdout and "broken" not in result.stdout


def test_a_plugin_that_cannot_load_says_so_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    add_plugins(typer.Typer(), [EntryPoint("broken", "no_such_module_kgagents:app", "kgagents.cli")])
    err = capsys.readouterr().err
    assert "command group 'broken'" in err and "ModuleNotFoundError" in err


def test_the_data_folder_of_a_checkout_is_beside_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KGAGENTS_DATA_DIR", raising=False)
    monkeypatch.chdir(REPO_ROOT.parent)  # no .env here to set it
    assert DataSettings().dir == REPO_ROOT.parent / "shared" / "data"
    monkeypatch.setenv("KGAGENTS_DATA_DIR", "/some/where")
    assert DataSettings().dir == Path("/some/where")
