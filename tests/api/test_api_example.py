"""The Python API page's LangGraph example (docs/api.md), run as written against the test server, and the matching
page's result queries on its run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kgagents.config import Neo4jSettings
from kgagents.graph.connection import Graph
from kgagents.paths import REPO_ROOT

API_PAGE = REPO_ROOT / "docs" / "api.md"


def readme_blocks(language: str) -> list[str]:
    """The code blocks in ``language`` of the README and every docs page (so pages and tests cannot drift)."""
    pages = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
    return [block for page in pages for block in re.findall(rf"```{language}\n(.*?)```", page.read_text("utf-8"), re.S)]


def readme_example() -> str:
    """The first ```python block of the Python API page."""
    match = re.search(r"```python\n(.*?)```", API_PAGE.read_text(encoding="utf-8"), re.S)
    assert match is not None, f"no python block in {API_PAGE}"
    return match.group(1)


def test_readme_embedding_example_runs_and_stores_its_run(graph: Graph, neo4j_settings: Neo4jSettings,
                                                         shared_data: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("KGAGENTS_NEO4J_URI", neo4j_settings.uri)
    monkeypatch.setenv("KGAGENTS_NEO4J_PASSWORD", neo4j_settings.password.get_secret_value())
    monkeypatch.chdir(REPO_ROOT)
    code = readme_example().replace("../shared/data", str(shared_data))  # wherever the data is (KGAGENTS_DATA_DIR)
    namespace: dict[str, object] = {"__name__": "readme_example"}
    exec(compile(code, "docs/api.md", "exec"), namespace)  # noqa: S102 - our own docs
    namespace["driver"].close()  # type: ignore[attr-defined]
    printed = capsys.readouterr().out
    found = re.fullmatch(r"(\d+) matches in run (\S+)\nrun (\S+) finished: (\d+) matches\n", printed)
    assert found, printed
    n, embedded, run_id = int(found.group(1)), found.group(2), found.group(3)
    count = "MATCH (s)-[m:MATCHES {run_id: $run}]->(t) RETURN count(m) AS n"
    assert graph.run_text(count, run=embedded) == [{"n": n}] and n > 0  # the subgraph wrote its pairs
    stored = graph.run_text("MATCH (r:Run {id: $run}) OPTIONAL MATCH (s)-[m:MATCHES {run_id: $run}]->(t) "
                            "RETURN r.source AS source, r.target AS target, r.mode AS mode, r.status AS status, "
                            "count(m) AS n", run=run_id)
    assert stored == [{"source": "cmt", "target": "confof", "mode": "no_llm", "status": "finished",
                       "n": int(found.group(4))}]
    assert int(found.group(4)) == n  # the same matching, run on its own

    # the README's result queries, on this run (the latest): names for every pair although cmt and confOf have no
    # labels, and the run's settings and timings as typed properties
    pairs, runs = (next(b for b in readme_blocks("cypher") if marker in b)
                   for marker in ("MATCHES {run_id: r.id}", "r.threshold"))
    rows = graph.run_text(pairs)
    assert len(rows) == n and all(isinstance(r["source"], str) and isinstance(r["target"], str) for r in rows)
    assert not graph.run_text("MATCH (s:Resource) WHERE s.label IS NOT NULL AND 'cmt' IN s.ontologies RETURN s")
    graph.run_text("MATCH (r:Run {id: $run}) SET r.f1 = 0.5", run=run_id)  # a reference would set it
    [latest, *_] = graph.run_text(runs)
    assert latest["run"] == run_id and latest["threshold"] == 0.9 and latest["retrieve_seconds"] > 0
    assert latest["channels"] == ["syntactic", "lexical"]  # the no-LLM ablation's channels, a list, not JSON text
