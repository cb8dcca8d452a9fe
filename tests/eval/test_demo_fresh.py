"""The demo's figure is recomputed: the no-LLM demo runs again on the test server and must give exactly the scores
its results file (and so the README's figure) shows — the figure cannot drift from what the code does."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import RESULTS_DIR
from kgagents.graph.connection import Graph
from kgagents.jobs.demo import run_demo

RECORDED = RESULTS_DIR / "demo" / "slices" / "no-llm.json"


def test_the_no_llm_demo_gives_the_scores_its_figure_shows(graph: Graph, shared_data: Path, tmp_path: Path) -> None:
    recorded = {j["job"]: (j["data"], j["metric"], j["score"]) for j in json.loads(RECORDED.read_text())["jobs"]}
    fresh = {s.job: (s.data, s.metric, s.score) for s in run_demo(graph, None, shared_data, tmp_path)}
    assert fresh == recorded, ("the demo's scores changed: run `kgagents bench demo --no-llm --record` and "
                               "`kgagents bench docs`, and say why in the commit")
