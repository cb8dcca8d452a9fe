"""What every command shares: the error boundary, the console, the connection, progress, the chat model.

Why one boundary: a command that fails must print one line a user can act on and exit non-zero — never a
traceback — whatever failed (our own errors, a setting pydantic rejected, a file that cannot be read or written,
a Neo4j server that went away). :class:`App` wraps every command it registers in :func:`guarded`, so no command
can forget it; ``KGAGENTS_DEBUG=1`` re-raises for developers. Anything else that escapes a command is a bug in
kgagents, not the user's input: it is still one line, saying so and how to get the traceback for a report.
"""

from __future__ import annotations

import functools
import logging
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar, overload

import typer
from neo4j.exceptions import DriverError, Neo4jError, ServiceUnavailable, SessionExpired
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from kgagents.errors import InputFileError, KgAgentsError, LLMUnavailableError
from kgagents.paths import require_file

console = Console()
errors = Console(stderr=True)
F = TypeVar("F", bound=Callable[..., Any])

# The Neo4j driver logs a lost connection ("Failed to read from defunct connection …") as warnings; with no handler
# configured, Python's last-resort handler printed them beside the one line the boundary says about the same event.
# KGAGENTS_DEBUG=1 lets them through (to whatever logging the developer configures).
if os.environ.get("KGAGENTS_DEBUG") != "1":
    logging.getLogger("neo4j").addHandler(logging.NullHandler())
    logging.getLogger("neo4j").propagate = False


def error_line(exc: BaseException) -> str:
    """The one line a command prints for ``exc``."""
    if isinstance(exc, KgAgentsError):
        return str(exc)
    if isinstance(exc, ValidationError):  # a KGAGENTS_* setting (or an option) pydantic rejected
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'value'}: {e['msg']} (got {e.get('input')!r})"
                             for e in exc.errors())
        return f"invalid {exc.title} setting: {problems}"
    if isinstance(exc, (ServiceUnavailable, SessionExpired)):
        return (f"lost the connection to Neo4j ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__}); "
                "is the server still running? Check with `kgagents neo4j status`.")
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        return f"{where}{exc.strerror or exc}"
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


#: what the user's input, files, settings or server explain: one line and exit code 1
_INPUT_ERRORS = (KgAgentsError, ValidationError, OSError, ValueError, DriverError, Neo4jError)


@contextmanager
def console_on_stderr(enabled: bool = True) -> Iterator[None]:
    """While the block runs, with ``enabled``: the shared console prints to stderr, leaving stdout to a machine-
    readable document (``--json``, :mod:`kgagents.cli.output`). Without it: nothing changes."""
    if not enabled:
        yield
        return
    previous = console.stderr
    console.stderr = True
    try:
        yield
    finally:
        console.stderr = previous


def guarded(fn: F) -> F:
    """Run a command inside the error boundary (see the module docstring). A command called with ``as_json=True``
    (its ``--json`` option) runs with the console on stderr, so its stdout holds only the JSON document."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            with console_on_stderr(kwargs.get("as_json") is True):
                return fn(*args, **kwargs)
        except (typer.Exit, typer.Abort):
            raise
        except KeyboardInterrupt as exc:  # what the interrupt undid, when the command says so
            errors.print("[red]interrupted[/red]" + (f": {escape(str(exc))}" if str(exc) else ""), soft_wrap=True)
            raise typer.Exit(130) from None
        except Exception as exc:
            if os.environ.get("KGAGENTS_DEBUG") == "1":
                raise
            if isinstance(exc, _INPUT_ERRORS):
                errors.print(f"[red]error:[/red] {escape(error_line(exc))}", soft_wrap=True)
                raise typer.Exit(1) from None
            # anything else is a bug: no traceback for the user either, but the way to get one
            errors.print(f"[red]internal error:[/red] {escape(error_line(exc))} — a bug in kgagents; run the command "
                         "again with KGAGENTS_DEBUG=1 for the traceback to report", soft_wrap=True)
            raise typer.Exit(2) from None

    return wrapper  # type: ignore[return-value]


class App(typer.Typer):
    """A Typer app whose every command runs inside :func:`guarded`."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(no_args_is_help=True, pretty_exceptions_enable=False, **kwargs)

    def command(self, *args: Any, **kwargs: Any) -> Callable[[F], F]:
        register = super().command(*args, **kwargs)

        def decorator(fn: F) -> F:
            register(guarded(fn))
            return fn

        return decorator


