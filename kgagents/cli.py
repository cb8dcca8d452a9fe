"""The ``kgagents`` command line. Every command that fails on purpose prints a message, not a trace."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from kgagents.errors import KgAgentsError

app = typer.Typer(no_args_is_help=True, help="LLM agents that run inside a Neo4j graph.")
neo4j_app = typer.Typer(no_args_is_help=True, help="Install, start, stop and inspect the local Neo4j server.")
app.add_typer(neo4j_app, name="neo4j")
console = Console()
F = TypeVar("F", bound=Callable[..., Any])


def friendly(fn: F) -> F:
    """Turn kgagents errors into a red message and exit code 1."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except KgAgentsError as exc:
            console.print(f"[red]error:[/red] {exc}")
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
    """Version and plugins of the configured server."""
    from kgagents.graph.server import LocalNeo4j

    _print_status(LocalNeo4j().status())


if __name__ == "__main__":
    app()
