"""The ``kgagents`` command line. Every command that fails on purpose prints a message, not a trace."""

from __future__ import annotations

import functools
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


def _llm_or_none(no_llm: bool) -> Any:
    """The configured chat model, or None — saying so plainly — when there is none (no-LLM ablation)."""
    if no_llm:
        return None
    from kgagents.llm import resolve_chat_model

    try:
        return resolve_chat_model()
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
                name: str = typer.Option(None, help="KG (or pair) name; default from the path")) -> None:
    """A knowledge graph: a JAPE entity-alignment directory, a head|rel|tail file, or Wikidata N-Triples."""
    from kgagents.loaders.jape import load_jape_pair
    from kgagents.loaders.triples import load_triples
    from kgagents.loaders.wikidata import load_wikidata_nt

    with connected() as graph, progress_bar(f"loading {path.name}") as advance:
        if format is KGFormat.jape:
            pair = load_jape_pair(graph, path, name=name, progress=advance)
            results = pair.kgs
        elif format is KGFormat.triples:
            results = [load_triples(graph, path, kg=name or path.stem, progress=advance)]
        else:
            results = [load_wikidata_nt(graph, path, kg=name or "wikidata", progress=advance)]
    for r in results:
        console.print(r.model_dump_json() if hasattr(r, "model_dump_json") else str(r))


# -- embed and stats ------------------------------------------------------------------------------------
@app.command("embed")
@friendly
def embed_cmd(
    ontology: list[str] = typer.Option([], "--ontology", "-o", help="ontology name(s) to embed"),
    kg: list[str] = typer.Option([], "--kg", help="KG name(s) to embed"),
) -> None:
    """Embed entity names (label, else local name) into a vector index; unchanged texts are skipped."""
    from kgagents.embeddings import get_embedder
    from kgagents.embeddings.index import Scope, embed_nodes, ensure_vector_index

    if not ontology and not kg:
        raise KgAgentsError("name at least one --ontology or --kg to embed")
    embedder = get_embedder()
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
            for column in rows[0]:
                table.add_column(column)
            for row in rows:
                table.add_row(*[str(v) for v in row.values()])
            console.print(table)


