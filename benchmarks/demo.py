"""``kgagents bench demo``: the demo (:func:`kgagents.jobs.demo.run_demo`) with its summary written as a results
file (``demo_<model>.json`` / ``.md``), which the README's demo figure is rendered from."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from benchmarks.provenance import file_slug, provenance
from kgagents.jobs.demo import JobSummary


def write_summary(summaries: Sequence[JobSummary], model: str, wall_seconds: float, out: Path) -> Path:
    """``<out>/demo_<model slug>.json`` + ``.md``: the summary rows as read back from Neo4j, with the command,
    commit, machine and wall time (what the README's demo figure is rendered from)."""
    stem = f"demo_{'no-llm' if model.startswith('none') else file_slug(model)}"
    result = {**provenance(), "model": model, "wall_seconds": round(wall_seconds, 1),
              "jobs": [{"job": s.job, "data": s.data, "metric": s.metric, "score": s.score, "seconds": s.seconds,
                        "run_id": s.run_id, "model": s.model, "show_query": s.show_query} for s in summaries]}
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{stem}.json"
    path.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    lines = [f"# kgagents demo — model `{model}`", "", f"Command: `{result['command']}`", "",
             "| job | data | score | seconds | model |", "|---|---|---|---|---|"]
    lines += [f"| {j['job']} | {j['data']} | {j['metric']} {j['score']:.3f} | {j['seconds']:.1f} | {j['model']} |"
              for j in result["jobs"]]
    lines += ["", f"Wall {result['wall_seconds']} s (load average {result['machine']['load_average']}, "
              f"{result['machine']['cores']} cores).", ""]
    (out / f"{stem}.md").write_text("\n".join(lines), encoding="utf-8")
    return path
