"""``kgagents bench demo``: the demo (:func:`kgagents.jobs.demo.run_demo`) with its summary written as a results
file (``demo/slices/<model>.json``), which the demo figure is rendered from."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from benchmarks.provenance import file_slug, write_results
from kgagents.jobs.demo import JobSummary


def write_summary(summaries: Sequence[JobSummary], model: str, wall_seconds: float, out: Path) -> Path:
    """``<out>/demo/slices/<model slug>.json``: the summary rows as read back from Neo4j, with the command, commit,
    machine and wall time (what the demo figure is rendered from)."""
    name = f"demo/slices/{'no-llm' if model.startswith('none') else file_slug(model)}"
    result = {"model": model, "wall_seconds": round(wall_seconds, 1),
              "jobs": [{"job": s.job, "data": s.data, "metric": s.metric, "score": s.score, "seconds": s.seconds,
                        "run_id": s.run_id, "model": s.model, "show_query": s.show_query} for s in summaries]}
    return write_results(out, name, result)[0]
