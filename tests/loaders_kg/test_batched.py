"""Batched loads (committed batches, all-or-nothing for the user): the same graph as the transactional load,
idempotent, and a load that fails inside a batch or is killed leaves nothing of itself behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kgagents.config import Neo4jSettings
from kgagents.errors import ValueTooLargeError
from kgagents.graph.connection import Graph
from kgagents.loaders.batched import incomplete_loads, jape_source, load_batched, triples_source, wikidata_source
from kgagents.loaders.jape import load_jape_pair
from kgagents.loaders.triples import load_triples
from kgagents.loaders.wikidata import load_wikidata_nt
from tests.loaders_kg.test_bulk import canonical_dump, wikidata_edge_cases  # noqa: F401 (a fixture)


def graph_without_loads(graph: Graph, fixtures: Path) -> list[str]:
    """The canonical dump without (:Load) records and without the batched loader's provenance properties
    (``load`` on what it created, ``loads`` on the KG): they are removed from the graph first."""
    graph.run_text("MATCH (n) WHERE n.load IS NOT NULL OR n.loads IS NOT NULL REMOVE n.load, n.loads")
    graph.run_text("MATCH ()-[r]->() WHERE r.load IS NOT NULL REMOVE r.load")
    return [line for line in canonical_dump(graph, fixtures) if not line.startswith("(['Load']")]


def _load_status(graph: Graph) -> dict[str, str]:
    return {r["id"]: r["status"] for r in graph.run_text("MATCH (l:Load) RETURN l.id AS id, l.status AS status")}


@pytest.mark.parametrize("kind", ["triples", "wikidata", "jape"])
def test_batched_equals_transactional(graph: Graph, fixtures: Path, wikidata_edge_cases: tuple[Path, Path],  # noqa: F811
                                      kind: str) -> None:
    dump, labels = wikidata_edge_cases
    transactional = {
        "triples": lambda: load_triples(graph, fixtures / "kg" / "triples_small.txt", kg="small"),
        "wikidata": lambda: load_wikidata_nt(graph, dump, kg="wd", property_labels=labels),
        "jape": lambda: load_jape_pair(graph, fixtures / "kg" / "jape_tiny_de_en"),
    }
    source = {
        "triples": lambda: triples_source(fixtures / "kg" / "triples_small.txt", kg="small"),
        "wikidata": lambda: wikidata_source(dump, kg="wd", property_labels=labels),
        "jape": lambda: jape_source(fixtures / "kg" / "jape_tiny_de_en"),
    }
    transactional[kind]()
    expected = graph_without_loads(graph, fixtures)
    graph.run("admin/wipe")
    result = load_batched(graph, source[kind](), batch_size=3)  # many batches: repeats span batches
    assert result.batches >= 2
    assert set(_load_status(graph).values()) == {"complete"} and incomplete_loads(graph) == []
    again = load_batched(graph, source[kind](), batch_size=3)
    assert again.skipped and again.kgs == [r.model_copy(update={"seconds": 0.0, "duplicate_triples": 0})
                                           for r in result.kgs]
    assert graph_without_loads(graph, fixtures) == expected


def test_another_file_into_the_same_kg_leaves_out_the_stored_statements(graph: Graph, fixtures: Path,
                                                                        tmp_path: Path) -> None:
    first = fixtures / "kg" / "triples_small.txt"
    second = tmp_path / "more.txt"
    second.write_text(first.read_text(encoding="utf-8") + "Ada|wrote|Notes\n", encoding="utf-8")
    load_triples(graph, first, kg="small")
    load_triples(graph, second, kg="small")
    expected = graph_without_loads(graph, fixtures)
    graph.run("admin/wipe")
    load_batched(graph, triples_source(first, kg="small"), batch_size=2)
    result = load_batched(graph, triples_source(second, kg="small"), batch_size=2)
    assert graph_without_loads(graph, fixtures) == expected
    assert result.kgs[0].duplicate_triples >= 4  # every line of the first file was stored already


WD_LINES = [
    '<http://www.wikidata.org/entity/Q1> <http://www.wikidata.org/prop/direct/P2> "hello"@en .',
    "<http://www.wikidata.org/entity/Q1> <http://www.wikidata.org/prop/direct/P1> <http://www.wikidata.org/entity/Q2> .",
    '<http://www.wikidata.org/entity/Q2> <http://www.wikidata.org/prop/direct/P2> "hello"@en .',
    "<http://www.wikidata.org/entity/Q2> <http://www.wikidata.org/prop/direct/P1> <http://www.wikidata.org/entity/Q3> .",
]


def test_repeated_literal_statements_across_batches_and_loads_are_stored_once(graph: Graph, fixtures: Path,
                                                                             tmp_path: Path) -> None:
    first, second = tmp_path / "first.nt", tmp_path / "second.nt"
    first.write_text("\n".join(WD_LINES + WD_LINES[:1]) + "\n", encoding="utf-8")  # Q1's literal twice
    second.write_text("\n".join(WD_LINES[2:] + ['<http://www.wikidata.org/entity/Q3> '
                                                 '<http://www.wikidata.org/prop/direct/P2> "bye" .']) + "\n",
                      encoding="utf-8")
    load_wikidata_nt(graph, first, kg="wd")
    load_wikidata_nt(graph, second, kg="wd")
    expected = graph_without_loads(graph, fixtures)
    graph.run("admin/wipe")
    result = load_batched(graph, wikidata_source(first, kg="wd"), batch_size=1)  # one line per batch
    assert result.kgs[0].literals == 2 and result.kgs[0].duplicate_triples == 1
    again = load_batched(graph, wikidata_source(second, kg="wd"), batch_size=1)  # into a KG that holds them
    assert again.kgs[0].literals == 3 and again.kgs[0].duplicate_triples == 2
    assert graph_without_loads(graph, fixtures) == expected


def test_a_failure_inside_a_later_batch_removes_what_the_load_wrote(graph: Graph, fixtures: Path,
                                                                     tmp_path: Path) -> None:
    load_triples(graph, fixtures / "kg" / "triples_small.txt", kg="small")  # something to keep
    before = graph_without_loads(graph, fixtures)
    path = tmp_path / "poisoned.txt"
    lines = [f"e{i}|r{i % 3}|e{i + 1}" for i in range(40)]
    lines[30] = "e30|r0|" + "x" * 10_000  # over Neo4j's index entry limit: refused inside batch 4's transaction
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    extra = tmp_path / "extra.txt"
    extra.write_text("Ada|wrote|Notes\n" * 3 + "\n".join(lines[:20]) + "\n", encoding="utf-8")
    for target in ("other", "small"):  # a new KG, and one that already holds statements
        batches: list[int] = []
        with pytest.raises(ValueTooLargeError):
            load_batched(graph, triples_source(path, kg=target), batch_size=10, progress=batches.append)
        assert len(batches) == 3  # three batches were committed before the failing one
        assert graph_without_loads(graph, fixtures) == before
    assert sorted(map(str, _load_status(graph).values())) == ["None", "failed", "failed"]  # transactional: none


KILLED = """
import sys
from pathlib import Path
from kgagents.graph.connection import Graph
from kgagents.loaders.batched import load_batched, triples_source
with Graph() as graph:
    load_batched(graph, triples_source(Path(sys.argv[1]), kg="killed"), batch_size=50,
                 progress=lambda n: print("batch", flush=True))
