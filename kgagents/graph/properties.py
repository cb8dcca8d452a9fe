"""Values as Neo4j properties: typed, so a run's settings and timings can be filtered and compared in Cypher.

Why not JSON strings: ``WHERE r.threshold < 0.9`` or ``avg(r.retrieve_seconds)`` needs numbers, and a JSON text
hides them. Neo4j holds scalars and homogeneous lists of scalars; a nested mapping is spread into
``<key>_<subkey>`` properties and a missing value (None) is left out (setting a property to null removes it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Scalar = bool | int | float | str


def as_properties(values: Mapping[str, Any], prefix: str = "") -> dict[str, Scalar | list[Scalar]]:
    """``values`` as Neo4j node properties (see the module docstring); raises TypeError on a value Neo4j cannot
    hold (e.g. a list of mappings), so nothing is silently turned into text."""
    out: dict[str, Scalar | list[Scalar]] = {}
    for key, value in values.items():
        name = f"{prefix}{key}"
        if value is None:
            continue
        if isinstance(value, Mapping):
            out.update(as_properties(value, f"{name}_"))
        elif isinstance(value, (list, tuple)):
            if not all(isinstance(v, (bool, int, float, str)) for v in value):
                raise TypeError(f"property {name!r}: Neo4j holds lists of scalars only, got {value!r}")
            out[name] = list(value)
        elif isinstance(value, (bool, int, float, str)):
            out[name] = value
        else:
            raise TypeError(f"property {name!r}: {type(value).__name__} is not a Neo4j property value")
    return out


def seconds_properties(timings: Mapping[str, float]) -> dict[str, float]:
    """Stage timings as ``<stage>_seconds`` properties (the naming the EA retrieval run already uses)."""
    return {f"{stage}_seconds": float(seconds) for stage, seconds in timings.items()}
