"""How ``kgagents report FILE`` renders a results file of the store: with the Markdown function of the runner that
wrote it (recorded as ``renderer`` by :func:`benchmarks.provenance.write_results`). Plugged into the library through
the ``kgagents.results`` entry point, so the library never imports the benchmarks."""

from __future__ import annotations

from importlib import import_module
from typing import Any


def markdown(report: dict[str, Any]) -> str | None:
    """The file's own Markdown, or None when no runner of this package recorded a renderer for it."""
    module, _, name = str(report.get("renderer") or "").partition(":")
    if not module.startswith("benchmarks.") or not name:
        return None
    target: Any = import_module(module)
    for part in name.split("."):
        target = getattr(target, part)
    text: str = target(report)
    return text
