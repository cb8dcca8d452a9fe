"""Per-source statistics the EA-Agent's planner decides from, read from Neo4j in one query per batch.

Why these numbers: the planner picks tools by what an entity offers (attributes to filter? relation triples to
filter? a name?) and by how sure retrieval already is (the gap between the top candidate scores decides whether
a reflector pass is worth its tokens).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from kgagents.graph.connection import Graph
from kgagents.loaders.kg_common import local_name

#: attribute / relation names the planner prompt lists per entity (the counts are always shown in full)
DESCRIBE_EXAMPLES = 3


class EntityStatistics(BaseModel):
    """What the planner sees about one source entity (``top_scores``: up to three, best first)."""

    source: str
    name: str | None
    has_name: bool
    attribute_count: int
    attributes: list[str]
    relation_count: int
    relation_types: list[str]
    top_scores: list[float]

    @property
    def margin(self) -> float:
        """top-1 − top-2 score (∞ when fewer than two candidates: nothing to doubt)."""
        return self.top_scores[0] - self.top_scores[1] if len(self.top_scores) >= 2 else float("inf")

    def describe(self, examples: int = DESCRIBE_EXAMPLES) -> str:
        """The statistics as the planner prompt shows them: counts, at most ``examples`` attribute and relation
        names (local names; the planner decides on counts and scores, names only hint at the kind of entity)."""
        scores = ", ".join(f"{s:.2f}" for s in self.top_scores) or "none"

        def some(names: Sequence[str]) -> str:
            shown = [local_name(n) for n in names[:examples]]
            return f" ({', '.join(shown)}{', ...' if len(names) > examples else ''})" if shown else ""

        return (f"name: {'yes' if self.has_name else 'no'}; attribute triples: {self.attribute_count}"
                f"{some(self.attributes)}; relation triples: {self.relation_count}{some(self.relation_types)}; "
                f"top-1/2/3 candidate scores: {scores}")


def entity_statistics(graph: Graph, *, kg1: str, run_id: str, sources: Sequence[str]) -> dict[str, EntityStatistics]:
    """Statistics of ``sources`` (ids in ``kg1``) with the candidate scores of retrieval run ``run_id``."""
    rows = graph.run("alignment_ea/agent_statistics", kg1=kg1, run_id=run_id, sources=list(sources))
    return {row["source"]: _from_row(row) for row in rows}


def _from_row(row: dict[str, Any]) -> EntityStatistics:
    relations: list[str] = row["relations"]
    return EntityStatistics(
        source=row["source"], name=row["name"], has_name=bool(row["name"]),
        attribute_count=len(row["attributes"]), attributes=list(row["attributes"]),
        relation_count=len(relations), relation_types=sorted(set(relations)),
        top_scores=[float(s) for s in row["scores"][:3]],
    )
