"""The candidate-engine benchmark: every back-end side by side with an exact numpy top-k over the same vectors.

Command::

    kgagents bench engine [--sizes 10000,100000] [--single-queries 1000]

Writes ``candidates/engine/backends.json`` in the results store. Sections (each a function returning a dict, so the
lead can glue them with the load benchmark):

* :func:`dbp15k_section` — DBP15K ZH-EN English-name vectors (MiniLM): single-client kNN (one query per round
  trip, p50/p95) scoped to the English KG and over both KGs' vectors, then the 10,500 test sources against the
  English KG with the batched and bulk back-ends, and the exact back-end on a sample; each against numpy
  (time ratio and recall@10 against numpy's exact top-10).
* :func:`scaling_section` — synthetic clustered unit vectors (seeded) at growing sizes: index build, single and
  batched queries/s, recall, GDS bulk, numpy.
* :func:`end_to_end_section` — the headline numbers of the EA retrieval and anatomy matching results files
  (written by their own commands, quoted here with those commands).

Timings depend on the machine's load: the load average is recorded at the start and end of every section.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import RESULTS_DIR
from benchmarks.provenance import write_results
from kgagents.candidates import CandidateEngine, EngineSettings, Hit, Ids, Vectors
from kgagents.candidates.hnsw import fetch_size
from kgagents.embeddings.index import Scope, render
from kgagents.graph.connection import Graph, batched

K = 10
SYNTHETIC_LABEL = "SyntheticVector"
SYNTHETIC_PROPERTY = "vec"
WRITE_BATCH = 2000
SYNTHETIC_SOURCES = 2000
FETCH_FACTORS = (3.0, 10.0, 20.0)  # batched recall against cost: index neighbours asked per wanted hit


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def server_versions(graph: Graph) -> dict[str, str]:
    """The Neo4j components the numbers ran on (the machine is stamped by write_results; the load average is
    recorded per section)."""
    return {row["name"]: f"{row['version']} {row['edition']}" for row in graph.run("server/components")}


# -- the reference ----------------------------------------------------------------------------------
def numpy_topk(queries: np.ndarray, matrix: np.ndarray, keys: Sequence[str], k: int,
               query_keys: Sequence[str] | None = None, block: int = 1024) -> list[list[str]]:
    """Exact top-``k`` keys per query by cosine (rows are unit vectors), best first; a query whose key is in
    ``keys`` never returns itself. Blocked so that the similarity matrix never exceeds ``block`` rows."""
    position = {key: i for i, key in enumerate(keys)}
    out: list[list[str]] = []
    for start in range(0, len(queries), block):
        sims = queries[start:start + block] @ matrix.T
        if query_keys is not None:
            for row, key in enumerate(query_keys[start:start + block]):
                if key in position:
                    sims[row, position[key]] = -np.inf
        top = np.argpartition(-sims, k, axis=1)[:, :k]
        order = np.take_along_axis(sims, top, axis=1).argsort(axis=1)[:, ::-1]
        out.extend([keys[j] for j in row] for row in np.take_along_axis(top, order, axis=1))
    return out


def timed_numpy(queries: np.ndarray, matrix: np.ndarray, keys: Sequence[str], k: int,
                query_keys: Sequence[str] | None = None) -> tuple[list[list[str]], float]:
    started = time.perf_counter()
    top = numpy_topk(queries, matrix, keys, k, query_keys)
    return top, time.perf_counter() - started


def recall(got: dict[str, list[Hit]], exact: dict[str, list[str]], k: int) -> float:
    """Mean share of the exact top-``k`` found in the engine's top-``k``, over the sources asked."""
    if not exact:
        return 0.0
    return sum(len({h.key for h in got.get(s, [])[:k]} & set(want[:k])) / k for s, want in exact.items()) / len(exact)


def _row(name: str, n: int, seconds: float, numpy_seconds: float, got: dict[str, list[Hit]],
         exact: dict[str, list[str]], **extra: Any) -> dict[str, Any]:
    return {"backend": name, "sources": n, "seconds": round(seconds, 3),
            "queries_per_s": round(n / seconds, 1) if seconds else None,
            "numpy_seconds": round(numpy_seconds, 3),
            "ratio_to_numpy": round(seconds / numpy_seconds, 2) if numpy_seconds else None,
            f"recall_at_{K}": round(recall(got, exact, K), 4), **extra}


