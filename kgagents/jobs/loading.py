"""Loading a knowledge graph — what ``kgagents load kg`` asks for — in one of three ways:

* ``transactional`` (default): the whole file in one transaction; adds to the database, idempotent
  (:mod:`kgagents.loaders.jape`, :mod:`~kgagents.loaders.triples`, :mod:`~kgagents.loaders.wikidata`);
* ``batched``: streamed and written in committed batches, still all-or-nothing for the user, for a KG larger
  than one transaction (:mod:`kgagents.loaders.batched`);
* ``bulk``: Neo4j's offline importer; fastest, but it REPLACES the local database (:mod:`kgagents.loaders.bulk`).

Options that do not apply to the format or the method are refused before anything is read or written, so a
mistyped command never half-loads. ``graph`` is a :class:`~kgagents.graph.Graph`, a ``neo4j.Driver``, a URI or
``None`` (the configured database); a bulk load only uses it to know which local server to replace.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from kgagents.config import LocalServerSettings, Neo4jSettings
from kgagents.errors import KgAgentsError
from kgagents.graph.connection import Graph, GraphLike, connect
from kgagents.graph.schema import ensure_schema
from kgagents.loaders.batched import BatchedLoadResult, BatchedSource
from kgagents.loaders.bulk import BulkInput, BulkLoadResult
from kgagents.loaders.kg_common import KGLoadResult, Progress

Format = Literal["jape", "triples", "wikidata"]
Method = Literal["transactional", "batched", "bulk"]
Stage = Callable[[str], None]


class LoadOptionsError(KgAgentsError, ValueError):
    """An option that does not apply to the chosen format or method (nothing was read or written)."""


class KGLoadReport(BaseModel):
    """What one ``load kg`` did: the KGs as loaded, gold links of a pair, and the method's own account."""

    method: Method
    kgs: list[KGLoadResult]
    gold_links: dict[str, int] = {}
    separator: str | None = None  # triples: the field separator read
    separator_detected: bool = False
    batched: BatchedLoadResult | None = None  # batched: batches, phases, dead loads cleaned, skipped
    bulk: BulkLoadResult | None = None  # bulk: nodes, relationships, phases, importer memory, what it replaced


def load_kg(path: Path | str, format: Format, *, method: Method = "transactional", name: str | None = None,
            langs: tuple[str, str] | None = None, train_ratio: float | None = None, split_seed: int = 0,
            sep: str | None = None, property_labels: Path | None = None, overwrite: bool = False,
            batch_size: int | None = None, parallel: int | None = None, graph: GraphLike | None = None,
            progress: Progress | None = None, stage: Stage | None = None) -> KGLoadReport:
    """Load the KG at ``path`` (a JAPE directory, a head|relation|tail file, Wikidata truthy N-Triples).

    ``name``: the KG (or pair) name, default from the path; ``langs`` / ``train_ratio`` / ``split_seed``: JAPE;
    ``sep``: triples (default detected); ``property_labels``: Wikidata; ``overwrite``: bulk; ``batch_size`` /
    ``parallel``: batched. ``progress(n)`` is called as statements are written, ``stage(text)`` as a bulk load
    moves from one phase to the next and as a batched load removes dead loads' data or its own after a failure.
    """
    path = Path(path)
    _check(format, method, langs=langs, train_ratio=train_ratio, sep=sep, property_labels=property_labels,
           overwrite=overwrite, batch_size=batch_size, parallel=parallel)
    if format == "wikidata" and method != "transactional" and path.suffix.lower() in (".ttl", ".turtle"):
        raise LoadOptionsError("a Turtle file loads in one transaction (leave out --batched / --bulk), or convert "
                               "it to N-Triples first for the streamed methods")
    separator, detected = None, False
    if format == "triples":
        from kgagents.loaders.triples import detect_separator

        separator, detected = (sep, False) if sep is not None else (detect_separator(path), True)
    options = {"name": name, "langs": langs, "train_ratio": train_ratio, "split_seed": split_seed,
               "sep": separator, "property_labels": property_labels}
    if method == "bulk":
        report = _bulk(path, format, options, overwrite, graph, stage or (lambda _: None))
    else:
        opened = graph is None or not isinstance(graph, Graph)
        target = Graph() if graph is None else connect(graph)
        try:
            ensure_schema(target)
            if method == "batched":
                report = _batched(target, _source(path, format, options), batch_size, parallel, progress, stage)
            else:
                report = _transactional(target, path, format, options, progress)
        finally:
            if opened:
                target.close()
    return report.model_copy(update={"separator": separator, "separator_detected": detected})


