"""Machine-readable output: the ``--json`` option of every command that prints results.

Why one helper: a script reads a command's result from stdout. With ``--json`` a command prints exactly one JSON
document there, and everything it would print for a person (progress, notes, tables) goes to stderr instead, so
``kgagents match A B --json | jq .matches`` works. Every command uses the same option, the same conversion of
results to JSON and the same stream switch. A command registered on :class:`kgagents.cli.common.App` gets the
switch from its parameter named ``as_json``, so adding ``--json`` takes three lines::

    @commands.command("my-cmd")
    def my_cmd(..., as_json: bool = json_option()) -> None:
        result = ...                           # console.print(...) goes to stderr under --json
        if as_json:
            return emit_json({"run_id": result.run_id, ...})
        console.print(...)                     # the human rendering

Errors are not JSON: they stay one line on stderr with a non-zero exit code (:mod:`kgagents.cli.common`), so a
script tells success from failure by the exit code, as with any command.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import json
import math
import sys
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

import typer
from pydantic import BaseModel, SecretStr


def json_option() -> Any:
    """The ``--json`` option (a fresh Typer option per command)."""
    return typer.Option(False, "--json", help="print the result as one JSON document on stdout (for scripts); "
                                              "progress and notes go to stderr")


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON types: dataclasses and pydantic models become objects, tuples and sets lists (sets
    sorted), paths and dates strings, non-finite floats null, secrets masked. Anything else is a bug in the
    command (a TypeError), never a silent ``str()``."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, SecretStr):
        return "**********"
    if isinstance(value, BaseModel):
        return jsonable(value.model_dump())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        items = [jsonable(v) for v in value]
        try:
            return sorted(items)
        except TypeError:
            return items
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return jsonable(value.value)
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return jsonable(value.item())
    if hasattr(value, "iso_format") and callable(value.iso_format):  # neo4j.time values
        return value.iso_format()
    raise TypeError(f"cannot write a {type(value).__name__} as JSON")


def emit_json(payload: Any) -> None:
    """Print ``payload`` as one JSON document on stdout (the real stdout, whatever the console is switched to)."""
    sys.stdout.write(json.dumps(jsonable(payload), ensure_ascii=False, indent=2) + "\n")
    sys.stdout.flush()
