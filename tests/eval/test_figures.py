"""The figures of the README and docs/ are the results files' numbers, the store's index is current, every results
file names the command that wrote it, and every default a settings module says a run chose is what that run used."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmarks import RESULTS_DIR as RESULTS
from benchmarks.figures import FIGURES, marked, pages, render
from benchmarks.store import index, results_files
from kgagents.errors import KgAgentsError
from kgagents.settings import JOBS, chosen_by

PAGES = pages()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_figures_of_each_page_match_the_results_files(page: Path) -> None:
    current = page.read_text(encoding="utf-8")
    assert render(current, RESULTS) == current, f"{page.name}: figures are stale; run `kgagents bench docs`"


def test_every_defined_figure_is_on_a_page_once() -> None:
    names = [name for page in PAGES for name in marked(page.read_text(encoding="utf-8"))]
    assert sorted(set(names)) == sorted(FIGURES)
    assert len(names) == len(set(names)) + names.count("headline") - 1, "a figure is on two pages"


def test_the_store_index_is_current() -> None:
    assert (RESULTS / "README.md").read_text(encoding="utf-8") == index(RESULTS) + "\n", \
        "benchmarks/results/README.md is stale; run `kgagents bench docs`"


def test_a_changed_results_file_makes_the_pages_stale(tmp_path: Path) -> None:
    results = tmp_path / "results"
    shutil.copytree(RESULTS, results)
    path = results / "om" / "anatomy" / "no_llm.json"
    anatomy = json.loads(path.read_text())
    anatomy["scores"]["f1"] += 0.01
    path.write_text(json.dumps(anatomy))
    assert any(render(page.read_text(encoding="utf-8"), results) != page.read_text(encoding="utf-8")
               for page in PAGES)


def test_an_unknown_figure_name_is_an_error() -> None:
    with pytest.raises(KgAgentsError, match="does not define"):
        render("<!-- figure:nope -->x<!-- /figure:nope -->", RESULTS)


def test_every_results_file_records_the_command_that_wrote_it() -> None:
    files = list(results_files(RESULTS))
    assert files, "the results store is empty"
    for path in files:
        report = json.loads(path.read_text(encoding="utf-8"))
        assert str(report.get("command", "")).strip().startswith("kgagents"), f"{path} records no command"
    for path in RESULTS.rglob("*"):
        if path.is_file() and path.suffix not in (".json", ".rdf") and path.name != "README.md":
            assert "Command: `" in path.read_text(encoding="utf-8"), f"{path} records no command"


def _recorded(report: dict, key: str) -> object:
    """The value of setting ``key`` the run recorded: under its settings, or what it chose (a tuning run)."""
    tables = [report.get("settings"), report.get("agent_settings"), report.get("chosen"),
              (report.get("chosen") or {}).get("weights")]
    for table in tables:
        if isinstance(table, dict) and key in table:
            return table[key]
    raise AssertionError(f"records no value of {key}")


@pytest.mark.parametrize("name", list(JOBS))
def test_a_default_a_results_file_chose_is_what_that_run_used(name: str) -> None:
    spec = JOBS[name]
    defaults = spec.settings_type().model_dump(mode="json")
    for key, results in chosen_by(spec).items():
        path = RESULTS / results
        assert path.is_file(), f"{spec.name}.{key}: CHOSEN_BY names {results}, which the store does not hold"
        report = json.loads(path.read_text(encoding="utf-8"))
        assert _recorded(report, key) == defaults[key], \
            f"{spec.name}.{key}: the default is {defaults[key]!r} but {results} ran with {_recorded(report, key)!r}"


def test_every_figure_names_the_command_that_wrote_its_numbers() -> None:
    for name in FIGURES:
        rendered = render(f"<!-- figure:{name} -->\n\n<!-- /figure:{name} -->", RESULTS)
        assert "`kgagents " in rendered, f"figure {name} names no command"
