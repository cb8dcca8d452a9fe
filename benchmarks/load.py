"""``kgagents bench load``: how fast KGs load, transactionally and in bulk, and what it costs in memory.

Rows (each load runs in a fresh Python process, so its peak memory is its own):

* DBP15K ZH-EN (the JAPE pair, 165,556 triples): transactional into an empty database, then the idempotent
  re-load, then bulk.
* OAEI anatomy human / mouse ontologies, transactional (re-measured figures of the old one-off load benchmark).
* A generated Wikidata-like KG (:mod:`benchmarks.generate_kg`; its shape is recorded) at each of ``sizes``
  statements, both paths, and at ``big`` statements in bulk only (one transaction of millions of statements
  does not fit the server's heap; that is what the bulk path is for).
* The batched loader (:mod:`kgagents.loaders.batched`) on DBP15K and on generated files of ``batched_sizes``
  statements (1M and 10M), each into an empty database; ``only_batched`` runs just these rows.

Every transactional row starts from an empty database (the server is stopped, the store deleted, the server
started), so the Neo4j JVM's peak memory (VmHWM) is that row's; a bulk row restarts the server itself. Figures:
end-to-end seconds and statements/s (parse + write, or parse + CSV + import + restart + schema), the
phases, peak RSS of Python, of the importer JVM and of the server JVM.

The benchmark REPLACES the local server's database: like ``load kg --bulk`` it refuses a non-empty database
unless ``overwrite``. The machine may be shared: the load average is recorded before and after every row.
"""

from __future__ import annotations

import os
import resource
import shutil
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from benchmarks.generate_kg import generate_wikidata_nt
from benchmarks.machine import machine_info, peak_rss_mib
from benchmarks.provenance import write_results
from kgagents.config import LocalServerSettings, Neo4jSettings
from kgagents.graph.connection import Graph
from kgagents.graph.schema import ensure_schema
from kgagents.loaders.bulk import bulk_load, check_target, jape_input, managed_server, wikidata_input
from kgagents.paths import data_dir
from kgagents.servers.neo4j import LocalNeo4j

Log = Callable[[str], None]


# -- one row, in a child process ----------------------------------------------------------------------------
def _python_peak() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _transactional_row(kind: str, path: str, name: str) -> dict[str, Any]:
    """Load one input transactionally into the configured server (runs in a child process)."""
    from kgagents.loaders.jape import load_jape_pair
    from kgagents.loaders.ontology import load_ontology
    from kgagents.loaders.wikidata import load_wikidata_nt

    start = time.perf_counter()
    with Graph() as graph:
        ensure_schema(graph)
        if kind == "jape":
            pair = load_jape_pair(graph, Path(path), name=name)
            out = {"triples": sum(r.triples for r in pair.kgs), "parse_seconds": round(pair.parse_seconds, 3)}
        elif kind == "ontology":
            onto = load_ontology(graph, Path(path), name=name)
            out = {"triples": onto.triples, "parse_seconds": round(onto.parse_seconds, 3)}
        else:
            result = load_wikidata_nt(graph, Path(path), kg=name)
            out = {"triples": result.triples + result.literals}
    seconds = time.perf_counter() - start
    return {**out, "seconds": round(seconds, 3), "triples_per_s": round(out["triples"] / seconds),
            "python_peak_rss_mib": _python_peak()}


def _batched_row(kind: str, path: str, name: str) -> dict[str, Any]:
    """Load one input in committed batches (kgagents.loaders.batched) into the configured server (child process)."""
    from kgagents.loaders.batched import jape_source, load_batched, wikidata_source

    start = time.perf_counter()
    with Graph() as graph:
        ensure_schema(graph)
        source = jape_source(Path(path), name=name) if kind == "jape" else wikidata_source(Path(path), kg=name)
        result = load_batched(graph, source)
    seconds = time.perf_counter() - start
    triples = sum(r.triples + r.literals for r in result.kgs)
    return {"triples": triples, "seconds": round(seconds, 3), "triples_per_s": round(triples / seconds),
            "python_peak_rss_mib": _python_peak(),
            **result.model_dump(include={"batches", "parse_seconds", "write_seconds", "dedup_seconds"})}


def _batched_rows(rows: _Rows, pair: Path, work: Path, sizes: tuple[int, ...], seed: int,
                  generated: list[dict[str, Any]]) -> None:
    """The batched loader on DBP15K and on generated files of ``sizes`` statements, each into an empty database."""
    rows.run("dbp15k_zh_en", "batched", _batched_row, "jape", str(pair), "dbp15k_zh_en", fresh=True)
    for n in sizes:
        shape = generate_wikidata_nt(work / f"generated_{n}.nt", triples=n, seed=seed)
        generated.append(shape.as_dict())
        rows.run(f"generated_{n}", "batched", _batched_row, "wikidata", shape.path, f"generated_{n}", fresh=True)
        os.unlink(shape.path)


