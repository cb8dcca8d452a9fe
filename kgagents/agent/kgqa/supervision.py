"""Weak supervision: a question with known answers → the relation path(s) from its topic entity to those answers.

Nobody labels paths; a labelled question only says *which entities* answer it. The path is recovered from the KG:
every relation path of length ≤ D from the topic is a candidate, and the path whose end set best matches the
answers (F1 between end set and answer set) is the question's path. Among equally good paths the shortest win
(a longer path that reaches the same set is a detour: an actor's films are also the films written by the writers
of their films, when each was written by one of them), and the search stops at the first level that reaches the
answers exactly. Paths still tied keep an equal share of the weight (a director who writes their own films makes
"films by the same director" and "films by the same writer" indistinguishable for that question; other questions
of the same kind outvote the detour in the memory). A best F1 under ``min_f1`` teaches nothing.

Search, every step in Cypher (``kgqa/expand_paths``): levels 1 … D−1 are walked completely (an end set larger
than ``max_frontier`` is not walked further), and the last level is goal-directed: the answers' own relations
(one query from the answers) say which last step could reach them from which prefix, and only those prefixes
are expanded. So a 3-hop question costs three queries whatever the hubs on the way.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from kgagents.agent.kgqa.paths import PathKey, step
from kgagents.graph.connection import Graph

#: F1 within this of the best counts as a tie
TIE = 1e-9


@dataclass
class Supervision:
    """The best paths found for one question (empty when none reaches its answers well enough)."""

    paths: list[PathKey] = field(default_factory=list)
    f1: float = 0.0
    candidates: int = 0


def f1(ends: set[str], size: int, gold: set[str]) -> float:
    """F1 of an end set (``ends`` found among its ``size`` members) against the gold set."""
    hit = len(ends & gold)
    if not hit:
        return 0.0
    precision, recall = hit / max(size, 1), hit / len(gold)
    return 2 * precision * recall / (precision + recall)


def _expand(graph: Graph, kg: str, frontiers: list[dict[str, object]], exclude: list[str],
            cap: int) -> list[dict[str, object]]:
    return graph.run("kgqa/expand_paths", kg=kg, frontiers=frontiers, exclude=exclude, cap=cap, named=0, sample=0,
                     vector=None)


def supervise(graph: Graph, kg: str, topic: str, gold: Iterable[str], *, depth: int, max_frontier: int,
              min_f1: float, exclude: Iterable[str] = ()) -> Supervision:
    """The relation paths from ``topic`` whose end sets best match ``gold`` (KG ids); see the module docstring."""
    gold = set(gold) - {topic}
    excluded = sorted({topic, *exclude})
    if not gold:
        return Supervision()
    scored: dict[PathKey, float] = {}
    frontiers: list[dict[str, object]] = [{"key": "[]", "ids": [topic]}]
    last_steps: dict[str, set[str]] | None = None
    for level in range(1, depth + 1):
        if level == depth and depth > 1:
            # goal-directed last level: which step reaches a gold answer from which prefix's end set
            if last_steps is None:
                back = _expand(graph, kg, [{"key": "gold", "ids": sorted(gold)}], excluded, max_frontier)
                last_steps = {step(r["relation"], not r["forward"]): set(r["ends"]) for r in back}
            frontiers = [f for f in frontiers
                         if any(set(f["ids"]) & sources for sources in last_steps.values())]  # type: ignore[arg-type]
            if not frontiers:
                break
        rows = _expand(graph, kg, frontiers, excluded, max_frontier)
        next_frontiers = []
        for row in rows:
            key = tuple(json.loads(row["key"])) + (step(row["relation"], row["forward"]),)
            ends = set(row["ends"])
            score = f1(ends, row["size"], gold)
            if score > 0:
                scored[key] = score
            if level < depth and row["size"] <= len(row["ends"]):
                next_frontiers.append({"key": json.dumps(list(key)), "ids": row["ends"]})
        frontiers = next_frontiers
        if not frontiers or (scored and max(scored.values()) >= 1.0 - TIE):
            break
    if not scored:
        return Supervision()
    best = max(scored.values())
    if best < min_f1:
        return Supervision(f1=best, candidates=len(scored))
    tied = [k for k, v in scored.items() if best - v <= TIE]
    shortest = min(len(k) for k in tied)
    return Supervision(sorted(k for k in tied if len(k) == shortest), best, len(scored))
