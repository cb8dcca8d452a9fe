"""``kgagents neo4j``: install, start, stop and inspect the local Neo4j server."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from kgagents.cli.common import App, console

app = App(help="Install, start, stop and inspect the local Neo4j server.")


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


@app.command("start")
def neo4j_start() -> None:
    """Install Neo4j 5.26 + GDS + APOC from Maven Central (once) and start it; harmless if running."""
    from kgagents.servers.neo4j import LocalNeo4j

    server = LocalNeo4j()
    with console.status("resolving Neo4j, GDS and APOC jars with Maven (first time only)…"):
        server.install()
    with console.status(f"starting Neo4j on {server.bolt_uri}…"):
        status = server.start()
    _print_status(status)


@app.command("stop")
def neo4j_stop() -> None:
    """Stop the local server if it runs."""
    from kgagents.servers.neo4j import LocalNeo4j

    stopped = LocalNeo4j().stop()
    console.print("stopped" if stopped else "not running")


@app.command("status")
def neo4j_status() -> None:
    """Version and plugins of the configured server (KGAGENTS_NEO4J_URI)."""
    from kgagents.servers.neo4j import LocalNeo4j

    _print_status(LocalNeo4j().status())
