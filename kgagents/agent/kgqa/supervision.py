"""Weak supervision: a question with known answers → the relation path(s) from its topic entity to those answers.

Nobody labels paths; a labelled question only says *which entities* answer it. The path is recovered from the KG:
every relation path of length ≤ D from the topic is a candidate, and the path whose end set best matches the
answers (F1 between end set and answer set) is the question's path. Every equally good path is kept, each with an
equal share of the weight: a detour that reaches the same set for one question (an actor's films are also the
films written by the writers of their films, when each wrote one) rarely does for the next question of its kind,
while the path the question means is among the best for all of them — the memory's vote sorts it out. A best F1
under ``min_f1`` teaches nothing.

Whether the topic may re-enter a path is learned too. By default it may not (MetaQA's "films that share directors
with X" are the *other* films); each question is also searched with re-entry allowed (PathQuestion's "X's
spouse's spouse's nationality" walks back through X), and a path that matches the answers better that way is
learned with ``reentry``. When the answer is the topic itself ("the child of X's parent" when X is an only
child), the empty path — the topic itself — is a candidate like any other.

Search, every step in Cypher (``kgqa/expand_paths``): levels 1 … D−1 are walked completely (an end set larger
than ``max_frontier`` is not walked further), and the last level is goal-directed: the answers' own relations
(one query from the answers) say which relations could reach them from which prefix, and only those prefixes are
expanded, over only those relations. The re-entry search runs only when no path matches the answers exactly.

A labelled file may also say *which relations* lead to the answers (MetaQA's ``relation_path``, PathQuestion's
gold walk). Then :func:`supervise_given` learns that path instead of searching: weak supervision cannot tell a
question's path from a shortcut the topology offers for one question ("the institution of X's child's mother" is
X's own institution when X is that mother, so the one-step ``institution`` matches the answers better than the
three steps the question names), and a memory taught shortcuts votes for them on the next question of its kind,
where they are wrong. The labelled path is checked against the KG — each step's direction resolved, re-entry of the
topic allowed only when it matches the answers better — and is learned only when it reaches them (F1 ≥ ``min_f1``);
otherwise the search decides.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import Any

from kgagents.agent.kgqa.observation import follow
from kgagents.agent.kgqa.paths import INVERSE, PathKey, Step, split_step, step
from kgagents.cypher import with_types
from kgagents.graph.connection import Graph, Row

#: F1 within this of the best counts as a tie
TIE = 1e-9
#: a learned path and whether the topic may re-enter it
Learned = tuple[PathKey, bool]


@dataclass
class Supervision:
    """The best paths found for one question (empty when none reaches its answers well enough)."""

    paths: list[Learned] = field(default_factory=list)
    f1: float = 0.0
    candidates: int = 0


def f1(ends: set[str], size: int, gold: set[str]) -> float:
    """F1 of an end set (``ends`` found among its ``size`` members) against the gold set."""
    hit = len(ends & gold)
    if not hit:
        return 0.0
    precision, recall = hit / max(size, 1), hit / len(gold)
    return 2 * precision * recall / (precision + recall)


def _expand(graph: Graph, kg: str, frontiers: list[dict[str, Any]], exclude: list[str], cap: int) -> list[Row]:
    # complete walks (no budget): a question's path is found by its end set's F1 against the answers
    return graph.run_text(with_types("kgqa/expand_paths", None), kg=kg, frontiers=frontiers, exclude=exclude,
                          cap=cap, named=0, sample=0, vector=None, full=None, types=None, budget=None)


def _search(graph: Graph, kg: str, topic: str, gold: set[str], excluded: list[str], *, depth: int,
            max_frontier: int) -> dict[PathKey, float]:
    """F1 of every path from ``topic`` (levels 1 … D−1 complete, the last goal-directed) that reaches ``gold``."""
    scored: dict[PathKey, float] = {}
    frontiers: list[dict[str, Any]] = [{"key": "[]", "ids": [topic], "relations": None}]
    for level in range(1, depth + 1):
        if level == depth and depth > 1:
            # goal-directed last level: only prefixes whose end set meets a gold answer's neighbours
            back = _expand(graph, kg, [{"key": "gold", "ids": sorted(gold), "relations": None}], excluded,
                           max_frontier)
            reaching = [(r["relation"], set(r["ends"])) for r in back]
            narrowed: list[dict[str, Any]] = []
            for f in frontiers:
                types = sorted({t for t, sources in reaching if sources.intersection(f["ids"])})
                if types:
                    narrowed.append({**f, "relations": types})
            frontiers = narrowed
            if not frontiers:
                break
        next_frontiers: list[dict[str, Any]] = []
        for row in _expand(graph, kg, frontiers, excluded, max_frontier):
            key = tuple(json.loads(row["key"])) + (step(row["relation"], row["forward"]),)
            score = f1(set(row["ends"]), row["size"], gold)
            if score > 0:
                scored[key] = score
            if level < depth and row["size"] <= len(row["ends"]):
                next_frontiers.append({"key": json.dumps(list(key)), "ids": row["ends"], "relations": None})
        frontiers = next_frontiers
        if not frontiers:
            break
    return scored


def supervise(graph: Graph, kg: str, topic: str, gold: Iterable[str], *, depth: int, max_frontier: int,
              min_f1: float, exclude: Iterable[str] = ()) -> Supervision:
    """The relation paths from ``topic`` whose end sets best match ``gold`` (KG ids); see the module docstring."""
    gold = set(gold)
    if not gold:
        return Supervision()
    others = sorted(set(exclude) - {topic})
    scored: dict[Learned, float] = {}
    if topic in gold:
        scored[((), False)] = f1({topic}, 1, gold)
    for key, value in _search(graph, kg, topic, gold, sorted({topic, *others}), depth=depth,
                              max_frontier=max_frontier).items():
        scored[(key, False)] = value
    if max(scored.values(), default=0.0) < 1.0 - TIE:  # re-entry can only do better than an inexact match
        for key, value in _search(graph, kg, topic, gold, others, depth=depth, max_frontier=max_frontier).items():
            if value > scored.get((key, False), 0.0) + TIE:
                scored[(key, True)] = value
    if not scored:
        return Supervision()
    best = max(scored.values())
    if best < min_f1:
        return Supervision(f1=best, candidates=len(scored))
    return Supervision(sorted(k for k, v in scored.items() if best - v <= TIE), best, len(scored))


def _given_steps(relations: Iterable[str], types: Mapping[str, str]) -> list[list[Step]] | None:
    """Each labelled relation as the steps it may be: a stored direction given (``r^-1``) is one step, a bare
    relation is either direction (forward first). ``types``: relationship type or display name → type. None when a
    relation is not in the KG."""
    options: list[list[Step]] = []
    for value in relations:
        relation, forward = split_step(value)
        kind = types.get(relation)
        if kind is None:
            return None
        options.append([step(kind, forward)] if value.endswith(INVERSE) else [step(kind, True), step(kind, False)])
    return options


def supervise_given(graph: Graph, kg: str, topic: str, gold: Iterable[str], relations: Sequence[str], *,
                    types: Mapping[str, str], max_frontier: int, min_f1: float,
                    exclude: Iterable[str] = ()) -> Supervision | None:
    """The labelled relation path (see the module docstring) as learned: its directions resolved in the KG and
    re-entry of the topic decided by the answers; None when it is not in the KG or misses the answers."""
    gold = set(gold)
    options = _given_steps(relations, types)
    if not gold or not options or len(options) > 6:
        return None
    others = sorted(set(exclude) - {topic})
    best: tuple[float, Learned] | None = None
    for key in product(*options):
        for reentry in (False, True):
            ends = follow(graph, kg, topic, key, others if reentry else sorted({topic, *others}), max_frontier)
            score = f1({e["id"] for e in ends}, len(ends), gold)
            if best is None or score > best[0] + TIE:
                best = (score, (tuple(key), reentry))
        if best is not None and best[0] >= 1.0 - TIE:
            break
    if best is None or best[0] < min_f1:
        return None
    return Supervision([best[1]], best[0], 1)
