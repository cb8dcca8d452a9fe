"""The triple as the KGQA agent handles it: KG direction for display, traversal direction for reasoning.

A triple is stored ``(head)-[relation]->(tail)``; an agent reaches it from one end (``source``) and walks to the
other (``target``). Memory chains and "next entities" follow the walk (``source`` → ``target``), prompts show the
KG direction (``head | relation | tail``), so an incoming edge is never shown backwards. Triples are plain dicts
in the agent state (LangGraph checkpointers store JSON); :class:`Triple` builds and reads them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from kgagents.agent.kgqa.readings import readable


@dataclass(frozen=True)
class Triple:
    """One relation triple of the KG, seen from ``source``; ``score`` is its cosine to the question."""

    rid: str
    head: str
    head_name: str
    relation: str
    relation_name: str
    tail: str
    tail_name: str
    source: str
    target: str
    score: float = 0.0
    depth: int = 0

    @classmethod
    def from_row(cls, row: Mapping[str, Any], *, score: float = 0.0, depth: int = 0) -> Triple:
        """From a ``kgqa/neighbours`` row, or a path row (``source``/``target`` default to head/tail)."""
        return cls(rid=row["rid"], head=row["head"], head_name=row["head_name"], relation=row["relation"],
                   relation_name=row["relation_name"], tail=row["tail"], tail_name=row["tail_name"],
                   source=row.get("source", row["head"]), target=row.get("target", row["tail"]),
                   score=score, depth=depth)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def target_name(self) -> str:
        return self.tail_name if self.target == self.tail else self.head_name

    def text(self) -> str:
        """``head | relation | tail`` with names, as the LLM sees it."""
        return f"{self.head_name} | {readable(self.relation_name)} | {self.tail_name}"


def triples(items: Iterable[Mapping[str, Any]]) -> list[Triple]:
    """State dicts back to :class:`Triple` objects."""
    return [Triple(**dict(t)) for t in items]


def numbered(items: Sequence[Triple]) -> str:
    """One numbered line per triple (1-based), for prompts that ask the model to pick by number."""
    return "\n".join(f"{i}. {t.text()}" for i, t in enumerate(items, 1))