def single_client(search: Callable[[np.ndarray], dict[str, list[Hit]]], queries: np.ndarray) -> dict[str, Any]:
    """One query per round trip from one client: queries/s and latency percentiles."""
    search(queries[:1])  # warm-up: plan cache, index pages
    latencies = []
    found: dict[str, list[Hit]] = {}
    started = time.perf_counter()
    for i, vector in enumerate(queries):
        t = time.perf_counter()
        found[str(i)] = search(vector[None, :])["0"]
        latencies.append(time.perf_counter() - t)
    seconds = time.perf_counter() - started
    ms = sorted(x * 1000 for x in latencies)
    return {"found": found, "seconds": seconds,
            "latency_ms": {"p50": round(statistics.median(ms), 2), "p95": round(ms[int(0.95 * (len(ms) - 1))], 2),
                           "max": round(ms[-1], 2)}}


# -- DBP15K ------------------------------------------------------------------------------------------
def dbp15k_section(graph: Graph, directory: Path, *, single_queries: int, exact_sample: int = 200,
                   settings: EngineSettings | None = None, max_sources: int | None = None) -> dict[str, Any]:
    """The DBP15K ZH-EN name vectors: single-client, batched, bulk and exact against numpy."""
    from kgagents.agent.alignment.embedding import embed_names
    from kgagents.agent.alignment.retrieval import pair_kgs, split_links
    from kgagents.agent.alignment.settings import RetrievalSettings
    from kgagents.embeddings import get_embedder
    from kgagents.errors import KgAgentsError
    from kgagents.graph.schema import ensure_schema
    from kgagents.loaders.jape import load_jape_pair

    out: dict[str, Any] = {"data": str(directory), "load_average_start": load_average()}
    dataset = directory.name
    ensure_schema(graph)
    try:
        kg1, kg2 = pair_kgs(graph, dataset)
    except KgAgentsError:
        load_jape_pair(graph, directory)
        kg1, kg2 = pair_kgs(graph, dataset)
    vector_property = RetrievalSettings().vector_property
    engine = CandidateEngine(graph, settings)
    started = time.perf_counter()
    embed_names(graph, get_embedder(), (kg1, kg2), RetrievalSettings())
    out["embed_and_prepare_seconds"] = round(time.perf_counter() - started, 2)
    sources = sorted({s for s, _ in split_links(graph, dataset)})[:max_sources]
    src_keys, src = _vectors(graph, Scope.kg(kg1), vector_property)
    tgt_keys, tgt = _vectors(graph, Scope.kg(kg2), vector_property)
    by_key = {key: i for i, key in enumerate(src_keys)}
    queries = src[[by_key[s] for s in sources if s in by_key]]
    sources = [s for s in sources if s in by_key]
    out.update({"model": get_embedder().name, "source_kg": kg1, "target_kg": kg2, "sources": len(sources),
                "target_vectors": len(tgt_keys), "vectors_in_database": len(src_keys) + len(tgt_keys)})
    target = Scope.kg(kg2)

    # single client, one query per round trip: scoped to the English KG, and over both KGs (one index, ~40k)
    sample = queries[:single_queries]
    rows = []
    for label, scope, keys, matrix in (
            (f"scope {kg2}", target, tgt_keys, tgt),
            ("both KGs (:Entity)", Scope("Entity"), [*src_keys, *tgt_keys], np.vstack([src, tgt]))):
        engine.prepare(scope, vector_property, matrix.shape[1])
        exact_top, np_seconds = timed_numpy(sample, matrix, keys, K)
        def search(v: np.ndarray, scope: Scope = scope) -> dict[str, list[Hit]]:
            return engine.search(Vectors(v), scope, k=K, vector_property=vector_property, backend="single")

        run = single_client(search, sample)
        rows.append(_row("single", len(sample), run["seconds"], np_seconds, run["found"],
                         {str(i): top for i, top in enumerate(exact_top)}, target=label, vectors=len(keys),
                         latency_ms=run["latency_ms"]))
    out["single_client"] = rows

    # all 10,500 test sources against the English KG
    exact_top, np_seconds = timed_numpy(queries, tgt, tgt_keys, K)
    exact = dict(zip(sources, exact_top, strict=True))
    out["numpy_all_sources_seconds"] = round(np_seconds, 3)
    rows = []
    settings = engine.settings
    runs = [("batched", len(sources), settings)]
    runs += [("batched", len(sources), settings.model_copy(update={"fetch_factor": f, "min_fetch": 10 * f}))
             for f in FETCH_FACTORS if f != settings.fetch_factor]
    runs += [("bulk", len(sources) // 10, settings), ("bulk", len(sources), settings)]
    for backend, n, run_settings in runs:
        run_engine = CandidateEngine(graph, run_settings)
        run_engine.prepare(target, vector_property, tgt.shape[1])
        started = time.perf_counter()
        got = run_engine.search(Ids(sources[:n], by="key", scope=Scope.kg(kg1)), target, k=K,
                                vector_property=vector_property, backend=backend)
        rows.append(_row(backend, n, time.perf_counter() - started, np_seconds * n / len(sources), got,
                         {s: exact[s] for s in sources[:n]},
                         fetch=fetch_size(K, run_settings.fetch_factor, run_settings.min_fetch)
                         if backend == "batched" else None))
    few = sources[:exact_sample]
    started = time.perf_counter()
    got = engine.search(Ids(few, by="key", scope=Scope.kg(kg1)), target, k=K, vector_property=vector_property,
                        backend="exact")
    seconds = time.perf_counter() - started
    rows.append(_row("exact", len(few), seconds, np_seconds * len(few) / len(sources), got,
                     {s: exact[s] for s in few},
                     pairs_per_s=round(len(few) * len(tgt_keys) / seconds), numpy_seconds_scaled_from_all=True))
    out["all_sources"] = rows
    out["load_average_end"] = load_average()
    return out


def auto_rates(dbp: dict[str, Any], scaling: dict[str, Any]) -> dict[str, Any]:
    """The rates of ``auto``'s cost model (:meth:`CandidateEngine.choose`), from the measured rows: exact pairs/s
    and batched sources/s on DBP15K, index build vectors/s from the largest synthetic build, and the source count
    from which GDS (a fixed cost plus a cost per source, fitted on its two DBP15K runs) beats batched."""
    rows = dbp["all_sources"]
    batched_row = next(r for r in rows if r["backend"] == "batched")
    exact_row = next(r for r in rows if r["backend"] == "exact")
    bulk = sorted((r for r in rows if r["backend"] == "bulk"), key=lambda r: r["sources"])
    builds = [r for r in scaling["rows"] if r["index_build_seconds"]]
    out: dict[str, Any] = {"exact_pairs_per_s": exact_row["pairs_per_s"],
                           "index_queries_per_s": batched_row["queries_per_s"]}
    if builds:
        largest = max(builds, key=lambda r: r["vectors"])
        out["index_build_vectors_per_s"] = round(largest["vectors"] / largest["index_build_seconds"], 1)
    per_source_batched = batched_row["seconds"] / batched_row["sources"]
    if len(bulk) == 2 and bulk[1]["sources"] > bulk[0]["sources"]:
        slope = (bulk[1]["seconds"] - bulk[0]["seconds"]) / (bulk[1]["sources"] - bulk[0]["sources"])
        fixed = bulk[0]["seconds"] - slope * bulk[0]["sources"]
        out.update({"bulk_fixed_seconds": round(fixed, 3), "bulk_seconds_per_source": round(slope, 6),
                    "batched_seconds_per_source": round(per_source_batched, 6)})
        out["bulk_min_sources"] = (int(max(fixed, 0.0) / (per_source_batched - slope)) + 1
                                   if slope < per_source_batched else 0)  # 0: bulk never wins
    return out


def _vectors(graph: Graph, scope: Scope, vector_property: str) -> tuple[list[str], np.ndarray]:
    """Keys and unit vectors of a scope, as the reference reads them (by key)."""
    rows = graph.run_text(render("candidates/scope_vectors", label=scope.label), scope=scope.params(),
                          vector_property=vector_property)
    matrix = np.array([r["vector"] for r in rows], dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return [r["key"] for r in rows], matrix


# -- synthetic scaling -------------------------------------------------------------------------------
def synthetic_vectors(n: int, dimensions: int = 384, seed: int = 7, per_cluster: int = 50,
                      spread: float = 0.6) -> np.ndarray:
    """``n`` unit vectors around ``n / per_cluster`` random centres (noise ``spread`` per unit of the centre):
    clustered like text embeddings, unlike uniform random vectors (HNSW's worst case)."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((max(1, n // per_cluster), dimensions)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    members = rng.integers(0, len(centres), n)
    noise = rng.standard_normal((n, dimensions)).astype(np.float32) * (spread / np.sqrt(dimensions))
    vectors = centres[members] + noise
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def write_synthetic(graph: Graph, name: str, vectors: np.ndarray) -> float:
    """Store the vectors as (:SyntheticVector {set, id}) nodes (replacing that set); returns seconds."""
    started = time.perf_counter()
    graph.run("candidates/synthetic_delete", set=name)
    rows = ({"id": f"{name}:{i}", "vector": v.tolist()} for i, v in enumerate(vectors))
    for chunk in batched(rows, WRITE_BATCH):
        with graph.transaction() as tx:
            graph.write_rows(tx, "candidates/synthetic_write", chunk, set=name)
    return time.perf_counter() - started


def scaling_section(graph: Graph, sizes: Sequence[int], *, single_queries: int = 200,
                    settings: EngineSettings | None = None, bulk_max: int = 100_000) -> dict[str, Any]:
    """Per size: write, index build, single-client and batched search of 2,000 members for their top-10 among the
    others, GDS bulk (up to ``bulk_max`` vectors), numpy; the set is deleted afterwards."""
    rows = []
    for n in sizes:
        row: dict[str, Any] = {"vectors": n, "load_average_start": load_average()}
        name = f"n{n}"
        scope = Scope(SYNTHETIC_LABEL, "set", name)
        vectors = synthetic_vectors(n)
        keys = [f"{name}:{i}" for i in range(n)]
        row["write_seconds"] = round(write_synthetic(graph, name, vectors), 2)
        engine = CandidateEngine(graph, settings)
        started = time.perf_counter()
        index = engine.prepare(scope, SYNTHETIC_PROPERTY, vectors.shape[1])
        row["index_build_seconds"] = round(time.perf_counter() - started, 2)
        picks = np.random.default_rng(n).choice(n, size=min(SYNTHETIC_SOURCES, n), replace=False)
        src_keys = [keys[i] for i in picks]
        exact_top, np_seconds = timed_numpy(vectors[picks], vectors, keys, K, src_keys)
        exact = dict(zip(src_keys, exact_top, strict=True))
        few = src_keys[:single_queries]
        def search(v: np.ndarray, engine: CandidateEngine = engine, scope: Scope = scope) -> Any:
            return engine.search(Vectors(v), scope, k=K + 1, vector_property=SYNTHETIC_PROPERTY, backend="single")

        run = single_client(search, vectors[picks[:single_queries]])
        found = {s: [h for h in run["found"][str(i)] if h.key != s][:K] for i, s in enumerate(few)}
        backends = [_row("single", len(few), run["seconds"], np_seconds * len(few) / len(src_keys), found,
                         {s: exact[s] for s in few}, latency_ms=run["latency_ms"])]
        for backend in ("batched", "bulk"):
            if backend == "bulk" and n > bulk_max:
                continue
            started = time.perf_counter()
            got = engine.search(Ids(src_keys, by="key", scope=scope), scope, k=K,
                                vector_property=SYNTHETIC_PROPERTY, backend=backend)
            backends.append(_row(backend, len(src_keys), time.perf_counter() - started, np_seconds, got, exact))
        row["backends"] = backends
        graph.run("candidates/synthetic_delete", set=name)
        graph.run("embeddings/drop_index", index_name=index.name)
        row["load_average_end"] = load_average()
        rows.append(row)
    return {"generator": "synthetic_vectors(n, 384, seed=7, per_cluster=50, spread=0.6): unit vectors around "
                         "n/50 random centres, Gaussian noise", "k": K, "sources_per_size": SYNTHETIC_SOURCES,
            "rows": rows}


# -- end to end (quoted from the results files their commands wrote) ---------------------------------
def end_to_end_section(results: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    ea = results / "ea_retrieval_dbp15k_zh_en.json"
    if ea.is_file():
        r = json.loads(ea.read_text())
        fused = r["scores"][r.get("headline", "fused")]["test/all_links"]
        out["ea_retrieval_dbp15k_zh_en"] = {
            "command": r["command"], "file": ea.name, "retrieval_seconds": round(r["timings_s"]["retrieval"], 1),
            "stage_seconds": {k: round(v, 1) for k, v in r["timings_s"].items()},
            "hits_at_1": fused["hits_at_1"], "hits_at_10": fused["hits_at_10"], "mrr": fused["mrr"],
            "load_average": r.get("load_average")}
    om = results / "om_anatomy_no-llm.json"
    if om.is_file():
        r = json.loads(om.read_text())
        out["om_anatomy_no_llm"] = {"command": r.get("command", "kgagents bench om anatomy --no-llm"),
                                    "file": om.name, "wall_seconds": r["wall_seconds"], "f1": r["scores"]["f1"],
                                    "stage_seconds": r["stage_seconds"], "load_average": r.get("load_average")}
    load = results / "engine_load.json"
    if load.is_file():  # `kgagents bench load` replaces the database, so it runs as its own command
        r = json.loads(load.read_text())
        out["load"] = {"command": r["command"], "file": load.name, "statements_per_s": "; ".join(
            f"{row['input']} {row['method']} " + (f"{row['triples_per_s']:,}" if "triples_per_s" in row else "failed")
            for row in r["rows"])}
    return out


# -- the command --------------------------------------------------------------------------------------
def benchmark(graph: Graph, *, sizes: Sequence[int], single_queries: int, directory: Path,
              out: Path = RESULTS_DIR, max_sources: int | None = None) -> dict[str, Any]:
    """Run every section and write candidates/engine/backends.json; returns the JSON written."""
    settings = EngineSettings()
    result: dict[str, Any] = {
        "neo4j": server_versions(graph), "load_average_start": load_average(), "k": K,
        "engine_settings": settings.model_dump(),
        "note": "timings on a machine shared with other jobs unless the load average says otherwise",
    }
    result["dbp15k_zh_en"] = dbp15k_section(graph, directory, single_queries=single_queries, settings=settings,
                                            max_sources=max_sources)
    result["scaling"] = scaling_section(graph, sizes, settings=settings)
    result["auto"] = auto_rates(result["dbp15k_zh_en"], result["scaling"])
    result["end_to_end"] = end_to_end_section(out)
    result["load_average_end"] = load_average()
    write_results(out, "candidates/engine/backends", result, markdown)
    return result


def _backend_table(rows: Sequence[dict[str, Any]], first: str) -> list[str]:
    lines = [f"| {first} | back-end | index fetch | sources | seconds | queries/s | numpy s | ratio to numpy "
             f"| recall@{K} | p50 ms | p95 ms |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lat = r.get("latency_ms") or {}
        lines.append(f"| {r.get('target', r.get('vectors', ''))} | {r['backend']} | {r.get('fetch') or ''} "
                     f"| {r['sources']} | {r['seconds']} | {r['queries_per_s']} | {r['numpy_seconds']} "
                     f"| {r['ratio_to_numpy']} | {r[f'recall_at_{K}']} | {lat.get('p50', '')} | {lat.get('p95', '')} |")
    return lines


def markdown(result: dict[str, Any]) -> str:
    d = result["dbp15k_zh_en"]
    lines = ["# Candidate engine benchmark", "", f"Command: `{result['command']}`", "",
             f"Machine: {result['machine']['cores']} cores, load average {result['load_average_start']} at start, "
             f"{result['load_average_end']} at end ({result['note']}). Settings: `{result['engine_settings']}`.", "",
             f"## DBP15K ZH-EN name vectors ({d['model']})", "",
             f"{d['sources']} test sources of {d['source_kg']} → {d['target_vectors']} vectors of {d['target_kg']} "
             f"({d['vectors_in_database']} vectors in the database); top-{K}; numpy = exact float32 brute force over "
             f"the same vectors in the same run (all sources: {d['numpy_all_sources_seconds']} s). Load average "
             f"{d['load_average_start']} → {d['load_average_end']}.", "",
             "Single client, one query per round trip:", "", *_backend_table(d["single_client"], "target"), "",
             "All test sources (exact: a sample; its numpy time scaled from the full run):", "",
             *_backend_table(d["all_sources"], "target"), ""]
    s = result["scaling"]
    lines += ["## Scaling (synthetic vectors)", "", f"Generator: {s['generator']}; {s['sources_per_size']} member "
              f"vectors per size searched for their top-{K} among the others.", "",
              "| vectors | write s | index build s | back-end | sources | seconds | queries/s | numpy s "
              f"| ratio | recall@{K} | p50 ms | p95 ms |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in s["rows"]:
        for r in row["backends"]:
            lat = r.get("latency_ms") or {}
            lines.append(f"| {row['vectors']} | {row['write_seconds']} | {row['index_build_seconds']} | {r['backend']} "
                         f"| {r['sources']} | {r['seconds']} | {r['queries_per_s']} | {r['numpy_seconds']} "
                         f"| {r['ratio_to_numpy']} | {r[f'recall_at_{K}']} | {lat.get('p50', '')} "
                         f"| {lat.get('p95', '')} |")
    lines += ["", f"## auto: measured rates of the cost model (EngineSettings): `{result['auto']}`", "",
              "## End to end (from the results files their commands wrote)", ""]
    for name, e in result["end_to_end"].items():
        lines.append(f"* {name}: `{e['command']}` → {e['file']}: " + ", ".join(
            f"{k} {v}" for k, v in e.items() if k not in ("command", "file", "stage_seconds")))
    return "\n".join(lines) + "\n"