"""


def test_a_killed_load_is_removed_by_the_next_load(graph: Graph, neo4j_settings: Neo4jSettings, fixtures: Path,
                                                   tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_text("".join(f"e{i}|r{i % 7}|e{(i * 7919) % 50_000}\n" for i in range(200_000)), encoding="utf-8")
    env = {**os.environ, "KGAGENTS_NEO4J_URI": neo4j_settings.uri,
           "KGAGENTS_NEO4J_PASSWORD": neo4j_settings.password.get_secret_value()}
    child = subprocess.Popen([sys.executable, "-c", KILLED, str(big)], stdout=subprocess.PIPE, env=env, text=True)
    assert child.stdout is not None
    for _ in range(3):  # three batches committed
        assert child.stdout.readline().startswith("batch")
    child.send_signal(signal.SIGKILL)
    child.wait()
    (killed,) = incomplete_loads(graph)
    written = graph.run_text("MATCH (e:Entity {kg: 'killed'}) RETURN count(e) AS n")[0]["n"]
    assert written > 0  # the killed load left entities behind, tagged with its id ...
    assert graph.run_text("MATCH (e:Entity {kg: 'killed'}) WHERE e.load <> $id RETURN count(e) AS n",
                          id=killed)[0]["n"] == 0
    assert graph.run_text("MATCH (k:KG {name: 'killed'}) RETURN count(k) AS n")[0]["n"] == 0  # ... but no KG node
    untraceable = graph.run_text(  # readers skip a statement of an incomplete load by its id or an end node's
        "MATCH (a {kg: 'killed'})-[r]->(b) WHERE NOT $id IN [r.load, a.load, b.load] RETURN count(r) AS n", id=killed)
    assert untraceable[0]["n"] == 0
    assert graph.run_text("MATCH (a {kg: 'killed'})-[r]->() RETURN count(r) AS n")[0]["n"] > 0
    result = load_batched(graph, triples_source(fixtures / "kg" / "triples_small.txt", kg="small"))
    assert result.cleaned == [killed]  # the next load found it dead (no guard transaction) and removed it
    assert graph.run_text("MATCH (n) WHERE n.kg = 'killed' RETURN count(n) AS n")[0]["n"] == 0
    assert _load_status(graph)[killed] == "failed" and incomplete_loads(graph) == [killed]


def test_a_running_load_is_not_taken_for_dead(graph: Graph, neo4j_settings: Neo4jSettings, fixtures: Path,
                                              tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_text("".join(f"e{i}|r{i % 7}|e{i + 1}\n" for i in range(100_000)), encoding="utf-8")
    env = {**os.environ, "KGAGENTS_NEO4J_URI": neo4j_settings.uri,
           "KGAGENTS_NEO4J_PASSWORD": neo4j_settings.password.get_secret_value()}
    child = subprocess.Popen([sys.executable, "-c", KILLED, str(big)], stdout=subprocess.PIPE, env=env, text=True)
    assert child.stdout is not None
    try:
        assert child.stdout.readline().startswith("batch")
        result = load_batched(graph, triples_source(fixtures / "kg" / "triples_small.txt", kg="small"))
        assert result.cleaned == []  # the other load is alive: its batches stay
        assert graph.run_text("MATCH (e:Entity {kg: 'killed'}) RETURN count(e) AS n")[0]["n"] > 0
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
