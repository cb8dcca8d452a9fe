"""``kgagents bench load``: how fast KGs load, transactionally and in bulk, and what it costs in memory.

Rows (each load runs in a fresh Python process, so its peak memory is its own):

* DBP15K ZH-EN (the JAPE pair, 165,556 triples): transactional into an empty database, then the idempotent
  re-load, then bulk.
* OAEI anatomy human / mouse ontologies, transactional (re-measured figures of the old one-off load benchmark).
* A generated Wikidata-like KG (:mod:`benchmarks.generate_kg`; its shape is recorded) at each of ``sizes``
  statements, both paths, and at ``big`` statements in bulk only (one transaction of millions of statements
  does not fit the server's heap; that is what the bulk path is for).
* The batched loader (:mod:`kgagents.loaders.batched`) on DBP15K and on generated files of ``batched_sizes``
  statements (1M and 10M), each into an empty database on a freshly started server, and DBP15K and the 1M file
  once more on the same, warm server (a fresh JVM compiles as it loads); ``only_batched`` runs just these rows.
  Each batched row records Python's and the server JVM's CPU seconds (queries, garbage collection, JIT
  compilation): on a shared machine they say where the time went better than wall time.
* ``bulk_ceiling``: after the bulk row of the ``ceiling`` size, the same graph's CSV files, written once
  beforehand, imported by ``neo4j-admin database import full`` alone (server stopped, no parsing, no swap, no
  restart, no schema); ``bulk_ceiling`` in the report is the bulk row's importer-phase and end-to-end rates over
  it, and both rows carry the importer's own stage times.

Every transactional row starts from an empty database (the server is stopped, the store deleted, the server
started), so the Neo4j JVM's peak memory (VmHWM) is that row's; a bulk row restarts the server itself. Figures:
end-to-end seconds and statements/s (parse + write, or parse + CSV + import + restart + schema), the
phases, peak RSS of Python, of the importer JVM and of the server JVM.

The benchmark REPLACES the local server's database: like ``load kg --bulk`` it refuses a non-empty database
unless ``overwrite``. The machine may be shared: the load average is recorded before and after every row.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from benchmarks.generate_kg import GeneratedKG, generate_wikidata_nt
from benchmarks.machine import machine_info, peak_rss_mib
from benchmarks.provenance import write_results
from kgagents.config import LocalServerSettings, Neo4jSettings
from kgagents.graph.connection import Graph
from kgagents.graph.schema import ensure_schema
from kgagents.loaders.bulk import check_target, managed_server, wikidata_input
from kgagents.paths import data_dir
from kgagents.servers.neo4j import LocalNeo4j

Log = Callable[[str], None]


# -- one row, in a child process ----------------------------------------------------------------------------
def _python_peak() -> float:
    """This child's own peak RSS (VmHWM). Not ``ru_maxrss``: Linux carries that across the fork and exec that
    start the child, so it would report the parent's size at that moment (the parent has just generated a
    multi-million-statement file)."""
    return peak_rss_mib(os.getpid()) or round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _python_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def server_cpu(pid: int | None) -> dict[str, float]:
    """CPU seconds the server JVM has used so far, by what its threads do: ``query`` (Bolt workers: Cypher and
    commits), ``gc``, ``jit`` (compilers), ``other``. On a shared machine wall time says little; CPU time does."""
    out = {"query": 0.0, "gc": 0.0, "jit": 0.0, "other": 0.0}
    if pid is None:
        return out
    tick = os.sysconf("SC_CLK_TCK")
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            name = (task / "comm").read_text().strip()
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the thread ended
        kind = ("gc" if name.startswith(("G1", "GC")) else "jit" if "Compiler" in name
                else "query" if "Bolt" in name else "other")
        out[kind] += (int(fields[11]) + int(fields[12])) / tick
    return out


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
    """Load one input in committed batches (the ``load kg --batched`` job) into the configured server (child
    process); Python's and the server JVM's CPU seconds say where the time went on a shared machine."""
    from kgagents.jobs.loading import load_kg

    local = LocalNeo4j(LocalServerSettings(), Neo4jSettings())
    server_before, python_before = server_cpu(local.pid()), _python_cpu()
    start = time.perf_counter()
    report = load_kg(Path(path), "jape" if kind == "jape" else "wikidata", method="batched", name=name)
    seconds = time.perf_counter() - start
    result = report.batched
    assert result is not None
    server_after = server_cpu(local.pid())
    triples = sum(r.triples + r.literals for r in result.kgs)
    return {"triples": triples, "seconds": round(seconds, 3), "triples_per_s": round(triples / seconds),
            "python_peak_rss_mib": _python_peak(), "python_cpu_seconds": round(_python_cpu() - python_before, 1),
            "server_cpu_seconds": {k: round(server_after[k] - server_before[k], 1) for k in server_after},
            **result.model_dump(include={"batches", "parse_seconds", "write_seconds", "dedup_seconds",
                                            "entities_merged", "possible_repeats"})}


def _emptied(kind: str, path: str, name: str) -> dict[str, Any]:
    """Delete everything the previous row loaded (the server keeps running, warm), then load again batched."""
    with Graph() as graph:
        graph.run_text("MATCH ()-[r]->() CALL (r) { DELETE r } IN TRANSACTIONS OF 10000 ROWS")
        graph.run("admin/wipe")
    return _batched_row(kind, path, name)


def _batched_rows(rows: _Rows, pair: Path, work: Path, sizes: tuple[int, ...], seed: int,
                  generated: list[dict[str, Any]]) -> None:
    """The batched loader on DBP15K and on generated files of ``sizes`` statements, each into an empty database on
    a freshly started server (its JVM compiles as it goes: the first load after a start pays for that), and
    DBP15K and the smallest generated file once more on the same, now warm, server."""
    rows.run("dbp15k_zh_en", "batched", _batched_row, "jape", str(pair), "dbp15k_zh_en", fresh=True)
    rows.run("dbp15k_zh_en", "batched, warm server", _emptied, "jape", str(pair), "dbp15k_zh_en", fresh=False)
    for n in sizes:
        shape = _generated(work, n, seed, generated)
        rows.run(f"generated_{n}", "batched", _batched_row, "wikidata", shape.path, f"generated_{n}", fresh=True)
        if n == min(sizes):  # and once on the warm server: what a long-running server does
            rows.run(f"generated_{n}", "batched, warm server", _emptied, "wikidata", shape.path, f"generated_{n}",
                     fresh=False)
        os.unlink(shape.path)


def _generated(work: Path, n: int, seed: int, generated: list[dict[str, Any]]) -> GeneratedKG:
    shape = generate_wikidata_nt(work / f"generated_{n}.nt", triples=n, seed=seed)
    if shape.as_dict() not in generated:
        generated.append(shape.as_dict())
    return shape


def _bulk_row(kind: str, path: str, name: str, overwrite: bool) -> dict[str, Any]:
    """Bulk-load one input, replacing the database (the ``load kg --bulk`` job, in a child process)."""
    from kgagents.jobs.loading import load_kg

    start = time.perf_counter()
    report = load_kg(Path(path), "jape" if kind == "jape" else "wikidata", method="bulk", name=name,
                     overwrite=overwrite)
    seconds = time.perf_counter() - start
    result = report.bulk
    assert result is not None
    triples = sum(r.triples + r.literals for r in result.kgs)
    return {"triples": triples, "seconds": round(seconds, 3), "triples_per_s": round(triples / seconds),
            "import_triples_per_s": round(triples / result.import_seconds),
            "importer_stages": importer_stages(LocalNeo4j().instance_dir / "logs" / "import.log"),
            **result.model_dump(include={"nodes", "relationships", "parse_seconds", "files_seconds",
                                         "import_seconds", "import_cpu_seconds", "restart_seconds",
                                         "schema_seconds", "import_peak_rss_mib"}),
            "python_peak_rss_mib": _python_peak()}


def _ceiling_row(path: str, name: str) -> dict[str, Any]:
    """The importer's ceiling on this machine: the same graph's CSV files, written once beforehand, imported by
    ``neo4j-admin database import full`` alone (no parsing, no CSV writing, no server swap or restart; the
    server is stopped) with the settings ``load kg --bulk`` uses, into a scratch store removed after (child
    process)."""
    from kgagents.config import BulkImportSettings
    from kgagents.loaders.import_files import ImportFilesWriter

    settings = BulkImportSettings()
    data = wikidata_input(Path(path), kg=name)
    local = LocalNeo4j(LocalServerSettings(), Neo4jSettings())
    work = Path(tempfile.mkdtemp(prefix="kgagents-ceiling-", dir=settings.work_dir))
    try:
        writer = ImportFilesWriter(work / "csv")
        (work / "csv").mkdir()
        writer.add_kg(data.kgs[0])
        files = writer.finish()
        local.stop()
        run = local.run_importer(files.importer_args(), work / "store", heap=settings.heap,
                                 max_off_heap=settings.max_off_heap, threads=settings.threads,
                                 high_parallel_io=settings.high_parallel_io)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    triples = sum(kg.counts()["triples"] + kg.counts()["literals"] for kg in data.kgs)
    return {"triples": triples, "seconds": round(run.import_seconds, 3),
            "triples_per_s": round(triples / run.import_seconds),
            "import_triples_per_s": round(triples / run.import_seconds), "nodes": files.node_count,
            "relationships": files.relationship_count, "import_seconds": round(run.import_seconds, 3),
            "import_cpu_seconds": round(run.cpu_seconds, 1), "import_peak_rss_mib": round(run.import_peak_rss_mib, 1),
            "importer_stages": importer_stages(run.log), "python_peak_rss_mib": _python_peak()}


_STAGE_DONE = re.compile(r"^(.+?) COMPLETED in ([\dhms ]+?)\s*$")
_IMPORT_DONE = re.compile(r"^IMPORT DONE in ([\dhms ]+?)\.")
_DURATION = re.compile(r"(\d+)(h|ms|m|s)\b")
_UNIT = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


def importer_stages(log: Path) -> dict[str, float]:
    """Seconds of each importer stage (node import, relationship import, relationship linking, post processing)
    and of the whole import, read from the importer's output, so a bulk row says where the importer's time went
    (the rest of its wall time is the JVM starting and the store being prepared)."""
    stages: dict[str, float] = {}
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return stages
    for line in lines:
        m = _STAGE_DONE.match(line.strip()) or _IMPORT_DONE.match(line.strip())
        if m is not None:
            name = m.group(1).lower() if m.re is _STAGE_DONE else "import done"
            text = m.group(2) if m.re is _STAGE_DONE else m.group(1)
            stages[name] = round(sum(int(n) * _UNIT[u] for n, u in _DURATION.findall(text)), 3)
    return stages


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
        ceiling: int | None = None, overwrite: bool = False, work_dir: Path | None = None, seed: int = 7,
        keep_bulk_from: Path | None = None, log: Log = print) -> dict[str, Any]:
    """Measure every row (see the module docstring) on the local server; returns the report as a dict.

    ``ceiling``: the generated size whose bulk row is followed by the importer-alone ceiling row (default
    ``big``); with ``only_batched`` that bulk row and its ceiling row run after the batched rows.
    ``keep_bulk_from``: with ``only_batched`` and no ``ceiling``, the bulk and ceiling rows of an earlier
    results file are carried over, each marked with the file, command, commit and time it was measured at."""
    kept = _kept_bulk_rows(keep_bulk_from) if keep_bulk_from is not None else None
    if kept is not None and (not only_batched or ceiling):
        raise ValueError("--keep-bulk-from goes with --only-batched and no --ceiling (bulk rows are kept, not run)")
    local = managed_server(Neo4jSettings(), LocalServerSettings())
    check_target(local, overwrite=overwrite)
    report: dict[str, Any] = {"machine": machine_info(), "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                              "server": {"heap": local.server.heap, "pagecache": local.server.pagecache}}
    rows = _Rows(local, log)
    pair = data_dir("ea", "dbp15k_zh_en")
    ceiling = ceiling if ceiling is not None or only_batched else big

    def bulk_and_ceiling(n: int, path: str) -> None:
        label = f"generated_{n}"
        rows.run(label, "bulk", _bulk_row, "wikidata", path, label, True, fresh=False)
        if n == ceiling:
            rows.run(label, "bulk_ceiling", _ceiling_row, path, label, fresh=False)

    if only_batched:
        def batched_rows(work: Path, generated: list[dict[str, Any]]) -> None:
            _batched_rows(rows, pair, work, batched_sizes, seed, generated)
            if ceiling:
                shape = _generated(work, ceiling, seed, generated)
                bulk_and_ceiling(ceiling, shape.path)
                os.unlink(shape.path)

        report = _finish(report, rows, batched_rows, work_dir)
        if kept is not None:
            report["rows"] += kept["rows"]
            report["generator"] += [g for g in kept["generator"] if g not in report["generator"]]
            report["bulk_ceiling"] = _ceiling_ratio(report["rows"])
        return report
    rows.run("dbp15k_zh_en", "transactional", _transactional_row, "jape", str(pair), "dbp15k_zh_en", fresh=True)
    rows.run("dbp15k_zh_en", "transactional re-load", _transactional_row, "jape", str(pair), "dbp15k_zh_en",
             fresh=False)
    for stem in ("human", "mouse"):
        rows.run(f"anatomy_{stem}", "transactional", _transactional_row, "ontology",
                 str(data_dir("om", "anatomy", f"{stem}.owl")), f"anatomy_{stem}", fresh=stem == "human")
    rows.run("dbp15k_zh_en", "bulk", _bulk_row, "jape", str(pair), "dbp15k_zh_en", True, fresh=False)

    def generated_rows(work: Path, generated: list[dict[str, Any]]) -> None:
        for n, transactional in [(n, True) for n in sizes] + ([(big, False)] if big else []):
            shape = _generated(work, n, seed, generated)
            label = f"generated_{n}"
            if transactional:
                rows.run(label, "transactional", _transactional_row, "wikidata", shape.path, label, fresh=True)
            bulk_and_ceiling(n, shape.path)
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
    rows.local.start()  # a ceiling row leaves the server stopped
    report.update({"generator": generated, "rows": rows.rows, "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                   "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
                   "bulk_ceiling": _ceiling_ratio(rows.rows)})
    return report


def _kept_bulk_rows(path: Path) -> dict[str, Any]:
    """The bulk and ceiling rows of an earlier results file, and the generated KGs they loaded, each row marked
    with where it was measured (file, command, commit, start time)."""
    import json

    earlier = json.loads(path.read_text(encoding="utf-8"))
    origin = {"file": path.name, "command": earlier.get("command"), "git_commit": earlier.get("git_commit"),
              "started_at": earlier.get("started_at")}
    # a row that file had itself carried over keeps where it was measured
    rows = [{"kept_from": origin, **r} for r in earlier["rows"] if r["method"] in ("bulk", "bulk_ceiling")]
    inputs = {r["input"] for r in rows}
    return {"rows": rows, "generator": [g for g in earlier.get("generator", [])
                                        if f"generated_{g['triples']}" in inputs]}


def _kept_sentence(report: dict[str, Any]) -> str:
    kept = next((r["kept_from"] for r in report["rows"] if "kept_from" in r), None)
    if kept is None:
        return ""
    return (f" The bulk and bulk_ceiling rows (\"earlier run\") were not run again: they are carried over from "
            f"{kept['file']} (`{kept['command']}`, commit {str(kept['git_commit'])[:7]}, started "
            f"{kept['started_at']}); their load averages are that run's.")


def _ceiling_ratio(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The bulk row's importer-phase rate over the ceiling row's (same file, same run), and the end-to-end rate's."""
    ceiling = next((r for r in rows if r["method"] == "bulk_ceiling" and "error" not in r), None)
    if ceiling is None:
        return None
    bulk = next((r for r in rows if r["method"] == "bulk" and r["input"] == ceiling["input"] and "error" not in r),
                None)
    if bulk is None:
        return None
    return {"input": ceiling["input"], "ceiling_triples_per_s": ceiling["import_triples_per_s"],
            "import_triples_per_s": bulk["import_triples_per_s"], "end_to_end_triples_per_s": bulk["triples_per_s"],
            "import_ratio": round(bulk["import_triples_per_s"] / ceiling["import_triples_per_s"], 3),
            "end_to_end_ratio": round(bulk["triples_per_s"] / ceiling["import_triples_per_s"], 3)}


