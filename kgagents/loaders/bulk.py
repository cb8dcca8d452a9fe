"""``kgagents load kg --bulk``: a parsed KG written as import files and loaded by Neo4j's offline importer.

When to use which path:

* **transactional** (the default): adds to a live graph, keeps what is already there, one transaction per file,
  idempotent. Right for small and medium KGs (DBP15K, MetaQA: seconds) and for anything loaded next to
  ontologies, alignments or agent runs.
* **bulk** (``--bulk``): for a large KG into an empty database (a Wikidata subgraph of millions of statements).
  ``neo4j-admin database import full`` builds the store files directly, several times faster than Cypher.
  Neo4j Community has one user database and no incremental import, so a bulk load REPLACES the whole database:
  it is refused when the database holds anything unless ``--overwrite`` is given (the message says what would
  be lost), and it only works on the server kgagents runs itself (``kgagents neo4j start``), never a remote URI,
  Docker or Aura, since the importer writes the server's store files.

Order of work, so that bad input never costs the current database: check the target, parse and validate the
whole input, write the CSV files, run the importer into a staging store while the server keeps serving, and
only then stop the server, swap the store in, start it, create the schema and record the load (see
:meth:`LocalNeo4j.import_database`). The graph equals the transactional load of the same file (same nodes,
properties, types and relationships), including the ``(:Load)`` record.
"""

from __future__ import annotations

import resource
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from pydantic import BaseModel

from kgagents.config import BulkImportSettings, LocalServerSettings, Neo4jSettings
from kgagents.errors import BulkImportError, ForeignServerError, Neo4jAuthError, Neo4jUnavailableError
from kgagents.graph.connection import Graph
from kgagents.graph.schema import ensure_schema
from kgagents.loaders.import_files import ImportFilesWriter
from kgagents.loaders.kg_common import KGData, KGLoadResult
from kgagents.loaders.record import LoadRecord, record_load
from kgagents.servers.neo4j import LocalNeo4j

_LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}


@dataclass
class BulkInput:
    """Everything one bulk load writes: parsed KGs, gold links between two of them, the load records."""

    kgs: list[KGData]
    records: list[LoadRecord]
    gold_links: list[tuple[str, str, str]] = field(default_factory=list)  # side-1 id, side-2 id, split
    dataset: str | None = None  # the EA pair the gold links belong to
    parse_seconds: float = 0.0


class BulkLoadResult(BaseModel):
    """What a bulk load wrote and where its time and memory went."""

    method: str = "bulk"
    kgs: list[KGLoadResult]
    gold_links: dict[str, int]
    nodes: int
    relationships: int
    replaced: dict[str, Any] | None
    parse_seconds: float
    files_seconds: float
    import_seconds: float
    import_cpu_seconds: float = 0.0
    restart_seconds: float
    schema_seconds: float
    seconds: float
    import_peak_rss_mib: float
    python_peak_rss_mib: float


def managed_server(neo4j: Neo4jSettings, server: LocalServerSettings) -> LocalNeo4j:
    """The local server kgagents runs at the configured URI; anything else is refused with the reason."""
    uri = urlparse(neo4j.uri)
    if uri.hostname not in _LOCAL_HOSTS or uri.port != server.bolt_port:
        raise BulkImportError(
            f"--bulk writes the store files of the Neo4j server kgagents runs itself (bolt://127.0.0.1:"
            f"{server.bolt_port}, instance '{server.instance}'), but KGAGENTS_NEO4J_URI is {neo4j.uri}. The offline "
            "importer cannot reach a remote, Docker or Aura server; load without --bulk (transactional), or point "
            "KGAGENTS_NEO4J_URI at the local server.")
    if neo4j.database != "neo4j":
        raise BulkImportError(f"--bulk imports into the local server's one user database 'neo4j' (Community "
                              f"edition), not '{neo4j.database}'; unset KGAGENTS_NEO4J_DATABASE.")
    local = LocalNeo4j(server, neo4j)
    if local.pid() is None:
        try:
            local.status()
        except Neo4jUnavailableError:
            return local  # nothing listens: the instance is ours to start
        except (Neo4jAuthError, ForeignServerError):
            pass  # something answers with other credentials, or is another instance: not ours either
        raise BulkImportError(
            f"a Neo4j server answers on {neo4j.uri} but it is not the one kgagents started (instance "
            f"'{server.instance}', no pid in {local.pid_file}); --bulk would have to stop it and rewrite its files. "
            "Stop that server (or use another KGAGENTS_SERVER_BOLT_PORT), or load without --bulk.")
    return local


def database_contents(local: LocalNeo4j) -> dict[str, Any] | None:
    """What the database holds (node count, KG / ontology / alignment names, runs), or None when empty."""
    if not local.store_dirs()[0].exists():
        return None
    local.start()
    with Graph(local.neo4j.model_copy(update={"uri": local.bolt_uri})) as graph:
        contents = graph.run("bulk/database_contents")[0]
    return contents if contents["nodes"] else None


def _describe(contents: dict[str, Any]) -> str:
    parts = [f"{contents['nodes']:,} nodes"]
    for key in ("kgs", "ontologies", "alignments"):
        if contents[key]:
            names = ", ".join(contents[key][:10]) + (" …" if len(contents[key]) > 10 else "")
            parts.append(f"{key}: {names}")
    if contents["runs"]:
        parts.append(f"{contents['runs']} agent runs")
    return "; ".join(parts)


