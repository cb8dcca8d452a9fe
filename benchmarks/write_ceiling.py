"""The server's own ceiling for the batched loader's cheapest write, measured on this machine.

Why: the batched loader (``load kg --batched``) spends most of its time in the server's commit path. How fast
can that path go here at all? This runs the loader's own statement query (``batched/create_triples``: ``UNWIND``
groups of node-id pairs, ``CREATE`` with a dynamic type and the graph model's two relationship properties, ``rel``
and ``name``) on bare
relationships between nodes that already exist — no entity, literal, index or dedup work — with 1, 2 and 3
writers at once, ``batch`` relationships per transaction like the loader. Each variant runs twice on fresh nodes
(the first also warms the server's JIT); the warm run is the ceiling. Then the same without the two properties,
to say what the graph model's relationship properties cost. The probe's nodes (label ``KgagentsWriteProbe``) are
removed afterwards.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.generate_kg import power_law
from benchmarks.load import server_cpu
from benchmarks.provenance import write_results
from kgagents.config import LocalServerSettings, Neo4jSettings
from kgagents.cypher import cypher
from kgagents.errors import KgAgentsError
from kgagents.graph.connection import Graph
from kgagents.servers.neo4j import LocalNeo4j

LABEL = "KgagentsWriteProbe"
_NODES = f"UNWIND range($lo, $hi - 1) AS i CREATE (n:{LABEL} {{probe: $probe, i: i}}) RETURN collect(id(n)) AS ids"
#: removing the probe: its relationships first, a bounded number per transaction (a hub node holds tens of
#: thousands, too many for one transaction's memory with DETACH DELETE), then its nodes
_DELETE = (f"MATCH (:{LABEL})-[r]->() WITH r LIMIT 20000 DELETE r RETURN count(*) AS deleted",
           f"MATCH (n:{LABEL}) WITH n LIMIT 20000 DELETE n RETURN count(*) AS deleted")


def queries() -> dict[str, str]:
    """The loader's own statement query (``batched/create_triples``, ``$load`` null as in a fresh KG: ``rel`` and
    ``name`` on each relationship), and the same with its property map cut out."""
    loader = cypher("batched/create_triples")
    bare = re.sub(r"\s*\{[^{}]*\}(?=\]->)", "", loader)
    if bare == loader:
        raise KgAgentsError("batched/create_triples no longer has a relationship property map to cut out")
    return {"rel + name": loader, "no properties": bare}


def _batches(nodes: list[int], relationships: int, batch: int, types: int,
             rng: np.random.Generator) -> list[list[dict[str, Any]]]:
    """Transactions of ``batch`` relationships grouped by type; heads, tails and types follow the generated KGs'
    power law (:func:`benchmarks.generate_kg.power_law`, skew 1.0), so there are hubs as in the loader's input."""
    ids = np.array(nodes, dtype=np.int64)
    out = []
    for lo in range(0, relationships, batch):
        size = min(batch, relationships - lo)
        heads, tails = (ids[power_law(rng, len(ids), size, 1.0)] for _ in range(2))
        kinds = power_law(rng, types, size, 1.0)
        out.append([{"type": f"P{t}", "rel": f"http://www.wikidata.org/prop/direct/P{t}", "name": f"property {t}",
                     "heads": heads[kinds == t].tolist(), "tails": tails[kinds == t].tolist()}
                    for t in np.unique(kinds).tolist()])
    return out


def run(*, nodes: int = 200_000, relationships: int = 1_000_000, batch: int = 5_000,
        writers: tuple[int, ...] = (1, 2, 3), seed: int = 7, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Measure every (query, writers) variant twice on fresh probe nodes; the rows and the settings."""
    local = LocalNeo4j(LocalServerSettings(), Neo4jSettings())
    graph = Graph(Neo4jSettings())
    rng = np.random.default_rng(seed)
    rows = []
    texts = queries()
    variants = [("rel + name", w) for w in writers] + [("no properties", max(writers[:2]))]
    try:
        for probe, (query, n_writers) in enumerate(variants):
            for attempt in ("first", "warm"):
                ids: list[int] = []
                for lo in range(0, nodes, 20_000):
                    ids += graph.run_text(_NODES, lo=lo, hi=min(lo + 20_000, nodes),
                                          probe=f"{probe}-{attempt}")[0]["ids"]
                work = _batches(ids, relationships, batch, 300, rng)
                load_before, cpu_before = os.getloadavg()[0], server_cpu(local.pid())
                start = time.perf_counter()

                def write(rows_: list[dict[str, Any]], q: str = texts[query]) -> None:
                    with graph.transaction() as tx:
                        tx.run(q, rows=rows_, load=None).consume()

                with ThreadPoolExecutor(n_writers) as pool:
                    list(pool.map(write, work))
                seconds = time.perf_counter() - start
                cpu = {k: round(v - cpu_before[k], 1) for k, v in server_cpu(local.pid()).items()}
                row = {"query": query, "writers": n_writers, "run": attempt, "relationships": relationships,
                       "seconds": round(seconds, 2), "per_second": round(relationships / seconds),
                       "server_cpu_s": cpu, "load_average": round(load_before, 2)}
                rows.append(row)
                log(f"{query}, {n_writers} writer(s), {attempt}: {row['per_second']:,}/s ({seconds:.1f} s)")
                _remove_probe(graph)
    finally:
        _remove_probe(graph)
        graph.close()
    return {"benchmark": "write_ceiling", "nodes": nodes, "relationships": relationships, "batch": batch,
            "seed": seed, "server": {"heap": local.server.heap, "pagecache": local.server.pagecache}, "rows": rows}


def _remove_probe(graph: Graph) -> None:
    for query in _DELETE:
        while graph.run_text(query)[0]["deleted"]:
            pass


def write_report(report: dict[str, Any], out: Path) -> list[Path]:
    """``<out>/engine_write_ceiling.json`` and its table (provenance stamped by write_results)."""
    return write_results(out, "load/generated/write_ceiling", report, markdown)


def markdown(report: dict[str, Any]) -> str:
    lines = ["# Write ceiling: the batched loader's statement shape on bare relationships", "",
             f"Command: `{report['command']}`", "",
             f"{report['relationships']:,} relationships among {report['nodes']:,} existing nodes, "
             f"{report['batch']:,} per transaction; server heap {report['server']['heap']}.", "",
             "| query | writers | run | seconds | relationships/s | server CPU s (query / gc / jit) | load avg |",
             "|---|---|---|---|---|---|---|"]
    for r in report["rows"]:
        cpu = r["server_cpu_s"]
        lines.append(f"| {r['query']} | {r['writers']} | {r['run']} | {r['seconds']} | {r['per_second']:,} | "
                     f"{cpu['query']} / {cpu['gc']} / {cpu['jit']} | {r['load_average']} |")
    return "\n".join(lines) + "\n"
