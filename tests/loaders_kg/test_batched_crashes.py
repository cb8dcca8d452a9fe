"""Batched-load bookkeeping under concurrency and crashes: a live load is never judged dead, a dead one's partial
data is refused by every reader until `kgagents load repair` removes it, the record's counts are the true ones, and
an interrupted rollback says what it left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from neo4j.exceptions import ServiceUnavailable
from typer.testing import CliRunner

from kgagents.cli import app
from kgagents.config import Neo4jSettings
from kgagents.errors import UnfinishedLoadError, UnknownKGError
from kgagents.graph.connection import Graph
from kgagents.jobs.kgqa import ask
from kgagents.loaders import batched, unfinished
from kgagents.loaders.batched import LoadAbandonedError, LoadRolledBack, load_batched, triples_source, wikidata_source
from kgagents.loaders.unfinished import repair_loads, unfinished_loads
from kgagents.servers.neo4j import LocalNeo4j
from tests.graph.test_server_private import _instance_env
from tests.loaders_kg.test_batched import WD_LINES

runner = CliRunner()

#: a batched load in a child process; after its record is committed it says "begun" and waits for a line on
#: stdin (the moment another load's check used to take it for dead), then prints "batch" per committed batch
CHILD = """
import sys
from pathlib import Path
from kgagents.graph.connection import Graph
from kgagents.loaders.batched import load_batched, triples_source

class Paused(Graph):
    def run(self, name, **params):
        rows = super().run(name, **params)
        if name == "batched/begin" and sys.argv[3] == "pause":
            print("begun", flush=True)
            sys.stdin.readline()
        return rows

with Paused() as graph:
    result = load_batched(graph, triples_source(Path(sys.argv[1]), kg=sys.argv[2]), batch_size=50,
                          progress=lambda n: print("batch", flush=True))
