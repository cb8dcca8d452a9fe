"""Matching through background knowledge: pairs the background files relate, read in Cypher, reduced to 1:1.

A source and a target entity are related by a path of ``BACKGROUND`` edges (:mod:`kgagents.loaders.background`):
one edge between them, or two through a mediator (a bridge ontology's class both are tied to), or three through two
mediators one below the other (weaker: the mediators' own hierarchy, where a file states it). The path's kind says
how strong the evidence is for an *equivalence*, in this order (:data:`KINDS`):

* ``exact``: every edge an equivalence (``s ≡ m ≡ t``);
* ``close``: equivalences and cross-references (``hasDbXref``, ``skos:closeMatch``);
* ``narrow``: one entity stated below the other (``s ≡ m ⊒ t``, or ``s ⊑ t``);
* ``shared``: both below (or both above) one mediator (``s ⊑ m ⊒ t``) — Uberon's bridges tie a mouse and a human
  class this way, each a species-specific kind of one Uberon class;
* ``hierarchy``: through two mediators, one below the other.

The pairs kept are those that are the unique best of both their entities at their strictest kind (the lexical
pre-match's rule, :func:`~kgagents.agent.matching.lexical.one_to_one`): a mediator two classes of one side are tied to
decides neither. No word, id prefix or threshold of any dataset is involved.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace

from kgagents.agent.matching.entities import Entity
from kgagents.agent.matching.lexical import one_to_one
from kgagents.graph.connection import Graph, Row

KINDS = ("exact", "close", "narrow", "shared", "hierarchy")


@dataclass(frozen=True)
class BackgroundMatch:
    """One pair the background relates: its strictest kind, the mediator(s) of that path, the path's confidence
    (the lowest of its edges')."""

    source: str
    target: str
    kind: str
    via: str | None
    confidence: float

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def path_kind(relations: Sequence[str], along: Sequence[bool]) -> str:
    """The kind of one path (module docstring) from its edges' relations and directions."""
    if len(relations) > 2:
        return "hierarchy"
    symbols = set()
    for relation, forward in zip(relations, along, strict=True):
        if relation == "close":
            symbols.add("~")
        elif relation == "narrow":
            symbols.add("<" if forward else ">")
    if not symbols:
        return "exact"
    if symbols == {"~"}:
        return "close"
    if symbols in ({"<"}, {">"}):
        return "narrow"
    return "shared"


def best_paths(rows: Iterable[Row]) -> dict[tuple[str, str], BackgroundMatch]:
    """(source, target) → its strictest path (ties: the most confident, then the first mediator by name)."""
    best: dict[tuple[str, str], BackgroundMatch] = {}
    for row in rows:
        kind = path_kind(row["relations"], row["along"])
        confidence = min(float(c if c is not None else 1.0) for c in row["confidences"])
        found = BackgroundMatch(row["source"], row["target"], kind, row["via"], confidence)
        key = (found.source, found.target)
        old = best.get(key)
        if old is None or _order(found) < _order(old):
            best[key] = found
    return best


def _order(m: BackgroundMatch) -> tuple[int, float, str]:
    return KINDS.index(m.kind), -m.confidence, m.via or ""


def background_pairs(graph: Graph, source: str, target: str, files: Sequence[str], *, hierarchy: bool = True,
                     ) -> dict[tuple[str, str], BackgroundMatch]:
    """Every (source, target) pair the files relate, with its strictest path."""
    if not files:
        return {}
    rows = graph.run("matching/background_pairs", source=source, target=target, files=list(files),
                     hierarchy=hierarchy)
    return best_paths(rows)


def background_matches(pairs: dict[tuple[str, str], BackgroundMatch], exclude: Iterable[str] = (),
                       ) -> list[BackgroundMatch]:
    """The 1:1 pairs: each the unique best of both its entities at its strictest kind, among entities not in
    ``exclude``."""
    skip = set(exclude)
    tiers: dict[str, dict[str, int]] = {}
    for (s, t), m in pairs.items():
        if s not in skip and t not in skip:
            tiers.setdefault(s, {})[t] = KINDS.index(m.kind)
    return [pairs[(m.source, m.target)] for m in one_to_one(tiers)]


def with_background_names(graph: Graph, entities: Sequence[Entity], files: Sequence[str]) -> list[Entity]:
    """``entities`` with the names the background ``files`` give them (a bridge's labels of the classes it ties)
    added to their synonyms, so every lexical rule can use them: a bridge that names the mouse class "intestine
    serosa" Uberon's "serosa of intestine" gives the matcher one more way to reach a human class of that name."""
    rows = graph.run("matching/background_names", uris=[e.uri for e in entities], files=list(files))
    extra = {row["uri"]: row["names"] for row in rows}
    return [replace(e, synonyms=tuple(dict.fromkeys([*e.synonyms, *extra[e.uri]]))) if e.uri in extra else e
            for e in entities]
