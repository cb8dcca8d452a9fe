"""ODA's memory: a network of reasoning paths built from the triples the reflection keeps.

A kept triple extends the first path whose last triple ends where it starts (the walk's ``target`` → ``source``),
else it starts a new path; a triple already in memory is not added twice. The next entities to explore are the
far ends (``target``) of the triples just kept. Paths are lists of triple dicts, so the memory lives in the
LangGraph state as plain JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgagents.agent.kgqa.triples import Triple

Path = list[dict[str, Any]]


def remember(memory: Sequence[Path], kept: Sequence[Triple]) -> list[Path]:
    """A new memory with ``kept`` appended, each to the first path it continues or as a new path."""
    paths = [list(p) for p in memory]
    present = {t["rid"] for p in paths for t in p}
    for triple in kept:
        if triple.rid in present:
            continue
        present.add(triple.rid)
        for path in paths:
            if path[-1]["target"] == triple.source:
                path.append(triple.as_dict())
                break
        else:
            paths.append([triple.as_dict()])
    return paths


def next_entities(kept: Sequence[Triple]) -> list[str]:
    """The far ends of the kept triples, in order, once each."""
    return list(dict.fromkeys(t.target for t in kept))


def render_memory(memory: Sequence[Path]) -> str:
    """One line per path: ``a | r1 | b ; b | r2 | c`` (KG direction within each triple)."""
    if not memory:
        return "(empty)"
    return "\n".join(f"path {i}: " + " ; ".join(Triple(**t).text() for t in path)
                     for i, path in enumerate(memory, 1))


def memory_triples(memory: Sequence[Path]) -> list[Triple]:
    """Every triple in memory, path by path."""
    return [Triple(**t) for path in memory for t in path]
