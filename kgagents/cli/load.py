"""``kgagents load``: files into the graph (ontologies, alignments, knowledge graphs)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from kgagents.cli.common import App, connected, console, progress_bar
from kgagents.errors import KgAgentsError

app = App(help="Load files into the graph (transactional, idempotent).")


class KGFormat(str, Enum):
    jape = "jape"
    triples = "triples"
    wikidata = "wikidata"


@app.command("ontology")
def load_ontology_cmd(path: Path, name: str = typer.Option(
                          None, help="ontology name (default: the file stem in lower case; a default name another "
                          "file's ontology has is refused; an explicit one replaces what is loaded under it)"),
                      format: str = typer.Option(None, help="xml | turtle | nt (default: from extension)")) -> None:
    """An OWL/RDF ontology into the n10s ontology model."""
    from kgagents.loaders.ontology import parse_ontology, write_ontology

    parsed = parse_ontology(path, name=name, format=format)
    with connected() as graph, progress_bar(f"loading {parsed.name}", parsed.row_count) as advance:
        result = write_ontology(graph, parsed, progress=advance, replace=name is not None)
    console.print(f"{result.name}: {result.classes} classes, {result.object_properties} object properties, "
                  f"{result.datatype_properties} datatype properties, {result.triples} triples "
                  f"in {result.seconds:.1f}s")


@app.command("alignment")
def load_alignment_cmd(path: Path, name: str = typer.Option(None, help="alignment name (default: file stem)")) -> None:
    """An Alignment API RDF/XML file (e.g. an OAEI reference) as ALIGNED links."""
    from kgagents.loaders.alignment import load_alignment

    with connected() as graph, progress_bar(f"loading {path.name}") as advance:
        result = load_alignment(graph, path, name=name, progress=advance)
    console.print(f"{result.name}: {result.cells} cells, {result.linked} linked, {len(result.missing)} with "
                  "entities not in the graph")


@app.command("kg")
def load_kg_cmd(path: Path, format: KGFormat = typer.Option(..., "--format", help="jape | triples | wikidata"),
                name: str = typer.Option(None, help="KG (or pair) name; default from the path"),
                langs: str = typer.Option(None, help="jape: the two sides' languages, e.g. zh,en (default: from the "
                                          "directory name or the ent_ids_<n>_<lang> files)"),
                train_ratio: float = typer.Option(None, help="jape: split all gold links at random into this share "
                                                  "of train links (the rest test), instead of the split files"),
                split_seed: int = typer.Option(0, help="jape: seed of the --train-ratio split"),
                sep: str = typer.Option(None, "--sep", help="triples only: field separator, '\\t' (or 'tab') "
                                        "or '|'; default: detected from the first line"),
                property_labels: Path = typer.Option(None, help="wikidata: TSV of PID<TAB>label lines (they "
                                                                "override labels found in the dump)"),
                bulk: bool = typer.Option(False, "--bulk", help="Neo4j's offline importer: fast, but REPLACES the "
                                                                "whole local database (see README)"),
                overwrite: bool = typer.Option(False, "--overwrite", help="with --bulk: replace a database that "
                                                                          "holds data"),
                batched: bool = typer.Option(False, "--batched", help="committed batches: for a KG larger than one "
                                             "transaction; all-or-nothing all the same (see README)"),
                batch_size: int = typer.Option(None, "--batch-size", min=1, help="with --batched: statements per "
                                               "batch (default 20,000)")) -> None:
    """A knowledge graph: a JAPE entity-alignment directory, a head|rel|tail file, or Wikidata N-Triples."""
    from kgagents.loaders.jape import load_jape_pair
    from kgagents.loaders.triples import SEPARATORS, detect_separator, load_triples
    from kgagents.loaders.wikidata import load_wikidata_nt

    if property_labels is not None and format is not KGFormat.wikidata:
        raise KgAgentsError("--property-labels only applies to --format wikidata")
    if overwrite and not bulk:
        raise KgAgentsError("--overwrite only applies to --bulk (a transactional load adds to the database)")
    if format is KGFormat.triples:
        given = {"\\t": "\t", "tab": "\t"}.get(sep, sep) if sep is not None else None
        sep = given if given is not None else detect_separator(path)
        console.print(f"separator: {SEPARATORS.get(sep, repr(sep))} ({'given' if given is not None else 'detected'})")
    two_langs = _two_langs(langs) if langs else None
    if batch_size is not None and not batched:
        raise KgAgentsError("--batch-size only applies to --batched")
    if batched and bulk:
        raise KgAgentsError("choose one of --batched (adds to the database in committed batches) and --bulk "
                            "(replaces the database)")
    if batched:
        _batched_load_kg(path, format, name, langs=two_langs, train_ratio=train_ratio, split_seed=split_seed,
                         sep=sep, property_labels=property_labels, batch_size=batch_size)
        return
    if bulk:
        _bulk_load_kg(path, format, name, overwrite, langs=two_langs, train_ratio=train_ratio,
                      split_seed=split_seed, sep=sep, property_labels=property_labels)
        return
    gold: dict[str, int] = {}
    with connected() as graph, progress_bar(f"loading {path.name}") as advance:
        if format is KGFormat.jape:
            pair = load_jape_pair(graph, path, name=name, progress=advance, train_ratio=train_ratio,
                                  split_seed=split_seed, langs=two_langs)
            results, gold = pair.kgs, pair.gold_links
        elif format is KGFormat.triples:
            results = [load_triples(graph, path, kg=name or path.stem, sep=sep, progress=advance)]
        else:
            results = [load_wikidata_nt(graph, path, kg=name or "wikidata", property_labels=property_labels,
                                        progress=advance)]
    _print_kg_loads(results, gold)


def _batched_load_kg(path: Path, format: KGFormat, name: str | None, *, langs: tuple[str, str] | None,
                     train_ratio: float | None, split_seed: int, sep: str | None, property_labels: Path | None,
                     batch_size: int | None) -> None:
    """Read the input lazily and write it in committed batches (kgagents.loaders.batched)."""
    from kgagents.loaders.batched import BATCH_SIZE, jape_source, load_batched, triples_source, wikidata_source

    if format is KGFormat.jape:
        source = jape_source(path, name=name, langs=langs, train_ratio=train_ratio, split_seed=split_seed)
    elif format is KGFormat.triples:
        source = triples_source(path, kg=name or path.stem, sep=sep)
    else:
        source = wikidata_source(path, kg=name or "wikidata", property_labels=property_labels)
    with connected() as graph, progress_bar(f"loading {path.name} in batches") as advance:
        result = load_batched(graph, source, batch_size=batch_size or BATCH_SIZE, progress=advance)
    for dead in result.cleaned:
        console.print(f"removed what the interrupted load {escape(dead)} had written")
    if result.skipped:
        console.print(f"{escape(result.load_id)}: these files are loaded already; nothing to do")
    _print_kg_loads(result.kgs, result.gold_links)


def _print_kg_loads(results: list[Any], gold: dict[str, int]) -> None:
    """One row per loaded KG (counts right-aligned), then the gold links of a pair per split."""
    table = Table(title="loaded")
    columns = ("entities", "relations", "triples", "literals", "duplicate_triples")
    table.add_column("kg", no_wrap=True)
    for column in (*columns, "seconds"):
        table.add_column(column.replace("_", " "), justify="right")
    for r in results:
        table.add_row(escape(r.kg), *(f"{getattr(r, c):,}" for c in columns), f"{r.seconds:.1f}")
    console.print(table)
    if gold:
        console.print("gold links: " + ", ".join(f"{split} {n:,}" for split, n in gold.items()))


def _two_langs(text: str) -> tuple[str, str]:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2:
        raise KgAgentsError(f"--langs wants two language codes separated by a comma (e.g. zh,en), got {text!r}")
    return parts[0], parts[1]


def _bulk_load_kg(path: Path, format: KGFormat, name: str | None, overwrite: bool, *,
                  langs: tuple[str, str] | None, train_ratio: float | None, split_seed: int, sep: str | None,
                  property_labels: Path | None) -> None:
    """Check the target, parse everything, then import offline (kgagents.loaders.bulk)."""
    from kgagents.config import LocalServerSettings, Neo4jSettings
    from kgagents.loaders.bulk import bulk_load, check_target, jape_input, managed_server, triples_input, wikidata_input

    local = managed_server(Neo4jSettings(), LocalServerSettings())
    with console.status(f"checking the database at {local.bolt_uri}…"):
        replaced = check_target(local, overwrite=overwrite)
    with console.status(f"parsing {path}…"):
        if format is KGFormat.jape:
            data = jape_input(path, name=name, langs=langs, train_ratio=train_ratio, split_seed=split_seed)
        elif format is KGFormat.triples:
            data = triples_input(path, kg=name or path.stem, sep=sep)
        else:
            data = wikidata_input(path, kg=name or "wikidata", property_labels=property_labels)
    with console.status("writing import files, importing offline, restarting Neo4j, building the schema…"):
        result = bulk_load(data, local, replaced=replaced)
    _print_kg_loads(result.kgs, result.gold_links)
    console.print(escape(f"bulk: {result.nodes:,} nodes, {result.relationships:,} relationships in "
                         f"{result.seconds:.1f}s (parse {result.parse_seconds:.1f}, CSV {result.files_seconds:.1f}, "
                         f"import {result.import_seconds:.1f}, restart {result.restart_seconds:.1f}, schema "
                         f"{result.schema_seconds:.1f}); importer peak {result.import_peak_rss_mib:,.0f} MiB"))
    if result.replaced:
        console.print(f"replaced the previous database ({result.replaced['nodes']:,} nodes)")