def write_report(report: dict[str, Any], out: Path, name: str = "load/kgs/methods") -> list[Path]:
    """``<out>/<name>.json`` and a markdown table of the rows (provenance stamped by write_results)."""
    return write_results(out, name, report, markdown)


def _number(value: float | None) -> str:
    return "–" if value is None else f"{value:,}"


def _method(row: dict[str, Any]) -> str:
    return f"{row['method']} (earlier run)" if "kept_from" in row else row["method"]


def _cpu(row: dict[str, Any]) -> str:
    cpu = row.get("server_cpu_seconds")
    return "–" if not cpu else f"{cpu['query']} / {cpu['gc']} / {cpu['jit']}"


def batched_table(report: dict[str, Any]) -> list[str]:
    """The batched rows (and any bulk and ceiling rows) with memory, where the CPU went and the load average."""
    lines = ["| input | method | statements | seconds | statements/s | Python / server JVM peak MiB | "
             "server CPU s: queries / GC / JIT | Python CPU s | load avg |", "|---|---|---|---|---|---|---|---|---|"]
    for r in report["rows"]:
        if not r["method"].startswith(("batched", "bulk")):
            continue
        if "error" in r:
            lines.append(f"| {r['input']} | {r['method']} | failed: {r['error'][:160]} | | | | | | "
                         f"{r['load_average_before'][0]} |")
            continue
        jvm = r.get("import_peak_rss_mib") if r["method"] == "bulk_ceiling" else r.get("server_peak_rss_mib")
        lines.append(f"| {r['input']} | {_method(r)} | {r['triples']:,} | {r['seconds']:.1f} | "
                     f"{r['triples_per_s']:,} | {r['python_peak_rss_mib']} / {_number(jvm)} | {_cpu(r)} | "
                     f"{_number(r.get('python_cpu_seconds'))} | {r['load_average_before'][0]} |")
    return lines


