"""The ontology-to-tools page's Python example (docs/tools.md), run as written against the test server (no model: the
given triples go through the tools)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kgagents.config import Neo4jSettings
from kgagents.graph.connection import Graph
from kgagents.graph.runs import RunStore
from kgagents.paths import REPO_ROOT

PAGE = REPO_ROOT / "docs" / "tools.md"


def test_the_docs_extraction_example_runs(graph: Graph, neo4j_settings: Neo4jSettings, shared_data: Path,
                                        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    match = re.search(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    assert match is not None, f"no python block in {PAGE}"
    monkeypatch.setenv("KGAGENTS_NEO4J_URI", neo4j_settings.uri)
    monkeypatch.setenv("KGAGENTS_NEO4J_PASSWORD", neo4j_settings.password.get_secret_value())
    monkeypatch.chdir(REPO_ROOT)
    code = match.group(1).replace("../shared/data", str(shared_data))  # wherever the data is (KGAGENTS_DATA_DIR)
    exec(compile(code, "docs/tools.md", "exec"), {"__name__": "docs_extraction"})  # noqa: S102
    printed = capsys.readouterr().out
    assert "('AWH Engineering College', 'state', 'Kerala')" in printed
    assert "('add_academicStaffSize', 'datatype_violation')" in printed and "rdfs:label" in printed
    [run] = RunStore(graph).latest(job="extraction")
    assert run.id in printed and run.status.value == "finished"
