"""``kgagents neo4j``: install, start, stop and inspect the local Neo4j server, and print its password."""

from __future__ import annotations

from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from kgagents.cli.common import App, console, errors
from kgagents.errors import KgAgentsError

app = App(help="Install, start, stop and inspect the local Neo4j server.")

#: `neo4j status`'s exit code when the server is not running (as `systemctl status` and LSB init scripts say it)
NOT_RUNNING = 3


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


def _server(listen_address: str | None = None) -> Any:
    from kgagents.config import LocalServerSettings
    from kgagents.servers.neo4j import LocalNeo4j

    settings = LocalServerSettings()
    if listen_address is not None:
        settings = settings.model_copy(update={"listen_address": listen_address})
    return LocalNeo4j(settings)


def _say(text: str) -> None:
    console.print(escape(text), highlight=False)


@app.command("start")
def neo4j_start(listen_address: str = typer.Option(
        None, "--listen-address", help="listen on this address instead of 127.0.0.1 (KGAGENTS_SERVER_LISTEN_ADDRESS); "
        "other machines can then connect, so an old fixed or short password is refused")) -> None:
    """Install Neo4j 5.26 + GDS + APOC from Maven Central (once) and start it; harmless if running. Then removes what
    batched loads that died left behind (`kgagents load repair`)."""
    server = _server(listen_address)
    if not server.installed():
        _say("resolving Neo4j, GDS and APOC jars with Maven (first time only, a few minutes)…")
        with console.status("Maven…"):
            server.install()
    running = server.pid() is not None
    if not running:
        _say(f"starting Neo4j on {server.bolt_uri} (about a minute on a first start)…")
    status = server.start(say=_say)
    _print_status(status)
    _print_password_place(server)
    _repair_after_start(server)


def _print_password_place(server: Any) -> None:
    if server.password_given:
        _say("password: KGAGENTS_NEO4J_PASSWORD (user neo4j)")
        return
    _say(f"password: in {server.password_file} (user neo4j); `kgagents neo4j password` prints it")
    if server.uses_legacy_password():
        errors.print("[yellow]note:[/yellow] " + escape(
            "this instance still has the old fixed password, because it was already running; stop and start it "
            "(`kgagents neo4j stop && kgagents neo4j start`) to replace it with a generated one"))


def _repair_after_start(server: Any) -> None:
    """Remove what dead batched loads wrote: a server that restarts after a crash or a kill leaves their data."""
    from kgagents.graph.connection import Graph
    from kgagents.loaders.batched import repair_loads

    with Graph(server.neo4j) as graph:
        for removed in repair_loads(graph, say=_say):
            _say(removed.line())


@app.command("stop")
def neo4j_stop() -> None:
    """Stop the local server if it runs."""
    stopped = _server().stop()
    console.print("stopped" if stopped else "not running")


@app.command("status")
def neo4j_status() -> None:
    """Version and plugins of the local server; "stopped" (exit code 3) when it is not running."""
    from kgagents.errors import Neo4jUnavailableError

    server = _server()
    try:
        status = server.status()
    except Neo4jUnavailableError:
        console.print(f"stopped (instance '{escape(server.server.instance)}', {server.bolt_uri}); start it with "
                      "`kgagents neo4j start`", highlight=False)
        raise typer.Exit(NOT_RUNNING) from None
    _print_status(status)


@app.command("password")
def neo4j_password() -> None:
    """Print the local instance's password (user neo4j), alone on stdout, e.g. for Neo4j Browser or
    `cypher-shell -p "$(kgagents neo4j password)"`."""
    server = _server()
    password = server.password().get_secret_value()
    if not password:
        raise KgAgentsError(f"instance '{server.server.instance}' has no password yet ({server.password_file} does "
                            "not exist): `kgagents neo4j start` makes one")
    if server.password_given:
        errors.print("[yellow]note:[/yellow] KGAGENTS_NEO4J_PASSWORD is set: this is its value, which every command "
                     "uses instead of the instance's password file")
    print(password)