def check_target(local: LocalNeo4j, *, overwrite: bool) -> dict[str, Any] | None:
    """Refuse to replace a database that holds data unless ``overwrite``; returns what will be replaced."""
    contents = database_contents(local)
    if contents is not None and not overwrite:
        raise BulkImportError(
            f"the database at {local.bolt_uri} is not empty ({_describe(contents)}). A bulk import replaces the "
            "whole database (Neo4j Community: one user database, no incremental import), so all of that would be "
            "lost. Re-run with --overwrite to replace it, or load without --bulk to add to it.")
    return contents


def bulk_load(data: BulkInput, local: LocalNeo4j, *, replaced: dict[str, Any] | None,
              settings: BulkImportSettings | None = None) -> BulkLoadResult:
    """Write ``data`` as import files, import them in place of the database, build the schema, record the load.

    Call :func:`managed_server` and :func:`check_target` first (before parsing), as :func:`kgagents.cli` does.
    """
    settings = settings or BulkImportSettings()
    start = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="kgagents-bulk-", dir=settings.work_dir))
    try:
        writer = ImportFilesWriter(work)
        for kg in data.kgs:
            writer.add_kg(kg)
        if data.gold_links:
            writer.add_gold_links(data.kgs[0], data.kgs[1], data.gold_links, data.dataset or "")
        files = writer.finish()
        files_seconds = time.perf_counter() - start
        run = local.import_database(files.importer_args(), heap=settings.heap, max_off_heap=settings.max_off_heap,
                                    threads=settings.threads, high_parallel_io=settings.high_parallel_io)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    schema_start = time.perf_counter()
    with Graph(local.neo4j.model_copy(update={"uri": local.bolt_uri})) as graph:
        ensure_schema(graph)
        schema_seconds = time.perf_counter() - schema_start
        seconds = data.parse_seconds + time.perf_counter() - start
        with graph.transaction() as tx:
            for record in data.records:
                record.seconds = seconds
                record_load(tx, record)
    results = [KGLoadResult(kg=kg.name, duplicate_triples=kg.duplicate_triples, seconds=seconds, **kg.counts())
               for kg in data.kgs]
    splits = sorted({split for *_, split in data.gold_links})
    return BulkLoadResult(
        kgs=results, gold_links={s: sum(1 for *_, x in data.gold_links if x == s) for s in splits},
        nodes=files.node_count, relationships=files.relationship_count, replaced=replaced,
        parse_seconds=round(data.parse_seconds, 3), files_seconds=round(files_seconds, 3),
        import_seconds=round(run.import_seconds, 3), import_cpu_seconds=round(run.cpu_seconds, 1),
        restart_seconds=round(run.restart_seconds, 3),
        schema_seconds=round(schema_seconds, 3), seconds=round(seconds, 3),
        import_peak_rss_mib=round(run.import_peak_rss_mib, 1),
        python_peak_rss_mib=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1))


# -- inputs: each format parsed completely (and validated) before anything is imported ------------------------
def jape_input(directory: Path, *, name: str | None = None, langs: tuple[str, str] | None = None,
               train_ratio: float | None = None, split_seed: int = 0) -> BulkInput:
    """Both KGs of a JAPE pair and its gold links, as :func:`kgagents.loaders.jape.load_jape_pair` reads them."""
    from kgagents.loaders.jape import parse_jape_pair

    start = time.perf_counter()
    parsed = parse_jape_pair(directory, name=name, langs=langs, train_ratio=train_ratio, split_seed=split_seed)
    record = LoadRecord(kind="ea_pair", target=parsed.pair.name, path=str(parsed.pair.dir), sha256=parsed.sha256,
                        counts=parsed.counts())
    return BulkInput(parsed.sides, [record], parsed.gold_uris(), parsed.pair.name, time.perf_counter() - start)


def triples_input(path: Path, *, kg: str, sep: str | None = None) -> BulkInput:
    """A head|relation|tail file, as :func:`kgagents.loaders.triples.load_triples` reads it (``sep=None``:
    detected)."""
    from kgagents.loaders.record import file_sha256
    from kgagents.loaders.triples import parse_triples

    start = time.perf_counter()
    data = parse_triples(Path(path), kg=kg, sep=sep)
    record = LoadRecord(kind="kg_triples", target=kg, path=str(path), sha256=file_sha256(Path(path)),
                        counts=data.counts())
    return BulkInput([data], [record], parse_seconds=time.perf_counter() - start)


def wikidata_input(path: Path, *, kg: str = "wikidata", property_labels: Path | None = None) -> BulkInput:
    """Wikidata truthy N-Triples, streamed as :func:`kgagents.loaders.wikidata.load_wikidata_nt` reads them."""
    from kgagents.loaders.wikidata import parse_wikidata_nt, wikidata_load_record

    start = time.perf_counter()
    data = parse_wikidata_nt(Path(path), kg=kg, property_labels=property_labels)
    record = wikidata_load_record(data, Path(path), property_labels, 0.0)
    return BulkInput([data], [record], parse_seconds=time.perf_counter() - start)
