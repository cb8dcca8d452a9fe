"""`kgagents compile` prints its catalogue within the terminal's width: one line per tool (a signature longer than
half the width folds), descriptions cut with an ellipsis, the whole text left to --markdown / --json."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from kgagents.tools.catalogue_view import catalogue_table
from kgagents.tools.compiler import compile_ontology


@pytest.mark.parametrize("width", [80, 120])
def test_the_catalogue_fits_the_terminal(shared_data: Path, width: int) -> None:
    catalogue = compile_ontology(shared_data / "extraction" / "text2kgbench" / "dbpedia_webnlg" / "ontologies"
                                 / "1_university_ontology.json")
    console = Console(width=width, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(catalogue_table(catalogue, width))
    lines = console.export_text().splitlines()
    assert max(len(line) for line in lines) <= width
    short = [t for t in catalogue.tools.values() if len(t.signature()) <= width // 2]
    assert short
    for tool in short:
        [line] = [line for line in lines if f"│ {tool.signature()} " in line]
        assert line.rstrip().endswith("│")
