"""Batched loads that have not finished: which are alive, which died, what readers do about them, and the repair.

A batched load (:mod:`kgagents.loaders.batched`) commits a ``(:Load {status: 'loading'})`` record, writes its KG in
committed batches, and marks the record ``complete`` at the end. While it runs, a *guard* transaction of the loading
process stays open with the load's id in its metadata; the server ends it when the process dies (kill -9, a crash,
a lost connection), so ``SHOW TRANSACTIONS`` tells a live load from a dead one without clocks or leases.

Why the order matters: a load opens its guard *before* it commits its record, and :func:`unfinished_loads` reads
the records *before* it lists the guards. So a record seen here whose load is alive has its guard listed by the
time the guards are read — a live load is never judged dead, however two loads interleave (before, a load checked
in the moment between another's record and its guard took that one for dead, marked it failed while it went on,
and reported removing data that was not written yet).

A dead load's partial data stays in the graph until something removes it: :func:`repair_loads`
(``kgagents load repair [NAME]``, also run by ``kgagents neo4j start`` and by the next batched load). Until then
every reader of that KG refuses it (:func:`refuse_unfinished`), and ``kgagents stats`` says what is there.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from kgagents.errors import UnfinishedLoadError, UnknownKGError
from kgagents.graph.connection import Graph

#: statements (then nodes) per transaction when a load's data is removed
DELETE_BATCH = 20_000
#: seconds between progress lines while a load's data is removed
REPORT_EVERY_S = 5.0
Say = Callable[[str], None]


@dataclass
class UnfinishedLoad:
    """A ``(:Load {status: 'loading'})`` record: a batched load running now (``alive``) or one that died."""

    id: str
    target: str
    kgs: list[str]
    path: str | None
    started_at: str | None
    pid: int | None
    host: str | None
    alive: bool

    @property
    def owner(self) -> str:
        where = f" on {self.host}" if self.host else ""
        return f"process {self.pid}{where}" if self.pid is not None else "a process"

    def describe(self) -> str:
        """One line: which load, of which file, started when and by whom."""
        started = f", started {self.started_at[:19].replace('T', ' ')} UTC" if self.started_at else ""
        return f"batched load {self.id} of {self.path or self.target} ({self.owner}{started})"


@dataclass
class Removed:
    """What removing one load's data deleted."""

    load: UnfinishedLoad
    statements: int
    nodes: int

    def line(self) -> str:
        return (f"removed what the dead {self.load.describe()} had written to {', '.join(self.load.kgs)}: "
                f"{self.nodes:,} nodes, {self.statements:,} statements")


def unfinished_loads(graph: Graph, kgs: Iterable[str] | None = None) -> list[UnfinishedLoad]:
    """The ``loading`` records (of loads writing one of ``kgs``, or all), each told alive or dead (see the module
    docstring for why the records are read first)."""
    rows = [row for row in graph.run("batched/incomplete") if row["status"] == "loading"]
    if not rows:
        return []
    running = set(graph.run("batched/running")[0]["ids"])
    wanted = set(kgs) if kgs is not None else None
    loads = [UnfinishedLoad(id=row["id"], target=row["target"], kgs=list(row["kgs"] or [row["target"]]),
                            path=row["path"], started_at=row["started_at"], pid=row["pid"], host=row["host"],
                            alive=row["id"] in running) for row in rows]
    return [load for load in loads if wanted is None or wanted & set(load.kgs)]


def refuse_unfinished(graph: Graph, kgs: Iterable[str]) -> None:
    """Raise :class:`UnfinishedLoadError` when a batched load of one of ``kgs`` (KG or JAPE pair names) is running or
    died half-way: what is in the graph of that KG is not what was loaded, and any answer read from it would be
    wrong."""
    kgs = list(kgs)
    for load in unfinished_loads(graph):
        kg = next((k for k in kgs if k in load.kgs or k == load.target), None)
        if kg is None:
            continue
        if load.alive:
            raise UnfinishedLoadError(f"KG '{kg}' is being loaded right now ({load.describe()}); wait until that "
                                      "load finishes")
        raise UnfinishedLoadError(
            f"KG '{kg}' holds part of a {load.describe()} that stopped before it finished (killed, or the server "
            f"went down); what is there is incomplete. Remove it with `kgagents load repair {kg}` (also done by "
            "`kgagents neo4j start`), then load the file again")


def check_readable(graph: Graph, kgs: Iterable[str]) -> None:
    """What a job does before it reads KGs: each has entities (:class:`UnknownKGError`, naming the KGs loaded,
    when not — a misspelt name), and no batched load of it is unfinished (:func:`refuse_unfinished`)."""
    kgs = list(kgs)
    refuse_unfinished(graph, kgs)  # first: a load that has begun may have written no entity yet
    for kg in kgs:
        if not graph.run("kg/has_entities", kg=kg)[0]["found"]:
            known = [row["name"] for row in graph.run("kg/names")]
            listed = ", ".join(known[:20]) + (f" … ({len(known)} in all)" if len(known) > 20 else "")
            raise UnknownKGError(f"no KG named '{kg}' is loaded (no entity has kg '{kg}'); "
                                 + (f"the KGs loaded: {listed}" if known else "no KG is loaded (`kgagents load kg`)"))


def remove_load(graph: Graph, load_id: str, kgs: Iterable[str], error: str, say: Say | None = None) -> tuple[int, int]:
    """Delete what load ``load_id`` created in ``kgs`` (statements first, then nodes, :data:`DELETE_BATCH` per
    transaction) and mark its record failed with ``error``; returns (statements, nodes) deleted. ``say`` hears the
    progress every :data:`REPORT_EVERY_S` seconds."""
    started = reported = time.monotonic()
    counts = {"batched/delete_relationships": 0, "batched/delete_nodes": 0}
    for kg in kgs:
        for query in counts:
            while deleted := graph.run(query, kg=kg, load=load_id, limit=DELETE_BATCH)[0]["deleted"]:
                counts[query] += deleted
                if say is not None and time.monotonic() - reported >= REPORT_EVERY_S:
                    reported = time.monotonic()
                    say(f"removing what load {load_id} wrote: {counts['batched/delete_relationships']:,} statements"
                        f", {counts['batched/delete_nodes']:,} nodes so far ({reported - started:.0f} s)")
    graph.run("batched/mark_failed", id=load_id, error=error[:1000])
    return counts["batched/delete_relationships"], counts["batched/delete_nodes"]


def left_behind(graph: Graph, load_id: str, kgs: Iterable[str]) -> dict[str, int]:
    """How many entities and catalogue relations load ``load_id`` created that are still in the graph (their
    statements hang off them)."""
    total = {"entities": 0, "relations": 0}
    for kg in kgs:
        row = graph.run("batched/written", kg=kg, load=load_id)[0]
        total = {k: total[k] + row[k] for k in total}
    return total


def repair_loads(graph: Graph, name: str | None = None, say: Say | None = None) -> list[Removed]:
    """Remove what every dead batched load (of KG or pair ``name``, or all) wrote, and mark it failed; loads that
    are still running are left alone. Returns what was removed, load by load."""
    removed = []
    for load in unfinished_loads(graph):
        if load.alive or (name is not None and name != load.target and name not in load.kgs):
            continue
        if say is not None:
            say(f"removing what the dead {load.describe()} wrote…")
        statements, nodes = remove_load(graph, load.id, load.kgs, f"the loading {load.owner} stopped before it "
                                        "finished; removed by a repair", say)
        removed.append(Removed(load, statements, nodes))
    return removed
