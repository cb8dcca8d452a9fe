"""``kgagents demo``: every job on a small real slice, read back from Neo4j."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from kgagents.cli.common import App, chat_or_none, connected, console, progress_bar
from kgagents.errors import KgAgentsError

#: commands of the top level (kgagents/cli/__init__.py adds them)
commands = App()

@commands.command("demo")
def demo(
    data: Path = typer.Option(None, help="benchmark data folder (default: KGAGENTS_DATA_DIR, else ../shared/data "
                              "beside a source checkout, else ~/.cache/kgagents/data)"),
    job: list[str] = typer.Option([], "--job",
                                  help="run only these jobs (matching, alignment, kgqa, extraction); default all"),
    no_llm: bool = typer.Option(False, "--no-llm", help="run every job's no-LLM ablation even if a model is set"),
) -> None:
    """Every job on a small real slice (matching, alignment, KGQA, extraction), scored; the summary is read back
    from Neo4j."""
    import tempfile

    from kgagents.config import LocalServerSettings, Neo4jSettings
    from kgagents.jobs.demo import JOBS, check_data, run_demo
    from kgagents.paths import data_dir

    unknown = sorted(set(job) - set(JOBS))
    if unknown:
        raise KgAgentsError(f"unknown demo job(s) {', '.join(unknown)}: choose from {', '.join(JOBS)}")
    names = job or list(JOBS)
    data = data or data_dir()
    check_data(data, names)
    chat = chat_or_none(no_llm)
    model = chat.model_name if chat is not None else "none (no-LLM ablation)"
    console.print(escape(f"[demo] chat model: {model}"))
    with connected() as graph, tempfile.TemporaryDirectory(prefix="kgagents-demo-") as workdir, \
            progress_bar("demo jobs", len(names)) as advance:
        begun: list[str] = []

        def on_job(name: str) -> None:
            if begun:
                advance(1)
            begun.append(name)
            console.print(f"[bold]{name}[/bold] …")

        summaries = run_demo(graph, chat, data, Path(workdir), jobs=names, on_job=on_job)
        advance(1)
    console.print(summary_table(summaries))
    for number, s in enumerate(summaries, start=1):
        console.print(escape(f"{number} {s.job}: {s.data}; run {s.run_id}"), highlight=False)
    for s in summaries:
        if s.example:
            console.print(escape(f"{s.job}: {s.example}"))
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


def summary_table(summaries: Sequence[Any]) -> Table:
    """The demo's summary in four short columns that fit 80 characters; what each row ran on, and its run id,
    are printed below it (numbered like the rows)."""
    table = Table(title="kgagents demo: scores read back from each run in Neo4j",
                  title_justify="left")
    for column, justify in (("job", "left"), ("score", "left"), ("time", "right"), ("model", "left")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for number, s in enumerate(summaries, start=1):
        score = f"{s.metric} {s.score:.3f}" if s.score is not None else f"{s.metric} n/a"
        seconds = f"{s.seconds:.0f} s" if s.seconds is not None else "n/a"
        model = (s.model or "?").split(" (")[0]
        table.add_row(f"{number} {s.short}", score, seconds, model if not model.startswith("none") else "none")
    return table