def ceiling_sentence(report: dict[str, Any]) -> str:
    """The bulk importer's rate against the same CSV imported by neo4j-admin alone, and its stages."""
    c = report.get("bulk_ceiling")
    if not c:
        return "No bulk ceiling row in this run."
    bulk = next(r for r in report["rows"] if r["method"] == "bulk" and r["input"] == c["input"])
    ceiling = next(r for r in report["rows"] if r["method"] == "bulk_ceiling")
    stages = ", ".join(f"{k} {v:.0f} s" for k, v in ceiling.get("importer_stages", {}).items())
    return (f"Bulk, {c['input']}: the importer phase of `load kg --bulk` ran at {c['import_triples_per_s']:,} "
            f"statements/s against {c['ceiling_triples_per_s']:,}/s for the same CSV imported by `neo4j-admin "
            f"database import full` alone (ratio {c['import_ratio']}); end to end {c['end_to_end_triples_per_s']:,}/s "
            f"(ratio {c['end_to_end_ratio']}: parse {bulk['parse_seconds']:.0f} s, CSV {bulk['files_seconds']:.0f} s, "
            f"import {bulk['import_seconds']:.0f} s, restart {bulk['restart_seconds']:.0f} s, schema "
            f"{bulk['schema_seconds']:.0f} s). The importer alone: {stages}; {ceiling['import_cpu_seconds']} CPU s "
            f"in {ceiling['import_seconds']:.0f} s, peak {ceiling['import_peak_rss_mib']:,.0f} MiB."
            + _kept_sentence(report))