# -- matching -------------------------------------------------------------------------------------------
def _match_settings(no_llm: bool, threshold: float | None, top_k: int | None, context: str) -> Any:
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
    context: str = typer.Option("conference", help="domain context given to the LLM"),
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
    from kgagents.jobs.matching import match_pair

    chat = _llm_or_none(no_llm)
    settings = _match_settings(chat is None, threshold, top_k, context)
    model = chat.model_name if chat is not None else "none (no-LLM ablation)"
    with connected() as graph:
        names = [_ontology_argument(graph, arg, name) for arg, name in ((source, source_name), (target, target_name))]
        stages = ["prematch", "texts", "embed", "retrieve", "validate", "merge", "propagate", "write"]
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=console) as bar:
            task = bar.add_task(escape(f"matching {names[0]} → {names[1]} [{settings.mode}, {model}]"),
                                total=len(stages))
            queue_task: list[Any] = []

            def on_update(node: str, values: dict[str, Any]) -> None:
                if node == "retrieve" and "queue" in values:
                    queue_task.append(bar.add_task("validating candidates", total=len(values["queue"])))
                if node == "validate" and queue_task:
                    done = bar.tasks[queue_task[0]].total - len(values.get("queue", []))
                    bar.update(queue_task[0], completed=done)
                if node != "validate":
                    bar.advance(task, 1)

            saver_cm = _checkpointer(checkpoint)
            with saver_cm as saver:
                run = match_pair(graph, names[0], names[1], settings, chat=chat, reference=reference,
                                 checkpointer=saver, on_update=on_update)
        console.print(escape(f"run {run.run_id}: {len(run.pairs)} matches [{settings.mode}, model: {model}] "
                             f"in {run.seconds:.1f}s, {run.llm_calls} LLM calls"))
        if run.scores is not None:
            s = run.scores
            console.print(f"P={s.precision:.4f} R={s.recall:.4f} F1={s.f1:.4f} (tp={s.tp} fp={s.fp} fn={s.fn})")
        if out is not None:
            export_alignment(graph, run.run_id, names[0], names[1], out)
            console.print(f"alignment written to {out}")
        console.print(escape(f"query them: MATCH (s)-[m:MATCHES {{run_id: '{run.run_id}'}}]->(t) "
                             "RETURN s.uri, t.uri, m.score"))


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
    settings = _match_settings(chat is None, None, None, "conference" if dataset == "conference" else "anatomy")
    model = chat.model_name if chat is not None else "none (no-LLM ablation)"
    with connected() as graph:
        if dataset == "conference":
            with progress_bar(escape(f"conference pairs [{settings.mode}]"), len(pair) or 21) as advance:
                result = om_runner.conference(graph, settings, chat=chat, model=model, out=out, pairs=pair,
                                              on_pair=lambda run: advance(1))
            console.print(f"macro F1 {result['macro']['f1']:.4f}, micro F1 {result['micro']['f1']:.4f}")
        elif dataset == "anatomy":
            with console.status(escape(f"anatomy [{settings.mode}]")):
                result = om_runner.anatomy(graph, settings, chat=chat, model=model, out=out, repeat=repeat)
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

    with connected() as graph, console.status("loading, embedding, tuning on train links, retrieving…"):
        result = ea_runner.benchmark(graph, directory, out)
    fused = result["scores"]["fused"]["test/all_links"]
    console.print(f"run {result['run_id']}: Hits@1 {fused['hits_at_1']:.4f}, Hits@10 {fused['hits_at_10']:.4f}, "
                  f"MRR {fused['mrr']:.4f} on {result['test_links']} test links")


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
    from kgagents.agent.alignment.agent import AgentSettings
    from kgagents.agent.alignment.export import write_pairs
    from kgagents.jobs.alignment import align

    chat = _llm_or_none(mode == "no_llm")
    if chat is None:
        mode = "no_llm"
    with connected() as graph:
        model = chat.model_name if chat is not None else "no-llm"
        with console.status(escape(f"aligning [{mode}, {model}]…")):
            result = align(graph, chat, dataset=dataset, retrieval_run_id=retrieval_run,
                           settings=AgentSettings(mode=mode), sample=sample, seed=seed,
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


# -- embedded LLM -----------------------------------------------------------------------------------------
@llm_app.command("start")
@friendly
def llm_start() -> None:
    """Start the embedded model's OpenAI-compatible server on 127.0.0.1 (harmless if running)."""
    from kgagents.llm.local_server import LocalLLMServer

    with console.status("starting the embedded chat model…"):
        status = LocalLLMServer().start()
    console.print(f"{status.model} at {status.base_url} (pid {status.pid})")


@llm_app.command("stop")
@friendly
def llm_stop() -> None:
    """Stop the embedded model's server."""
    from kgagents.llm.local_server import LocalLLMServer

    console.print("stopped" if LocalLLMServer().stop() else "not running")


@llm_app.command("status")
@friendly
def llm_status() -> None:
    """Whether the embedded model's server runs, and which model it serves."""
    from kgagents.llm.local_server import LocalLLMServer

    status = LocalLLMServer().status()
    console.print(f"{status.model} at {status.base_url} (pid {status.pid})" if status.running else "not running")


# -- demo ---------------------------------------------------------------------------------------------------
@app.command("demo")
@friendly
def demo(data: Path = typer.Option(None, help="shared data directory (default ../shared/data)")) -> None:
    """Load two OAEI conference ontologies, embed them, and show a vector kNN query in Cypher."""
    from kgagents.cypher import cypher
    from kgagents.paths import data_dir

    onto = (data or data_dir()) / "om" / "conference" / "ontologies"
    for path in (onto / "cmt.owl", onto / "confof.owl"):
        load_ontology_cmd(path, name=path.stem.lower(), format=None)
    embed_cmd(ontology=["cmt", "confof"], kg=[])
    query = cypher("demo/knn")
    console.print("[bold]Cypher:[/bold]")
    console.print(query, markup=False, highlight=False)
    with connected() as graph:
        rows = graph.run("demo/knn", source="cmt", target="confof", k=3)
    table = Table(title="nearest confOf classes for cmt classes (cosine)")
    for column in ("cmt class", "confOf neighbours"):
        table.add_column(column)
    for row in rows:
        table.add_row(row["source"], ", ".join(f"{n} ({c:.2f})" for n, c in row["neighbours"]))
    console.print(table)


if __name__ == "__main__":
    app()
