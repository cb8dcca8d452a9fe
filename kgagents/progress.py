"""Stages of long runs, shown as they happen.

A runner that takes minutes (``bench ea-retrieval``, ``bench om anatomy``, ``match``) calls
``stages.stage(name, total)`` when a stage starts and ``stages.advance(n)`` as items finish; the CLI shows one
line per stage with its count and elapsed time (:class:`StageDisplay`), library callers pass nothing
(:data:`SILENT`). Runners depend only on the two-method :class:`Stages` protocol, not on rich.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn

#: the matching graph's nodes in the order they run (validate repeats until its queue is empty)
MATCHING_STAGES = ("prematch", "texts", "embed", "retrieve", "validate", "merge", "propagate", "write")


class Stages(Protocol):
    def stage(self, name: str, total: int | None = None) -> None:
        """A new stage starts (the previous one is done); ``total``: items it will report, if known."""

    def advance(self, n: int = 1) -> None:
        """``n`` more items of the current stage are done."""


class _Silent:
    def stage(self, name: str, total: int | None = None) -> None:
        return None

    def advance(self, n: int = 1) -> None:
        return None


SILENT: Stages = _Silent()


class StageDisplay:
    """Rich lines, one per stage: spinner, name, progress (bar when the total is known), elapsed time."""

    def __init__(self, console: Console, title: str) -> None:
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(), console=console)
        self.title = title
        self._task: TaskID | None = None

    def __enter__(self) -> StageDisplay:
        self.progress.start()
        self.progress.console.print(self.title)
        return self

    def __exit__(self, *exc: object) -> None:
        self._finish()
        self.progress.stop()

    def _finish(self) -> None:
        if self._task is not None:
            task = self.progress.tasks[self._task]
            done = task.completed if task.total is None else task.total
            self.progress.update(self._task, total=max(done, 1), completed=max(done, 1))
            self.progress.stop_task(self._task)

    def stage(self, name: str, total: int | None = None) -> None:
        self._finish()
        self._task = self.progress.add_task(escape(name), total=total)

    def advance(self, n: int = 1) -> None:
        if self._task is not None:
            self.progress.advance(self._task, n)


def matching_updates(stages: Stages) -> Callable[[str, dict[str, Any]], None]:
    """An ``on_update(node, values)`` callback for a matching run (called after each node) that starts the next
    stage; validation reports how many queued entities it has walked."""
    left = [0]

    def on_update(node: str, values: dict[str, Any]) -> None:
        if node in ("retrieve", "validate"):
            remaining = len(values.get("queue") or [])
            if node == "retrieve":
                stages.stage("validate", total=remaining)
            else:
                stages.advance(left[0] - remaining)
            left[0] = remaining
            if not remaining:
                stages.stage("merge")
        elif node in MATCHING_STAGES[:-1]:
            stages.stage(MATCHING_STAGES[MATCHING_STAGES.index(node) + 1])

    return on_update
