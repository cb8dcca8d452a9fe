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
from kgagents.loaders.batched import BATCH_SIZE

app = App(help="Load files into the graph (transactional, idempotent).")


class KGFormat(str, Enum):
    jape = "jape"
    triples = "triples"
    wikidata = "wikidata"


@app.command("ontology")
def load_ontology_cmd(path: Path, name: str = typer.Option(
                          None, help="ontology name (default: the file stem in lower case; a default name another "
                          "file's ontology has is refused; an explicit one replaces what is loaded under it)"),
                      format: str = typer.Option(
                          None, help="xml | turtle | nt | json-ld | obo (default: by extension)"),
                      ) -> None:
    """An ontology (OWL/RDF, OBO, or a SKOS thesaurus) into the n10s ontology model."""
    from kgagents.loaders.ontology import parse_ontology, write_ontology

    parsed = parse_ontology(path, name=name, format=format)
    with connected() as graph, progress_bar(f"loading {parsed.name}", parsed.row_count) as advance:
        result = write_ontology(graph, parsed, progress=advance, replace=name is not None)
    console.print(f"{result.name}: {result.classes} classes, {result.object_properties} object properties, "
                  f"{result.datatype_properties} datatype properties, {result.triples} triples "
                  f"in {result.seconds:.1f}s")
    for note in result.notes():
        console.print(note, style="yellow", markup=False)


@app.command("alignment")
def load_alignment_cmd(path: Path, name: str = typer.Option(None, help="alignment name (default: file stem)")) -> None:
    """An Alignment API RDF/XML file (e.g. an OAEI reference) or an SSSOM TSV mapping set as ALIGNED links."""
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
                batch_size: int = typer.Option(None, "--batch-size", help="with --batched: statements per batch "
                                               f"(default {BATCH_SIZE:,})"),
                parallel: int = typer.Option(None, "--parallel", help="with --batched: statement transactions "
                                             "in flight at once (default 2)")) -> None:
    """A knowledge graph: a JAPE entity-alignment directory, a head|rel|tail file, or Wikidata N-Triples."""
    from kgagents.jobs.loading import Method, load_kg

    if batched and bulk:
        raise KgAgentsError("choose one of --batched (adds to the database in committed batches) and --bulk "
                            "(replaces the database)")
    method: Method = "bulk" if bulk else "batched" if batched else "transactional"
    given_sep = {"\\t": "\t", "tab": "\t"}.get(sep, sep) if sep is not None else None
    with progress_bar(f"loading {path.name}" + (" in batches" if batched else "")) as advance:
        report = load_kg(path, format.value, method=method, name=name, langs=_two_langs(langs) if langs else None,
                         train_ratio=train_ratio, split_seed=split_seed, sep=given_sep,
                         property_labels=property_labels, overwrite=overwrite, batch_size=batch_size,
                         parallel=parallel, progress=advance, stage=_say)
    _print_kg_load(report)


def _say(text: str) -> None:
    console.print(escape(text), highlight=False)


@app.command("repair")
def repair_cmd(name: str = typer.Argument(None, help="the KG (or JAPE pair) whose dead loads to remove; default: all")
               ) -> None:
    """Remove what batched loads that died (kill -9, a crash, the server down, a second Ctrl-C) left in the graph;
    loads still running are left alone. `kgagents neo4j start` does this too."""
    from kgagents.loaders.unfinished import repair_loads, unfinished_loads

    with connected() as graph:
        removed = repair_loads(graph, name, say=_say)
        running = [load for load in unfinished_loads(graph) if load.alive]
    for done in removed:
        _say(done.line())
    for load in running:
        _say(f"still running, left alone: {load.describe()}")
    if not removed:
        _say("no dead batched load" + (f" of '{name}'" if name else "") + ": nothing to remove")


