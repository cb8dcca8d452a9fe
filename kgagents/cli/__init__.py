"""The ``kgagents`` command line: one module per command group; a command parses its options, calls one job
(:mod:`kgagents.jobs` or a library function) and renders the result. Every command runs inside the error
boundary of :mod:`kgagents.cli.common`, so a failure is one line and a non-zero exit, never a traceback.

Other distributions add command groups through the ``kgagents.cli`` entry-point group (the ``bench`` group comes
from the repository's ``benchmarks`` distribution that way, so the library never imports the benchmarks and the
wheel works without them). A group that fails to load is left out with a one-line warning on stderr: a broken
plugin must not take the whole CLI down with it.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib.metadata import EntryPoint, entry_points

import typer

from kgagents.cli import alignment, config, demo, graph, kgqa, llm, load, matching, neo4j, report, tools
from kgagents.cli.common import App

app = App(help="LLM agents that run inside a Neo4j graph.")


def _print_version(value: bool) -> None:
    if value:
        from kgagents import __version__

        typer.echo(f"kgagents {__version__}")
        raise typer.Exit()


@app.callback()
def _main(version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                       help="print the version and exit")) -> None:
    """LLM agents that run inside a Neo4j graph."""


for module in (graph, matching, alignment, kgqa, tools, report, demo):
    app.registered_commands.extend(module.commands.registered_commands)
for name, group in (("neo4j", neo4j.app), ("load", load.app), ("llm", llm.app), ("ea", alignment.app),
                    ("kgqa", kgqa.app), ("config", config.app)):
    app.add_typer(group, name=name)


def add_plugins(target: typer.Typer, plugins: Iterable[EntryPoint]) -> None:
    """Add each plugin's command group to ``target``; one that cannot be loaded is left out with a warning."""
    for plugin in plugins:
        try:
            loaded = plugin.load()
        except Exception as exc:  # any import failure of a third-party plugin
            typer.echo(f"warning: command group '{plugin.name}' ({plugin.value}) could not be loaded and is left "
                       f"out: {type(exc).__name__}: {exc}", err=True)
            continue
        target.add_typer(loaded, name=plugin.name)


add_plugins(app, entry_points(group="kgagents.cli"))

__all__ = ["add_plugins", "app"]
