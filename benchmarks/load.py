"""Load throughput: OAEI anatomy ontologies and the DBP15K ZH-EN entity-alignment pair, on this machine.

Runs against the server KGAGENTS_NEO4J_* points at (default: the local server of `kgagents neo4j start`).
It deletes nothing of yours: it writes under its own names (ontologies ``bench_human`` / ``bench_mouse``,
KGs ``bench_dbp15k_zh_en:zh`` / ``:en``). With ``--fresh`` it first deletes the benchmark's own two KGs, so
the pair is timed as a first load; without it a repeated run times an (idempotent) re-load, and the JSON
says which (``reload``). Ontology resources are shared by URI with any ontology you loaded yourself, so
their timing is a first load only on a database without OAEI anatomy.

    .venv/bin/python benchmarks/load.py [--fresh] [--only ontologies ea] [--data ../shared/data]

Prints and writes benchmarks/results/load.json: per dataset seconds, triples/s and nodes/s; peak RSS of
this Python process (getrusage) and of the Neo4j JVM (VmHWM from /proc when the server is the local one
on the configured port, i.e. the JVM's peak since it started); machine info.

Each section is a function ``(graph, args) -> dict`` registered in ``SECTIONS``; main() runs the selected
ones in order and stores each result under its name, so further measurements (e.g. vector kNN queries/s)
are added as one more entry there.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import time
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from kgagents.config import LocalServerSettings, Neo4jSettings
from kgagents.graph.connection import Graph
from kgagents.graph.schema import ensure_schema
from kgagents.graph.server import LocalNeo4j
from kgagents.loaders.jape import load_jape_pair
from kgagents.loaders.kg_common import delete_kg, kg_stats
from kgagents.loaders.ontology import load_ontology

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results" / "load.json"
DEFAULT_DATA = REPO.parent / "shared" / "data"
PAIR_NAME = "bench_dbp15k_zh_en"

Section = Callable[[Graph, argparse.Namespace], dict[str, Any]]


def _rates(seconds: float, *, triples: int, nodes: int, relationships: int) -> dict[str, Any]:
    return {"seconds": round(seconds, 3), "triples": triples, "nodes": nodes, "relationships": relationships,
            "triples_per_s": round(triples / seconds, 1) if seconds else None,
            "nodes_per_s": round(nodes / seconds, 1) if seconds else None}


def bench_ontologies(graph: Graph, args: argparse.Namespace) -> dict[str, Any]:
    """OAEI anatomy human.owl and mouse.owl, each through load_ontology."""
    out: dict[str, Any] = {}
    for stem in ("human", "mouse"):
        path = args.data / "om" / "anatomy" / f"{stem}.owl"
        result = load_ontology(graph, path, name=f"bench_{stem}")
        nodes = result.classes + result.object_properties + result.datatype_properties
        out[f"anatomy_{stem}"] = {
            **_rates(result.seconds, triples=result.triples, nodes=nodes, relationships=result.relationships),
            "parse_seconds": round(result.parse_seconds, 3), "write_seconds": round(result.write_seconds, 3),
            "classes": result.classes,
        }
    return out


def bench_ea(graph: Graph, args: argparse.Namespace) -> dict[str, Any]:
    """DBP15K ZH-EN through load_jape_pair (both KGs, gold links, one transaction)."""
    kgs = [f"{PAIR_NAME}:zh", f"{PAIR_NAME}:en"]
    if args.fresh:
        for kg in kgs:
            delete_kg(graph, kg)
    reload = any(kg_stats(graph, kg)["kg_exists"] for kg in kgs)
    result = load_jape_pair(graph, args.data / "ea" / "dbp15k_zh_en", name=PAIR_NAME)
    triples = sum(r.triples for r in result.kgs)
    nodes = sum(r.entities + r.relations for r in result.kgs)
    gold = sum(result.gold_links.values())
    return {"dbp15k_zh_en": {
        **_rates(result.seconds, triples=triples, nodes=nodes, relationships=triples + gold),
        "parse_seconds": round(result.parse_seconds, 3), "reload": reload, "gold_links": result.gold_links,
        "per_kg": [r.model_dump(exclude={"seconds"}) for r in result.kgs],
    }}


def bench_knn(graph: Graph, args: argparse.Namespace) -> dict[str, Any]:
    """Vector kNN over the DBP15K English entity names: embed (hash-skipped when unchanged), then
    single-client queries/s of the candidate engine's ``single`` back-end, top-10 in the other KG's own index
    (``kgagents bench engine`` measures every back-end against numpy)."""
    import random

    from kgagents.candidates import CandidateEngine, Vectors
    from kgagents.embeddings import get_embedder
    from kgagents.embeddings.index import Scope, embed_nodes

    embedder = get_embedder()
    engine = CandidateEngine(graph)
    out: dict[str, Any] = {"model": embedder.name}
    for side, text in (("en", [("name",)]), ("zh", [("name_en", "name")])):
        stats = embed_nodes(graph, embedder, scope=Scope.kg(f"{PAIR_NAME}:{side}"), text_properties=text,
                            vector_property="embedding")
        out[f"embed_{side}"] = {"embedded": stats.embedded, "unchanged": stats.unchanged,
                                "seconds": round(stats.seconds, 2),
                                "texts_per_s": round(stats.embedded / stats.seconds, 1) if stats.embedded else None}
    rng = random.Random(7)
    queries = embedder.embed([f"entity {rng.randrange(100000)}" for _ in range(args.knn_queries)])
    target = Scope.kg(f"{PAIR_NAME}:en")
    engine.prepare(target, "embedding", embedder.dimensions)  # once, as a real client would
    engine.search(Vectors(queries[:1]), target, k=10, vector_property="embedding", backend="single")  # warm-up
    started = time.perf_counter()
    for vector in queries:
        engine.search(Vectors(vector), target, k=10, vector_property="embedding", backend="single")
    seconds = time.perf_counter() - started
    out["knn"] = {"queries": len(queries), "k": 10, "backend": "single", "seconds": round(seconds, 2),
                  "queries_per_s": round(len(queries) / seconds, 1), "scope": target.value}
    return out


SECTIONS: dict[str, Section] = {"ontologies": bench_ontologies, "ea": bench_ea, "knn": bench_knn}


def _neo4j_pid(settings: Neo4jSettings) -> int | None:
    """The local server's pid when the configured URI points at it (else we cannot see the JVM)."""
    server = LocalServerSettings()
    if urlparse(settings.uri).port != server.bolt_port:
        return None
    return LocalNeo4j(server, settings).pid()


