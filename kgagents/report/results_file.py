"""A results file (``benchmarks/results/…/*.json``, or one a ``bench`` command wrote elsewhere) as Markdown.

Why here: the store keeps no Markdown twins; ``kgagents report FILE`` renders any file — with its runner's own table
when the benchmarks are installed (the ``kgagents.results`` entry point), else a generic summary of what it
recorded: the command, the commit, the model, the machine and its numbers.
"""

from __future__ import annotations

import json
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from kgagents.errors import InputFileError

#: most numbers the generic summary lists
MAX_ROWS = 60


def read_results_file(path: Path) -> dict[str, Any]:
    """A results file's content; one :class:`InputFileError` when it is not one."""
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputFileError(f"{path}: not a results file (JSON): {exc}") from None
    if not isinstance(report, dict) or "command" not in report:
        raise InputFileError(f"{path}: not a results file: it records no command (a `kgagents bench` command "
                             "writes them)")
    return report


def results_markdown(path: Path) -> str:
    """The file rendered: its runner's Markdown when a plugin renders it, else the generic summary."""
    report = read_results_file(path)
    for plugin in entry_points(group="kgagents.results"):
        text = plugin.load()(report)
        if text:
            return str(text)
    return generic_markdown(report)


def generic_markdown(report: dict[str, Any]) -> str:
    """What any results file records, as Markdown: provenance first, then its numbers (flattened keys)."""
    machine = report.get("machine") or {}
    lines = [f"Command: `{report['command']}`", "",
             f"Commit {report.get('git_commit') or 'unknown'}, written {report.get('written_at') or 'unknown'}, "
             f"model {report.get('model') or 'none'}, load average {machine.get('load_average', 'unknown')}.", "",
             "| number | value |", "|---|---|"]
    rows = list(_numbers(report))
    lines += [f"| {key} | {value} |" for key, value in rows[:MAX_ROWS]]
    if len(rows) > MAX_ROWS:
        lines.append(f"| … | {len(rows) - MAX_ROWS} more in the file |")
    return "\n".join(lines) + "\n"


def _numbers(value: Any, prefix: str = "") -> Any:
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, (int, float)):
        yield prefix, f"{value:.4g}" if isinstance(value, float) else str(value)
    elif isinstance(value, dict) and prefix.count(".") < 2:
        for key, inner in value.items():
            if key not in ("machine", "llm_server", "settings", "agent_settings", "anchors"):
                yield from _numbers(inner, f"{prefix}.{key}" if prefix else str(key))