def _bulk_row(kind: str, path: str, name: str, overwrite: bool) -> dict[str, Any]:
    """Bulk-load one input, replacing the database (runs in a child process)."""
    local = managed_server(Neo4jSettings(), LocalServerSettings())
    replaced = check_target(local, overwrite=overwrite)
    start = time.perf_counter()
    data = jape_input(Path(path), name=name) if kind == "jape" else wikidata_input(Path(path), kg=name)
    result = bulk_load(data, local, replaced=replaced)
    seconds = time.perf_counter() - start
    triples = sum(r.triples + r.literals for r in result.kgs)
    return {"triples": triples, "seconds": round(seconds, 3), "triples_per_s": round(triples / seconds),
            "import_triples_per_s": round(triples / result.import_seconds),
            **result.model_dump(include={"nodes", "relationships", "parse_seconds", "files_seconds",
                                         "import_seconds", "restart_seconds", "schema_seconds",
                                         "import_peak_rss_mib", "python_peak_rss_mib"})}


def _in_child(fn: Callable[..., dict[str, Any]], *args: Any) -> dict[str, Any]:
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        return pool.submit(fn, *args).result()


# -- the benchmark ------------------------------------------------------------------------------------------
def _empty_database(local: LocalNeo4j) -> None:
    """Stop the server, delete the store, start it again: an empty database and a fresh JVM."""
    local.stop()
    for directory in local.store_dirs():
        shutil.rmtree(directory, ignore_errors=True)
    local.start()


class _Rows:
    """Runs rows, stamps each with its input, path and the load average around it, and logs it."""

    def __init__(self, local: LocalNeo4j, log: Log) -> None:
        self.local, self.log, self.rows = local, log, []  # type: ignore[var-annotated]

    def run(self, label: str, method: str, fn: Callable[..., dict[str, Any]], *args: Any, fresh: bool) -> None:
        if fresh:
            _empty_database(self.local)
        before = [round(x, 2) for x in os.getloadavg()]
        try:
            measured = _in_child(fn, *args)
        except Exception as exc:  # noqa: BLE001 - a row that cannot load is a result (e.g. one transaction too big)
            measured = {"error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:400]}"}
        row = {"input": label, "method": method, **measured, "server_peak_rss_mib": peak_rss_mib(self.local.pid()),
               "load_average_before": before, "load_average_after": [round(x, 2) for x in os.getloadavg()]}
        self.rows.append(row)
        if "error" in row:
            self.log(f"{label} {method}: FAILED {row['error']}")
            return
        self.log(f"{label} {method}: {row['triples']:,} statements in {row['seconds']:.1f}s "
                 f"= {row['triples_per_s']:,}/s (load average {before[0]})")