print("cleaned", result.cleaned, flush=True)
"""


def _env(settings: Neo4jSettings) -> dict[str, str]:
    return {**os.environ, "KGAGENTS_NEO4J_URI": settings.uri,
            "KGAGENTS_NEO4J_PASSWORD": settings.password.get_secret_value()}


def _triples(path: Path, n: int) -> Path:
    path.write_text("".join(f"e{i}|r{i % 7}|e{(i * 7919) % (n // 4)}\n" for i in range(n)), encoding="utf-8")
    return path


def _child(settings: Neo4jSettings, path: Path, kg: str, pause: bool) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", CHILD, str(path), kg, "pause" if pause else "go"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=_env(settings), text=True)


def _status(graph: Graph) -> dict[str, str]:
    return {r["target"]: r["status"] for r in graph.run_text("MATCH (l:Load) RETURN l.target AS target, "
                                                            "l.status AS status")}


def test_a_load_checking_while_another_has_just_begun_leaves_it_alone(graph: Graph, neo4j_settings: Neo4jSettings,
                                                                      tmp_path: Path) -> None:
    """The race of two concurrent loads: B checks for dead loads right after A committed its record. A's guard is
    open before that, so B sees A alive, removes nothing, and both complete."""
    first = _child(neo4j_settings, _triples(tmp_path / "a.txt", 2_000), "first", pause=True)
    assert first.stdout is not None and first.stdin is not None
    try:
        assert first.stdout.readline().strip() == "begun"
        (seen,) = unfinished_loads(graph)
        assert seen.alive and seen.kgs == ["first"] and seen.pid == first.pid
        second = load_batched(graph, triples_source(_triples(tmp_path / "b.txt", 400), kg="second"))
        assert second.cleaned == []
        first.stdin.write("\n")
        first.stdin.flush()
        out, _ = first.communicate(timeout=300)
    finally:
        first.kill()
    assert first.returncode == 0 and "cleaned []" in out
    assert _status(graph) == {"first": "complete", "second": "complete"}


def test_two_batched_loads_at_once_both_complete(graph: Graph, neo4j_settings: Neo4jSettings, tmp_path: Path) -> None:
    loads = [subprocess.Popen([sys.executable, "-m", "kgagents.cli", "load", "kg", str(_triples(tmp_path / f"{kg}.txt",
                              4_000)), "--format", "triples", "--name", kg, "--batched", "--batch-size", "500"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=_env(neo4j_settings), text=True)
             for kg in ("one", "two")]
    outputs = [load.communicate(timeout=600)[0] for load in loads]
    assert [load.returncode for load in loads] == [0, 0], outputs
    assert not any("removed" in out for out in outputs), outputs
    assert _status(graph) == {"one": "complete", "two": "complete"}


@pytest.fixture
def killed(graph: Graph, neo4j_settings: Neo4jSettings, tmp_path: Path) -> Iterator[str]:
    """A batched load of KG 'killed' killed with SIGKILL after three committed batches."""
    child = _child(neo4j_settings, _triples(tmp_path / "big.txt", 200_000), "killed", pause=False)
    assert child.stdout is not None
    for _ in range(3):
        assert child.stdout.readline().startswith("batch")
    child.send_signal(signal.SIGKILL)
    child.wait()
    deadline = time.monotonic() + 60
    while (load := unfinished_loads(graph)[0]).alive and time.monotonic() < deadline:
        time.sleep(0.2)  # the server ends the guard once it notices the connection is gone
    assert not load.alive and load.pid == child.pid
    yield load.id


def _run(args: list[str], settings: Neo4jSettings) -> tuple[int, str]:
    result = runner.invoke(app, args, env={"KGAGENTS_NEO4J_URI": settings.uri,
                                           "KGAGENTS_NEO4J_PASSWORD": settings.password.get_secret_value(),
                                           "COLUMNS": "200"})
    return result.exit_code, " ".join(result.output.split())


def test_after_kill_9_readers_refuse_the_kg_until_repair(graph: Graph, neo4j_settings: Neo4jSettings,
                                                         killed: str) -> None:
    partial = graph.run_text("MATCH (e:Entity {kg: 'killed'}) RETURN count(e) AS n")[0]["n"]
    assert partial > 0
    code, stats = _run(["stats"], neo4j_settings)
    assert code == 0 and "warning:" in stats and "stopped before it finished" in stats
    assert f"{partial:,} entities" in stats and "kgagents load repair killed" in stats
    code, embedded = _run(["embed", "--kg", "killed"], neo4j_settings)
    assert code == 1 and "kgagents load repair killed" in embedded
    with pytest.raises(UnfinishedLoadError, match="stopped before it finished"):
        ask(graph, "killed", "what is e1 related to?")
    assert graph.run_text("MATCH (r:Run) RETURN count(r) AS n")[0]["n"] == 0  # refused before a run was recorded

    nodes = graph.run_text("MATCH (n) WHERE n.kg = 'killed' RETURN count(n) AS n")[0]["n"]  # entities, relations
    code, repaired = _run(["load", "repair", "killed"], neo4j_settings)
    assert code == 0 and f"{nodes:,} nodes" in repaired
    assert graph.run_text("MATCH (n) WHERE n.kg = 'killed' RETURN count(n) AS n")[0]["n"] == 0
    assert unfinished_loads(graph) == []
    code, stats = _run(["stats"], neo4j_settings)
    assert code == 0 and "warning" not in stats
    with pytest.raises(UnknownKGError, match="no KG named 'killed'"):
        ask(graph, "killed", "what is e1 related to?")


def test_repair_leaves_a_running_load_alone(graph: Graph, neo4j_settings: Neo4jSettings, tmp_path: Path) -> None:
    child = _child(neo4j_settings, _triples(tmp_path / "a.txt", 2_000), "running", pause=True)
    assert child.stdout is not None and child.stdin is not None
    try:
        assert child.stdout.readline().strip() == "begun"
        assert repair_loads(graph) == []
        code, out = _run(["load", "repair"], neo4j_settings)
        assert code == 0 and "still running, left alone" in out
        with pytest.raises(UnfinishedLoadError, match="being loaded right now"):
            ask(graph, "running", "what is e1 related to?")
        child.stdin.write("\n")
        child.stdin.flush()
        child.communicate(timeout=300)
    finally:
        child.kill()
    assert child.returncode == 0 and _status(graph) == {"running": "complete"}


def test_the_load_record_holds_the_true_counts(graph: Graph, fixtures: Path, tmp_path: Path) -> None:
    wd = tmp_path / "wd.nt"
    wd.write_text("\n".join(WD_LINES) + "\n", encoding="utf-8")
    for source in (triples_source(fixtures / "kg" / "triples_small.txt", kg="small"), wikidata_source(wd, kg="wd")):
        result = load_batched(graph, source, batch_size=3)
        record = graph.run_text("MATCH (l:Load {id: $id}) RETURN l.count_entities AS entities, l.count_triples AS "
                                "triples, l.count_relations AS relations, l.count_literals AS literals",
                                id=result.load_id)[0]
        stored = result.kgs[0]
        assert record == {"entities": stored.entities, "triples": stored.triples, "relations": stored.relations,
                          "literals": stored.literals}
        assert stored.entities > 0 and stored.triples > 0


def test_ctrl_c_rolls_back_and_says_so(graph: Graph, tmp_path: Path) -> None:
    def interrupt_after_two(_: int, seen: list[int] = []) -> None:  # noqa: B006 - the call count
        seen.append(1)
        if len(seen) == 2:
            raise KeyboardInterrupt

    said: list[str] = []
    with pytest.raises(LoadRolledBack, match=r"rolled back: removed the [\d,]+ nodes and [\d,]+ statements"):
        load_batched(graph, triples_source(_triples(tmp_path / "t.txt", 2_000), kg="ctrlc"), batch_size=100,
                     progress=interrupt_after_two, say=said.append)
    assert any("removing what it wrote" in line for line in said)
    assert graph.run_text("MATCH (n) WHERE n.kg = 'ctrlc' RETURN count(n) AS n")[0]["n"] == 0
    assert _status(graph) == {"ctrlc": "failed"}


def test_a_second_ctrl_c_during_the_rollback_says_what_it_left(graph: Graph, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(unfinished, "DELETE_BATCH", 50)
    monkeypatch.setattr(unfinished, "REPORT_EVERY_S", 0.0)  # a progress line after every deleting transaction

    def interrupt(_: int) -> None:
        raise KeyboardInterrupt

    def interrupt_again(line: str) -> None:
        if "so far" in line:  # the second Ctrl-C, in the middle of the removal
            raise KeyboardInterrupt

    with pytest.raises(LoadAbandonedError) as abandoned:
        load_batched(graph, triples_source(_triples(tmp_path / "t.txt", 2_000), kg="twice"), batch_size=1_000,
                     progress=interrupt, say=interrupt_again)
    message = str(abandoned.value)
    left = graph.run_text("MATCH (e:Entity {kg: 'twice'}) RETURN count(e) AS n")[0]["n"]
    assert left > 0 and f"{left:,} entities" in message and "kgagents load repair twice" in message
    (load,) = unfinished_loads(graph)
    assert not load.alive  # the guard ended with the load: every reader refuses 'twice' now
    (removed,) = repair_loads(graph, "twice")
    assert removed.nodes >= left
    assert graph.run_text("MATCH (n) WHERE n.kg = 'twice' RETURN count(n) AS n")[0]["n"] == 0


def test_a_rollback_the_server_cuts_short_says_what_is_left(graph: Graph, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The server going away fails the load and its rollback alike: the error says the KG is left for a repair."""
    def boom(_: int) -> None:
        raise RuntimeError("a batch failed")

    def server_gone(*_: object, **__: object) -> None:
        raise ServiceUnavailable("connection lost")

    monkeypatch.setattr(batched, "remove_load", server_gone)
    with pytest.raises(LoadAbandonedError, match="removing what it had written failed too") as info:
        load_batched(graph, triples_source(_triples(tmp_path / "t.txt", 2_000), kg="cut"), batch_size=500,
                     progress=boom)
    assert "kgagents load repair cut" in str(info.value)
    (load,) = unfinished_loads(graph)
    assert not load.alive and load.kgs == ["cut"]
    (removed,) = repair_loads(graph)
    assert removed.nodes > 0 and graph.run_text("MATCH (n) WHERE n.kg = 'cut' RETURN count(n) AS n")[0]["n"] == 0


def test_neo4j_start_repairs_a_dead_load(graph: Graph, local_server: LocalNeo4j | None, killed: str) -> None:
    """A server restarted after a crash leaves every load it served dead: `neo4j start` removes what they wrote."""
    if local_server is None:
        pytest.skip("KGAGENTS_TEST_USE_CONFIGURED: no local server of the session")
    result = runner.invoke(app, ["neo4j", "start"], env={**_instance_env(local_server), "COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert f"removed what the dead batched load {killed}" in " ".join(result.output.split())
    assert graph.run_text("MATCH (n) WHERE n.kg = 'killed' RETURN count(n) AS n")[0]["n"] == 0
    assert unfinished_loads(graph) == []