def _check(format: Format, method: Method, *, langs: tuple[str, str] | None, train_ratio: float | None,
           sep: str | None, property_labels: Path | None, overwrite: bool, batch_size: int | None,
           parallel: int | None) -> None:
    for given, option, wanted in ((langs is not None, "--langs", "jape"), (train_ratio is not None,
                                  "--train-ratio", "jape"), (sep is not None, "--sep", "triples"),
                                  (property_labels is not None, "--property-labels", "wikidata")):
        if given and format != wanted:
            raise LoadOptionsError(f"{option} only applies to --format {wanted}")
    if overwrite and method != "bulk":
        raise LoadOptionsError("--overwrite only applies to --bulk (the other methods add to the database)")
    for value, option in ((batch_size, "--batch-size"), (parallel, "--parallel")):
        if value is not None and method != "batched":
            raise LoadOptionsError(f"{option} only applies to --batched")
        if value is not None and value < 1:
            raise LoadOptionsError(f"{option} must be at least 1, got {value}")


def _read(path: Path, format: Format, options: dict[str, Any], jape: Callable[..., Any],
          triples: Callable[..., Any], wikidata: Callable[..., Any]) -> Any:
    """Call the format's function with the options that belong to it: a JAPE pair its name (default: the
    directory's), languages and split; a triples file its KG name (default: the file stem) and separator; a
    Wikidata dump its KG name (default ``wikidata``) and property labels."""
    if format == "jape":
        return jape(path, name=options["name"], langs=options["langs"], train_ratio=options["train_ratio"],
                    split_seed=options["split_seed"])
    if format == "triples":
        return triples(path, kg=options["name"] or path.stem, sep=options["sep"])
    return wikidata(path, kg=options["name"] or "wikidata", property_labels=options["property_labels"])


def _transactional(graph: Graph, path: Path, format: Format, options: dict[str, Any],
                   progress: Progress | None) -> KGLoadReport:
    from kgagents.loaders.jape import load_jape_pair
    from kgagents.loaders.triples import load_triples
    from kgagents.loaders.wikidata import load_wikidata_nt

    result = _read(path, format, options, *(partial(load, graph, progress=progress)
                                            for load in (load_jape_pair, load_triples, load_wikidata_nt)))
    if format == "jape":
        return KGLoadReport(method="transactional", kgs=result.kgs, gold_links=result.gold_links)
    return KGLoadReport(method="transactional", kgs=[result])


def _source(path: Path, format: Format, options: dict[str, Any]) -> BatchedSource:
    from kgagents.loaders.batched import jape_source, triples_source, wikidata_source

    source: BatchedSource = _read(path, format, options, jape_source, triples_source, wikidata_source)
    return source


def _batched(graph: Graph, source: BatchedSource, batch_size: int | None, parallel: int | None,
             progress: Progress | None, stage: Stage | None) -> KGLoadReport:
    from kgagents.loaders.batched import BATCH_SIZE, PARALLEL, load_batched

    result = load_batched(graph, source, batch_size=batch_size or BATCH_SIZE, parallel=parallel or PARALLEL,
                          progress=progress, say=stage)
    return KGLoadReport(method="batched", kgs=result.kgs, gold_links=result.gold_links, batched=result)


def _bulk(path: Path, format: Format, options: dict[str, Any], overwrite: bool, graph: GraphLike | None,
          stage: Stage) -> KGLoadReport:
    """Check the target, parse everything, then import offline (the order :mod:`kgagents.loaders.bulk` needs)."""
    from kgagents.loaders.bulk import bulk_load, check_target, jape_input, managed_server, triples_input, wikidata_input

    neo4j = Neo4jSettings() if graph is None else connect(graph).settings
    local = managed_server(neo4j, LocalServerSettings())
    stage(f"checking the database at {local.bolt_uri}…")
    replaced = check_target(local, overwrite=overwrite)
    stage(f"parsing {path}…")
    data: BulkInput = _read(path, format, options, jape_input, triples_input, wikidata_input)
    stage("writing import files, importing offline, restarting Neo4j, building the schema…")
    result = bulk_load(data, local, replaced=replaced)
    return KGLoadReport(method="bulk", kgs=result.kgs, gold_links=result.gold_links, bulk=result)