def run(*, sizes: tuple[int, ...] = (10_000, 100_000, 1_000_000), big: int | None = 5_000_000,
        batched_sizes: tuple[int, ...] = (1_000_000, 10_000_000), only_batched: bool = False,
        overwrite: bool = False, work_dir: Path | None = None, seed: int = 7, log: Log = print) -> dict[str, Any]:
    """Measure every row (see the module docstring) on the local server; returns the report as a dict."""
    local = managed_server(Neo4jSettings(), LocalServerSettings())
    check_target(local, overwrite=overwrite)
    report: dict[str, Any] = {"machine": machine_info(), "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                              "server": {"heap": local.server.heap, "pagecache": local.server.pagecache}}
    rows = _Rows(local, log)
    pair = data_dir("ea", "dbp15k_zh_en")
    if only_batched:
        return _finish(report, rows, lambda work, generated: _batched_rows(rows, pair, work, batched_sizes, seed,
                                                                          generated), work_dir)
    rows.run("dbp15k_zh_en", "transactional", _transactional_row, "jape", str(pair), "dbp15k_zh_en", fresh=True)
    rows.run("dbp15k_zh_en", "transactional re-load", _transactional_row, "jape", str(pair), "dbp15k_zh_en",
             fresh=False)
    for stem in ("human", "mouse"):
        rows.run(f"anatomy_{stem}", "transactional", _transactional_row, "ontology",
                 str(data_dir("om", "anatomy", f"{stem}.owl")), f"anatomy_{stem}", fresh=stem == "human")
    rows.run("dbp15k_zh_en", "bulk", _bulk_row, "jape", str(pair), "dbp15k_zh_en", True, fresh=False)

    def generated_rows(work: Path, generated: list[dict[str, Any]]) -> None:
        for n, transactional in [(n, True) for n in sizes] + ([(big, False)] if big else []):
            shape = generate_wikidata_nt(work / f"generated_{n}.nt", triples=n, seed=seed)
            generated.append(shape.as_dict())
            label = f"generated_{n}"
            if transactional:
                rows.run(label, "transactional", _transactional_row, "wikidata", shape.path, label, fresh=True)
            rows.run(label, "bulk", _bulk_row, "wikidata", shape.path, label, True, fresh=False)
            os.unlink(shape.path)
        _batched_rows(rows, pair, work, batched_sizes, seed, generated)

    return _finish(report, rows, generated_rows, work_dir)


def _finish(report: dict[str, Any], rows: _Rows, generated_rows: Callable[[Path, list[dict[str, Any]]], None],
            work_dir: Path | None) -> dict[str, Any]:
    """Run the rows that need generated files (in a temporary directory, removed after) and complete the report."""
    generated: list[dict[str, Any]] = []
    work = Path(tempfile.mkdtemp(prefix="kgagents-gen-", dir=work_dir))
    try:
        generated_rows(work, generated)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.update({"generator": generated, "rows": rows.rows, "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                   "load_average_at_end": [round(x, 2) for x in os.getloadavg()]})
    return report


def write_report(report: dict[str, Any], out: Path, name: str = "engine_load") -> list[Path]:
    """``<out>/<name>.json`` and a markdown table of the rows (provenance stamped by write_results)."""
    return write_results(out, name, report, markdown)


def _number(value: float | None) -> str:
    return "–" if value is None else f"{value:,}"


def markdown(report: dict[str, Any]) -> str:
    m = report["machine"]
    lines = [
        "# KG load benchmark", "",
        f"Command: `{report['command']}`", "",
        f"Machine: {m['cores']} cores ({m['cpu']}), {m['mem_total_gib']} GiB, load average at start "
        f"{m['load_average']} (the machine is shared: timings are noisy). Neo4j server heap "
        f"{report['server']['heap']}, page cache {report['server']['pagecache']}.", "",
        "| input | method | statements | seconds | statements/s | import only /s | Python peak MiB | "
        "importer JVM peak MiB | server JVM peak MiB | load avg (1 min) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["rows"]:
        if "error" in r:
            lines.append(f"| {r['input']} | {r['method']} | failed: {r['error']} | | | | | | | "
                         f"{r['load_average_before'][0]} |")
            continue
        lines.append(
            f"| {r['input']} | {r['method']} | {r['triples']:,} | {r['seconds']:.1f} | {r['triples_per_s']:,} | "
            f"{_number(r.get('import_triples_per_s'))} | "
            f"{r['python_peak_rss_mib']} | {_number(r.get('import_peak_rss_mib'))} | {r['server_peak_rss_mib']} | "
            f"{r['load_average_before'][0]} |")
    lines += ["", "Bulk phases (seconds):", "",
              "| input | parse | CSV | import | restart | schema |", "|---|---|---|---|---|---|"]
    for r in report["rows"]:
        if r["method"] == "bulk" and "error" not in r:
            lines.append(f"| {r['input']} | {r['parse_seconds']} | {r['files_seconds']} | {r['import_seconds']} | "
                         f"{r['restart_seconds']} | {r['schema_seconds']} |")
    lines += ["", "Batched phases (seconds; the server writes batch k while Python reads batch k+1):", "",
              "| input | batches | Python reading | waiting for the server | dedup pass |", "|---|---|---|---|---|"]
    for r in report["rows"]:
        if r["method"] == "batched" and "error" not in r:
            lines.append(f"| {r['input']} | {r['batches']} | {r['parse_seconds']} | {r['write_seconds']} | "
                         f"{r['dedup_seconds']} |")
    lines += ["", "Generated KGs (`benchmarks.generate_kg`, Wikidata truthy N-Triples; statements = `wdt:` lines):",
              "", "| statements | entities | relations | literal share | power-law skew | max out-degree | "
              "max in-degree | median degree | seed |", "|---|---|---|---|---|---|---|---|---|"]
    for g in report["generator"]:
        lines.append(f"| {g['triples']:,} | {g['entities']:,} | {g['relations']} | {g['literal_share']} | "
                     f"{g['skew']} | {g['max_out_degree']:,} | {g['max_in_degree']:,} | {g['median_degree']} | "
                     f"{g['seed']} |")
    return "\n".join(lines) + "\n"
