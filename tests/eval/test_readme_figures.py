"""The README's figures are the results files' numbers, and every results file names the command that
wrote it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmarks import RESULTS_DIR as RESULTS
from benchmarks.figures import FIGURES, marked, pages, render
from kgagents.errors import KgAgentsError
from kgagents.paths import REPO_ROOT

README = REPO_ROOT / "README.md"


def test_the_readme_figures_match_the_results_files() -> None:
    current = README.read_text(encoding="utf-8")
    assert render(current, RESULTS) == current, "README figures are stale: run `kgagents bench readme`"


def test_every_defined_figure_is_in_the_readme_or_a_docs_page() -> None:
    assert sorted(name for page in pages() for name in marked(page.read_text(encoding="utf-8"))) == sorted(FIGURES)


def test_the_docs_figures_match_the_results_files() -> None:
    for page in pages()[1:]:
        current = page.read_text(encoding="utf-8")
        assert render(current, RESULTS) == current, f"{page.name} figures are stale: run `kgagents bench readme`"


def test_a_changed_results_file_makes_the_readme_stale(tmp_path: Path) -> None:
    results = tmp_path / "results"
    shutil.copytree(RESULTS, results)
    anatomy = json.loads((results / "om_anatomy_no_llm.json").read_text())
    anatomy["scores"]["recall"] += 0.001
    (results / "om_anatomy_no_llm.json").write_text(json.dumps(anatomy))
    current = README.read_text(encoding="utf-8")
    assert render(current, results) != current


def test_an_unknown_figure_name_is_an_error() -> None:
    with pytest.raises(KgAgentsError, match="does not define"):
        render("<!-- figure:nope -->x<!-- /figure:nope -->", RESULTS)


def test_every_results_file_records_the_command_that_wrote_it() -> None:
    files = sorted(p for p in RESULTS.iterdir() if p.is_file())
    reports = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in files if p.suffix == ".json"}
    companions = {Path(name).name for report in reports.values()
                  for name in [*report.get("files", []), report.get("alignment_file")] if name}
    for name, report in reports.items():
        assert str(report.get("command", "")).strip(), f"{name} records no command"
    for path in files:
        if path.suffix != ".json" and path.name not in companions:
            assert "Command: `" in path.read_text(encoding="utf-8"), f"{path.name} records no command"