@app.command("wikidata-tables")
def load_wikidata_tables_cmd(
    triples: list[Path] = typer.Argument(..., help="head<TAB>property<TAB>tail files (QIDs and PIDs), read as one KG"),
    name: str = typer.Option(..., "--name", help="KG name"),
    relation_labels: Path = typer.Option(None, help="property labels: JSON {PID: label | {label, description}} or "
                                         "TSV PID<TAB>label[<TAB>description]"),
    entity_labels: Path = typer.Option(None, help="entity labels, in the same shapes"),
    entity_types: Path = typer.Option(None, help="JSON {QID: [type QID, …]} (the types' labels: --type-labels)"),
    type_labels: Path = typer.Option(None, help="labels of the entity types, in the label shapes"),
) -> None:
    """A Wikidata subgraph as id triple tables with separate label tables (CoDEx's shape): one KG, written in one
    transaction after every file was read."""
    from kgagents.loaders.wikidata_tables import load_tables

    with connected() as graph, progress_bar(f"loading {len(triples)} triple file(s) as {name}") as advance:
        result = load_tables(graph, triples, kg=name, relation_labels=relation_labels, entity_labels=entity_labels,
                             entity_types=entity_types, type_labels=type_labels, progress=advance)
    console.print(f"{name}: {result.entities} entities ({result.labelled_entities} with a label, "
                  f"{result.typed_entities} with types), {result.relations} relations, {result.triples} triples "
                  f"({result.duplicate_triples} duplicates) in {result.seconds:.1f} s")
    if result.unlabelled_relations:
        shown = ", ".join(result.unlabelled_relations[:8]) + (" …" if len(result.unlabelled_relations) > 8 else "")
        console.print(f"[yellow]note:[/yellow] {len(result.unlabelled_relations)} relation(s) have no label "
                      f"({escape(shown)}): their ids are their names, and KGQA reads them as written; give "
                      "--relation-labels FILE to have them read as words")


def _print_kg_load(report: Any) -> None:
    """The separator read, the method's own lines, one row per loaded KG, the gold links of a pair."""
    from kgagents.loaders.triples import SEPARATORS

    if report.separator is not None:
        console.print(f"separator: {SEPARATORS.get(report.separator, repr(report.separator))} "
                      f"({'detected' if report.separator_detected else 'given'})")
    if report.batched is not None:
        for line in report.batched.cleaned_lines:
            console.print(escape(line), highlight=False)
        if report.batched.skipped:
            console.print(f"{escape(report.batched.load_id)}: these files are loaded already; nothing to do")
    table = Table(title="loaded")
    columns = ("entities", "relations", "triples", "literals", "duplicate_triples")
    table.add_column("kg", no_wrap=True)
    for column in (*columns, "seconds"):
        table.add_column(column.replace("_", " "), justify="right")
    for r in report.kgs:
        table.add_row(escape(r.kg), *(f"{getattr(r, c):,}" for c in columns), f"{r.seconds:.1f}")
    console.print(table)
    for r in report.kgs:
        if r.derived_types:
            console.print(escape(f"{r.kg}: {r.derived_types:,} relation or attribute names could be no relationship "
                                 "type (empty, whitespace, control characters); stored as rel_<hash>, the original "
                                 "URI kept (Relation.id, the relationship's rel)"))
    if report.gold_links:
        console.print("gold links: " + ", ".join(f"{split} {n:,}" for split, n in report.gold_links.items()))
    result = report.bulk
    if result is not None:
        console.print(escape(f"bulk: {result.nodes:,} nodes, {result.relationships:,} relationships in "
                             f"{result.seconds:.1f}s (parse {result.parse_seconds:.1f}, CSV "
                             f"{result.files_seconds:.1f}, import {result.import_seconds:.1f}, restart "
                             f"{result.restart_seconds:.1f}, schema {result.schema_seconds:.1f}); importer peak "
                             f"{result.import_peak_rss_mib:,.0f} MiB"))
        if result.replaced:
            console.print(f"replaced the previous database ({result.replaced['nodes']:,} nodes)")


def _two_langs(text: str) -> tuple[str, str]:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2:
        raise KgAgentsError(f"--langs wants two language codes separated by a comma (e.g. zh,en), got {text!r}")
    return parts[0], parts[1]
