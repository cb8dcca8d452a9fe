"""Every Cypher query kgagents runs, as a named ``.cypher`` file in this package.

``cypher("ontology/merge_classes")`` returns the text of ``ontology/merge_classes.cypher``. Keeping
queries in files means no Cypher strings scattered in Python, and users can read exactly what runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from importlib import resources

from kgagents.errors import CypherNotFoundError


@cache
def cypher(name: str) -> str:
    """The text of the named query (path below kgagents/cypher, without ``.cypher``)."""
    resource = resources.files(__name__).joinpath(f"{name}.cypher")
    if not resource.is_file():
        raise CypherNotFoundError(f"No query named '{name}' (expected kgagents/cypher/{name}.cypher)")
    return resource.read_text(encoding="utf-8")


def statements(name: str) -> list[str]:
    """A multi-statement file split on ``;`` line ends (schema files), comments removed."""
    lines = [ln for ln in cypher(name).splitlines() if not ln.strip().startswith("//")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def with_types(name: str, types: Iterable[str] | None) -> str:
    """The named query with its ``{{types}}`` placeholder (in a relationship pattern, ``-[r{{types}}]-``) filled
    by a union of relationship types — ``:`directed_by`|`P27``` (each name quoted, a backtick doubled) — or by
    nothing (any type) when ``types`` is None or empty.

    Why in the text and not a parameter: only a type written in the query lets Neo4j read just those relationship
    groups of a dense node (a hub's other links — the run store's ``(:QATrace)-[:TOUCHED]->`` that grow with every
    run — are then never walked); a dynamic ``$any($types)`` was measured slower than no type at all."""
    names = sorted(set(types or ()))
    union = ":" + "|".join("`" + t.replace("`", "``") + "`" for t in names) if names else ""
    return cypher(name).replace("{{types}}", union)
