"""``kgagents embed`` and ``kgagents stats``: vectors for what is loaded, and what the graph holds."""

from __future__ import annotations

from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from kgagents.cli.common import App, connected, console, progress_bar
from kgagents.cli.output import emit_json, json_option
from kgagents.errors import KgAgentsError

#: commands of the top level (kgagents/cli/__init__.py adds them)
commands = App()

@commands.command("embed")
def embed_cmd(
    ontology: list[str] = typer.Option([], "--ontology", "-o", help="ontology name(s) to embed"),
    kg: list[str] = typer.Option([], "--kg", help="KG name(s) to embed"),
) -> None:
    """Embed entity names (label, else local name) into a vector index; unchanged texts are skipped."""
    from kgagents.embeddings import get_embedder
    from kgagents.embeddings.index import Scope, embed_nodes, ensure_vector_index
    from kgagents.loaders.unfinished import refuse_unfinished

    if not ontology and not kg:
        raise KgAgentsError("name at least one --ontology or --kg to embed")
    embedder = get_embedder()
    jobs = [(Scope.ontology(o), "Resource", "resource_embedding") for o in ontology]
    jobs += [(Scope.kg(k), "Entity", "entity_embedding") for k in kg]
    with connected() as graph:
        refuse_unfinished(graph, kg)  # a KG a batched load is still writing, or left half-written
        for scope, label, index in jobs:
            ensure_vector_index(graph, name=index, label=label, property="embedding", dimensions=embedder.dimensions)
            with progress_bar(f"embedding {scope.value} with {embedder.name}") as advance:
                stats = embed_nodes(graph, embedder, scope=scope, text_properties=[("label", "name")],
                                    vector_property="embedding", progress=advance)
            console.print(f"{scope.value}: {stats.embedded} embedded, {stats.unchanged} unchanged, "
                          f"{stats.empty} without text ({stats.seconds:.1f}s); index '{index}'")


@commands.command("stats")
def stats_cmd(as_json: bool = json_option()) -> None:
    """What is in the graph: ontologies, KGs, loads, vector indexes, runs."""
    from kgagents.graph.runs import RunStore

    with connected() as graph:
        sections = {title: graph.run(query) for title, query in _SECTIONS.items()}
        RunStore(graph).reap()
        runs = graph.run("stats/runs")
        if as_json:
            emit_json({**{title.replace(" ", "_"): rows for title, rows in sections.items()}, "runs": runs})
            return
        for title, rows in sections.items():
            if not rows:
                console.print(f"[dim]{title}: none[/dim]")
                continue
            table = Table(title=title)
            for column in rows[0]:  # names in full: they are what other commands take
                table.add_column(column, no_wrap=column in ("ontology", "kg", "name"), overflow="fold")
            for row in rows:
                table.add_row(*[str(v) for v in row.values()])
            console.print(table)
        _print_unfinished(graph)
    _print_runs(runs)


#: the sections of `kgagents stats` (title → query); the runs follow
_SECTIONS = {"ontologies": "stats/ontologies", "knowledge graphs": "stats/kgs",
             "vector indexes": "stats/vector_indexes"}


def _run_facts(row: dict[str, Any]) -> str:
    """A run's status, subject, score, time and mode as one short line."""
    score = f"{row['metric'] or 'score'} {row['score']:.4g}" if row.get("score") is not None else None
    seconds = f"{row['seconds']:.1f} s" if row.get("seconds") is not None else None
    mode = ", ".join(str(v) for v in (row.get("mode"), row.get("model")) if v)
    return " · ".join(str(v) for v in (row.get("status"), row.get("on"), score, seconds, mode) if v)


def _print_unfinished(graph: Any) -> None:
    """Batched loads that are running or died half-way: the counts above include what they wrote so far."""
    from kgagents.loaders.unfinished import left_behind, unfinished_loads

    for load in unfinished_loads(graph):
        left = left_behind(graph, load.id, load.kgs)
        written = f"{left['entities']:,} entities so far"
        kgs = ", ".join(load.kgs)
        if load.alive:
            console.print("[yellow]note:[/yellow] " + escape(f"{load.describe()} is running: {kgs} incomplete "
                                                            f"({written}) until it finishes"), highlight=False)
        else:
            console.print("[red]warning:[/red] " + escape(
                f"{load.describe()} stopped before it finished: {kgs} holds its partial data ({written}), which "
                f"every other command refuses; remove it with `kgagents load repair {load.target}`"), highlight=False)


def _print_runs(rows: list[dict[str, Any]]) -> None:
    """One line per run, not a table: ten columns never fit an 80-column terminal, and the run id must stay whole
    (other commands take it)."""
    if not rows:
        console.print("[dim]runs: none[/dim]")
        return
    console.print("[italic]runs (newest first)[/italic]")
    for row in rows:
        console.print(f"  [bold]{row['run']}[/bold] {_run_facts(row)}", highlight=False)
        if row.get("error"):
            console.print(f"    [red]error:[/red] {row['error']}", highlight=False)