@contextmanager
def progress_bar(description: str, total: int | None = None) -> Iterator[Callable[[int], None]]:
    """A rich progress bar; yields the ``progress(increment)`` callback the loaders accept. Written to a file or a
    pipe (a benchmark under nohup), where a live bar shows nothing until the end, it prints a plain line at every
    tenth of ``total`` (every ``LOG_EVERY_S`` seconds without one) instead."""
    if not console.is_terminal:
        yield _progress_lines(description, total)
        return
    columns = [SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn()]
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(description, total=total)
        yield lambda n: bar.advance(task, n)


#: seconds between progress lines when the total is unknown
LOG_EVERY_S = 60.0


def _progress_lines(description: str, total: int | None) -> Callable[[int], None]:
    started = time.perf_counter()
    state = {"done": 0, "step": 0, "logged_at": started}

    def advance(n: int) -> None:
        state["done"] += n
        now = time.perf_counter()
        step = state["done"] * 10 // total if total else 0
        if (total and step > state["step"]) or (not total and now - state["logged_at"] >= LOG_EVERY_S):
            state["step"], state["logged_at"] = step, now
            of = f"/{total}" if total else ""
            console.print(f"{description}: {state['done']}{of} ({now - started:.0f} s)", highlight=False)
    return advance


@contextmanager
def connected() -> Iterator[Any]:
    """A connection to the configured database with the schema in place."""
    from kgagents.graph.connection import Graph
    from kgagents.graph.schema import ensure_schema

    with Graph() as graph:
        ensure_schema(graph)
        yield graph


def chat_or_none(no_llm: bool, settings: Any = None) -> Any:
    """The configured chat model, or None — saying so plainly — when there is none (no-LLM ablation).
    ``settings`` (LLMSettings) overrides the environment's, e.g. an agent's sampling temperature."""
    if no_llm:
        return None
    from kgagents.llm import resolve_chat_model

    try:
        return resolve_chat_model(settings)
    except LLMUnavailableError as exc:
        console.print(f"[yellow]no LLM:[/yellow] {escape(str(exc))}\n[yellow]Running the documented no-LLM ablation "
                      "instead; every output is labelled 'no_llm'.[/yellow]")
        return None


@contextmanager
def checkpointer(path: Path | None) -> Iterator[Any]:
    """A SQLite checkpointer at ``path`` (None: no checkpointing)."""
    if path is None:
        yield None
        return
    from langgraph.checkpoint.sqlite import SqliteSaver

    with SqliteSaver.from_conn_string(str(path)) as saver:
        yield saver


def output_file(path: Path | None, option: str, *, create_folder: bool = False) -> Path | None:
    """Check, before anything is written, that ``path`` can be written as a file (its folder exists — or, with
    ``create_folder``, can be made —, it is not a folder itself); commands call this for every output option
    before the job starts."""
    if path is None:
        return None
    if path.is_dir():
        raise InputFileError(f"{option} {path}: is a directory; give a file path.")
    folder = path.parent
    if create_folder:
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
    if not folder.is_dir():
        raise InputFileError(f"{option} {path}: the folder {path.parent} does not exist.")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise InputFileError(f"{option} {path}: not writable.")
    return path


@overload
def input_file(path: Path, option: str) -> Path: ...
@overload
def input_file(path: None, option: str) -> None: ...
def input_file(path: Path | None, option: str) -> Path | None:
    """Check that ``path`` is a readable file (not a folder), before anything is written."""
    if path is None:
        return None
    return require_file(path, option)


def set_option(job: str, example: str) -> Any:
    """The ``--set KEY=VALUE`` option every job command takes (see :mod:`kgagents.settings`)."""
    return typer.Option([], "--set", metavar="KEY=VALUE",
                        help=f"a {job} setting changed from its default, e.g. {example}; repeatable "
                        f"(`kgagents config show {job}` lists them)")


def config_option() -> Any:
    """The ``--config FILE`` option every job command takes: a TOML or YAML file with a table per job."""
    return typer.Option(None, "--config", metavar="FILE", help="settings file (TOML or YAML, a table per job: "
                        "[match], [align], [kgqa], [extract]); `kgagents config template JOB` writes one")


def job_settings(job: str, *, sets: list[str] | None = None, config: Path | None = None, chat: Any = None,
                 **arguments: Any) -> Any:
    """The resolved settings of one run of ``job`` (:func:`kgagents.settings.resolve`): ``arguments`` are the
    command's own options (None: not given), ``chat`` the chat model (None: the no-LLM ablation)."""
    from kgagents.settings import resolve

    return resolve(job, arguments=arguments, sets=sets or (), config=config,
                   model=getattr(chat, "model_name", None), offline=chat is None)