def load_range(report: dict[str, Any]) -> tuple[float, float]:
    """The lowest and highest 1-minute load average as this run's rows started (the machine's own is taken when the
    file is written, after the last row; rows carried over from an earlier run are left out)."""
    values = [r["load_average_before"][0] for r in report["rows"] if "kept_from" not in r]
    return min(values), max(values)


def markdown(report: dict[str, Any]) -> str:
    m = report["machine"]
    low, high = load_range(report)
    lines = [
        "# KG load benchmark", "",
        f"Command: `{report['command']}`", "",
        f"Machine: {m['cores']} cores ({m['cpu']}), {m['mem_total_gib']} GiB, load average {low}–{high} as the "
        f"rows started, {m['load_average']} when the file was written (the machine is shared: timings are "
        f"noisy). Neo4j server heap {report['server']['heap']}, page cache {report['server']['pagecache']}.", "",
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
            f"| {r['input']} | {_method(r)} | {r['triples']:,} | {r['seconds']:.1f} | {r['triples_per_s']:,} | "
            f"{_number(r.get('import_triples_per_s'))} | "
            f"{r['python_peak_rss_mib']} | {_number(r.get('import_peak_rss_mib'))} | "
            f"{_number(r.get('server_peak_rss_mib'))} | {r['load_average_before'][0]} |")
    lines += ["", "Bulk phases (seconds) and the importer's own stages:", "",
              "| input | method | parse | CSV | import | restart | schema | importer stages |",
              "|---|---|---|---|---|---|---|---|"]
    for r in report["rows"]:
        if r["method"] in ("bulk", "bulk_ceiling") and "error" not in r:
            stages = ", ".join(f"{k} {v}" for k, v in r.get("importer_stages", {}).items()) or "–"
            lines.append(f"| {r['input']} | {_method(r)} | {_number(r.get('parse_seconds'))} | "
                         f"{_number(r.get('files_seconds'))} | {r['import_seconds']} | "
                         f"{_number(r.get('restart_seconds'))} | {_number(r.get('schema_seconds'))} | {stages} |")
    lines += ["", ceiling_sentence(report), "",
              "Batched rows: where the time went (seconds; the server writes while Python reads the next batch):", "",
              "| input | batches | Python reading | waiting for the server | dedup pass (statements checked) | "
              "entities MERGEd | server CPU: queries / GC / JIT | Python CPU |", "|---|---|---|---|---|---|---|---|"]
    for r in report["rows"]:
        if r["method"].startswith("batched") and "error" not in r:
            lines.append(f"| {r['input']} | {r['batches']} | {r['parse_seconds']} | {r['write_seconds']} | "
                         f"{r['dedup_seconds']} ({_number(r.get('possible_repeats'))}) | "
                         f"{_number(r.get('entities_merged'))} | {_cpu(r)} | {_number(r.get('python_cpu_seconds'))} |")
    lines += ["", "Generated KGs (`benchmarks.generate_kg`, Wikidata truthy N-Triples; statements = `wdt:` lines):",
              "", "| statements | entities | relations | literal share | power-law skew | max out-degree | "
              "max in-degree | median degree | seed |", "|---|---|---|---|---|---|---|---|---|"]
    for g in report["generator"]:
        lines.append(f"| {g['triples']:,} | {g['entities']:,} | {g['relations']} | {g['literal_share']} | "
                     f"{g['skew']} | {g['max_out_degree']:,} | {g['max_in_degree']:,} | {g['median_degree']} | "
                     f"{g['seed']} |")
    return "\n".join(lines) + "\n"
