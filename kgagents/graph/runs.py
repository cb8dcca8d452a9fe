"""The run store: every job's ``(:Run)`` node is written here, and only here.

Why one writer: a Neo4j user asks "what ran, with which model, did it finish, how well did it do" with one query
over every job (``MATCH (r:Run) RETURN r.job, r.status, r.metric, r.score ORDER BY r.started_at DESC``). That works
only if every job writes the same shape: ``status`` (``running`` → ``finished`` | ``failed`` with ``error``),
``started_at`` / ``finished_at`` as DateTime, ``seconds``, ``model``, ``mode``, the headline score under
``metric`` / ``score`` plus every score under its own name, and job-specific properties beside them (typed, see
:mod:`kgagents.graph.properties`).

A job calls :meth:`RunStore.start` before its first write and :meth:`RunStore.finish` or :meth:`RunStore.fail` at the
end; :meth:`RunStore.running` does both around a block, so a job that raises (or is interrupted) leaves a run that
says ``failed`` rather than one that looks finished. A process that is killed cannot say so: every run records the
``host`` and ``pid`` that started it, and :meth:`RunStore.reap` (called when a run starts and by ``kgagents stats``
and ``report``) marks ``failed`` the runs of this host whose process is gone. Jobs also write their own result
nodes (matches, traces, …) under the run id.
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict

from kgagents.graph.connection import Graph
from kgagents.graph.properties import as_properties

#: the properties every run has; everything else on a (:Run) node is job-specific (settings, scores, counts)
CORE = ("id", "job", "status", "model", "mode", "started_at", "finished_at", "seconds", "error", "metric", "score")


def new_run_id(job: str) -> str:
    """A fresh run id for ``job``: ``<job>-<UTC time>-<random>``; the time sorts runs, the suffix keeps two runs
    started in the same second apart."""
    return f"{job}-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{uuid.uuid4().hex[:6]}"


class RunStatus(str, Enum):
    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"


class Run(BaseModel):
    """One ``(:Run)`` node as read back: the core fields every job has, and the rest in ``properties``."""

    model_config = ConfigDict(frozen=True)

    id: str
    job: str | None = None
    status: RunStatus | None = None  # None: a node written before the run store existed
    model: str | None = None
    mode: str | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    seconds: float | None = None
    error: str | None = None
    metric: str | None = None
    score: float | None = None
    properties: dict[str, Any] = {}

    @classmethod
    def from_node(cls, props: Mapping[str, Any]) -> Run:
        values = {k: _native(v) for k, v in props.items()}
        core = {k: values[k] for k in CORE if k in values}
        return cls(**core, properties={k: v for k, v in values.items() if k not in CORE})

    def get(self, name: str, default: Any = None) -> Any:
        """A core field or a job-specific property by name (``run.get('f1')``)."""
        if name in CORE:
            return getattr(self, name)
        return self.properties.get(name, default)


def _native(value: Any) -> Any:
    """Neo4j temporal values as Python datetimes; everything else as it is."""
    to_native = getattr(value, "to_native", None)
    return to_native() if callable(to_native) else value


def _alive(pid: Any) -> bool:
    """Whether process ``pid`` exists on this machine (a pid that is not an int is treated as gone)."""
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    return True


def error_text(error: BaseException | str) -> str:
    """What a failed run records: the exception's type and first line (a traceback belongs in logs, not the graph)."""
    if isinstance(error, str):
        return error
    message = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


class RunStore:
    """Reads and writes ``(:Run)`` nodes in one database (see the module docstring)."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph

    def start(self, job: str, *, run_id: str | None = None, model: str | None = None, mode: str | None = None,
              properties: Mapping[str, Any] | None = None) -> str:
        """Mark run ``run_id`` (default: a new id) ``running`` and return its id. Starting an existing run again
        (a resume) keeps its first ``started_at``."""
        self.reap()
        run_id = run_id or new_run_id(job)
        self.graph.run("runs/start", run_id=run_id, job=job, model=model, mode=mode,
                       props=as_properties({**(properties or {}), "host": socket.gethostname(), "pid": os.getpid()}))
        return run_id

    def reap(self) -> list[str]:
        """Mark ``failed`` every run still ``running`` whose process, on this host, no longer exists (killed, or
        the machine restarted); returns their ids. Runs of other hosts are left alone: their processes cannot be
        checked from here."""
        dead = [r["id"] for r in self.graph.run("runs/running_here", host=socket.gethostname())
                if not _alive(r["pid"])]
        for run_id in dead:
            self.fail(run_id, "the process running it ended without finishing (killed or crashed)")
        return dead

    def update(self, run_id: str, properties: Mapping[str, Any]) -> None:
        """Add properties to a run without changing its status."""
        self.graph.run("runs/update", run_id=run_id, props=as_properties(properties))

    def finish(self, run_id: str, *, scores: Mapping[str, float | None] | None = None, metric: str | None = None,
               properties: Mapping[str, Any] | None = None) -> None:
        """Mark the run ``finished`` with its ``scores`` (each under its own name; ``metric`` names the headline
        one, copied to ``score``) and final ``properties``."""
        scores = {k: v for k, v in (scores or {}).items() if v is not None}
        if metric is not None and metric not in scores:
            metric = None
        self.graph.run("runs/finish", run_id=run_id, metric=metric, score=scores.get(metric) if metric else None,
                       props=as_properties({**(properties or {}), **scores}))

    def fail(self, run_id: str, error: BaseException | str, *, job: str | None = None) -> None:
        """Mark the run ``failed`` with ``error`` (its type and first line)."""
        self.graph.run("runs/fail", run_id=run_id, error=error_text(error), job=job)

    @contextmanager
    def running(self, job: str, *, run_id: str | None = None, model: str | None = None, mode: str | None = None,
                properties: Mapping[str, Any] | None = None) -> Iterator[str]:
        """Start a run, yield its id, and mark it ``failed`` if the block raises (KeyboardInterrupt included).
        The block calls :meth:`finish` itself, with the scores it computed."""
        run_id = self.start(job, run_id=run_id, model=model, mode=mode, properties=properties)
        try:
            yield run_id
        except BaseException as exc:
            self._fail_quietly(run_id, exc, job)
            raise

    def _fail_quietly(self, run_id: str, exc: BaseException, job: str) -> None:
        """Record the failure if the database still answers; the original error is what the user must see."""
        try:
            self.fail(run_id, exc, job=job)
        except Exception:  # noqa: BLE001 - e.g. the server went away: the job's own error is re-raised
            pass

    def get(self, run_id: str) -> Run | None:
        """The run with this id (or the one run whose id starts with it), else None."""
        rows = self.graph.run("runs/get", run_id=run_id)
        exact = [r for r in rows if r["run"]["id"] == run_id]
        rows = exact or rows
        return Run.from_node(rows[0]["run"]) if len(rows) == 1 else None

    def matching(self, prefix: str) -> list[Run]:
        """Runs whose id starts with ``prefix`` (at most five)."""
        return [Run.from_node(r["run"]) for r in self.graph.run("runs/get", run_id=prefix)]

    def latest(self, limit: int = 10, job: str | None = None) -> list[Run]:
        """The newest runs first (of ``job`` when given)."""
        return [Run.from_node(r["run"]) for r in self.graph.run("runs/latest", limit=limit, job=job)]