def _vm_hwm_kib(pid: int | None) -> int | None:
    if pid is None:
        return None
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _mem_total_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return None


def machine_info(graph: Graph) -> dict[str, Any]:
    comp = graph.run("server/components")[0]

    def pkg(name: str) -> str | None:
        try:
            return version(name)
        except PackageNotFoundError:
            return None

    return {
        "cores": os.cpu_count(), "cpu": _cpu_model(), "mem_total_gib": _mem_total_gib(),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "platform": platform.platform(), "python": sys.version.split()[0],
        "neo4j_server": f"{comp['version']} {comp['edition']}", "neo4j_driver": pkg("neo4j"),
        "kgagents": pkg("kgagents"), "rdflib": pkg("rdflib"), "neo4j_uri": graph.settings.uri,
        "batch_size": graph.settings.batch_size,
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--knn-queries", type=int, default=1000, help="kNN queries to time")
    parser.add_argument("--only", nargs="+", choices=list(SECTIONS), default=list(SECTIONS),
                        help="sections to run (default: all)")
    parser.add_argument("--fresh", action="store_true",
                        help=f"delete the benchmark's own KGs ({PAIR_NAME}:*) first, to time a first load")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared benchmark data directory")
    parser.add_argument("--output", type=Path, default=RESULTS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    with Graph() as graph:
        ensure_schema(graph)
        report: dict[str, Any] = {"machine": machine_info(graph), "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        for name in args.only:
            start = time.perf_counter()
            report[name] = SECTIONS[name](graph, args)
            print(f"{name}: {time.perf_counter() - start:.1f}s", file=sys.stderr)
        pid = _neo4j_pid(graph.settings)
    report["peak_rss_mib"] = {
        "python": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "neo4j_jvm_since_start": round(hwm / 1024, 1) if (hwm := _vm_hwm_kib(pid)) is not None else None,
        "neo4j_pid": pid,
    }
    text = json.dumps(report, indent=2, ensure_ascii=False)
    print(text)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text + "\n", encoding="utf-8")
    return report


if __name__ == "__main__":
    main()
