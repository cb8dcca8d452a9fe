"""ODA's recursive observation on relation paths, every KG access in Cypher.

From each topic entity, level by level up to D: one ``kgqa/expand_paths`` query takes the end sets of the paths
chosen for expansion and returns, per path, the relations leaving its end set with the entities they reach
(relation-level aggregation in Cypher: one row per relation and direction, never one per triple). Each new path
is scored (:mod:`scoring`); the best N of the level join the observation and the best P % (at least
``min_expand``) are expanded to the next level, together with every prefix of a path the memory votes for, so a
remembered path is always observed however its prefixes score. An end set larger than ``max_frontier`` is
observed but not expanded (a genre's thousands of films), and topic entities never re-enter a path.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kgagents.agent.kgqa.paths import ObservedPath, PathKey, path_display, path_text, split_step, step
from kgagents.agent.kgqa.scoring import PathScorer
from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.graph.connection import Graph


@dataclass
class Observation:
    """What one observation found: paths best first, and what it cost."""

    paths: list[ObservedPath] = field(default_factory=list)
    seconds: float = 0.0
    queries: int = 0
    expanded: int = 0


class RelationNames:
    """Display names of a KG's relationship types, read once from its relation catalogue."""

    def __init__(self, graph: Graph, kg: str) -> None:
        self.graph = graph
        self.kg = kg
        self._names: dict[str, str] | None = None
        self._lock = threading.Lock()

    def get(self) -> dict[str, str]:
        with self._lock:
            if self._names is None:
                self._names = {r["type"]: r["name"] for r in self.graph.run("kgqa/relation_names", kg=self.kg)}
            return self._names


class PathObserver:
    """Runs the path observation for one KG with one settings object and one scorer."""

    def __init__(self, graph: Graph, kg: str, settings: KGQASettings, scorer: PathScorer,
                 names: RelationNames | None = None) -> None:
        self.graph = graph
        self.kg = kg
        self.settings = settings
        self.scorer = scorer
        self.names = names or RelationNames(graph, kg)

    def observe(self, question: np.ndarray, topics: Sequence[str], prior: Mapping[PathKey, float] | None = None,
                *, depth: int | None = None) -> Observation:
        """Observe from each topic in turn (the others are excluded from its paths); paths best first."""
        started = time.perf_counter()
        result = Observation()
        prior = prior or {}
        for topic in dict.fromkeys(topics):
            result.paths.extend(self._observe_one(question, topic, list(dict.fromkeys(topics)), prior, result,
                                                  depth or self.settings.depth))
        result.paths.sort(key=lambda p: (-p.score, p.length, p.path))
        result.seconds = time.perf_counter() - started
        return result

    def _expand(self, question: np.ndarray, frontiers: list[dict[str, Any]], exclude: list[str],
                result: Observation) -> list[dict[str, Any]]:
        s = self.settings
        result.queries += 1
        return self.graph.run("kgqa/expand_paths", kg=self.kg, frontiers=frontiers, exclude=exclude,
                              cap=s.max_frontier, named=s.ends_kept, sample=s.type_sample,
                              vector=[float(x) for x in question])

    def _observe_one(self, question: np.ndarray, topic: str, exclude: list[str], prior: Mapping[PathKey, float],
                     result: Observation, depth: int) -> list[ObservedPath]:
        s = self.settings
        names = self.names.get()
        forced = {key[:i] for key in prior for i in range(1, len(key))}
        frontiers: list[dict[str, Any]] = [{"key": "[]", "ids": [topic]}]
        observed: list[ObservedPath] = []
        for level in range(1, depth + 1):
            rows = self._expand(question, frontiers, exclude, result)
            if not rows:
                break
            keys = [tuple(json.loads(r["key"])) + (step(r["relation"], r["forward"]),) for r in rows]
            texts = [path_text(k, names) for k in keys]
            sims = self.scorer.similarities(question, texts)
            level_paths = []
            full_ends: dict[PathKey, list[str]] = {}
            for row, key, text, sim in zip(rows, keys, texts, sims):
                level_paths.append(self._path(topic, key, text, row, float(sim), prior.get(key, 0.0), names))
                full_ends[key] = row["ends"]
            level_paths.sort(key=lambda p: (-p.score, p.path))
            # the best N, and every path the memory votes for even when it scored below them
            observed.extend(p for i, p in enumerate(level_paths) if i < s.top_n or p.prior > 0)
            if level == depth:
                break
            expandable = [p for p in level_paths if p.complete]
            wanted = max(s.min_expand, math.ceil(s.top_percent * len(level_paths)))
            chosen = {p.key for p in expandable[:wanted]} | {p.key for p in expandable if p.key in forced}
            frontiers = [{"key": json.dumps(list(k)), "ids": full_ends[k]} for k in chosen]
            result.expanded += len(frontiers)
            if not frontiers:
                break
        return observed

    def extend(self, question: np.ndarray, observed: Sequence[ObservedPath], topics: Sequence[str],
               prior: Mapping[PathKey, float] | None = None) -> list[ObservedPath]:
        """GetPath: each of ``observed`` extended by one relation (its complete end set walked on), best first."""
        s = self.settings
        names = self.names.get()
        prior = prior or {}
        result = Observation()
        out: list[ObservedPath] = []
        for p in observed:
            exclude = list(dict.fromkeys([*topics, p.topic]))
            ends = p.ends if p.complete and p.size <= len(p.ends) else \
                [e["id"] for e in follow(self.graph, self.kg, p.topic, p.path, exclude, s.max_frontier)]
            rows = self._expand(question, [{"key": "[]", "ids": ends}], exclude, result)
            keys = [p.key + (step(r["relation"], r["forward"]),) for r in rows]
            texts = [path_text(k, names) for k in keys]
            for row, key, text, sim in zip(rows, keys, texts, self.scorer.similarities(question, texts)):
                out.append(self._path(p.topic, key, text, row, float(sim), prior.get(key, 0.0), names))
        return sorted(out, key=lambda x: (-x.score, x.path))

    def _path(self, topic: str, key: PathKey, text: str, row: Mapping[str, Any], similarity: float, prior: float,
              names: Mapping[str, str]) -> ObservedPath:
        s = self.settings
        p = ObservedPath(topic=topic, path=list(key), text=text, display=path_display(key, names), size=row["size"],
                         ends=row["ends"][: s.ends_kept], end_names=row["names"],
                         supports=row["supports"][: s.ends_kept], similarity=round(similarity, 4),
                         type_score=round(float(row["type_score"] or 0.0), 4), prior=prior,
                         complete=row["size"] <= len(row["ends"]))
        p.score = round(self.scorer.score(p.similarity, p.length, p.type_score, p.prior), 4)
        return p


def follow(graph: Graph, kg: str, topic: str, path: Sequence[str], exclude: Sequence[str],
           cap: int) -> list[dict[str, Any]]:
    """The complete end set of ``path`` from ``topic`` (``{id, name, support}`` best supported first, at most
    ``cap``), one ``kgqa/follow_path`` query per step; an end's support is how many entities of the step
    before reach it."""
    current: dict[str, int] = {topic: 1}
    names: dict[str, str] = {}
    for s in path:
        relation, forward = split_step(s)
        rows = graph.run("kgqa/follow_path", kg=kg, ids=list(current), relation=relation, forward=forward,
                         exclude=list(exclude))
        current = {r["id"]: r["support"] for r in rows}
        names = {r["id"]: r["name"] for r in rows}
        if not current:
            break
    ranked = sorted(current.items(), key=lambda kv: (-kv[1], kv[0]))[:cap]
    return [{"id": e, "name": names.get(e, e), "support": n} for e, n in ranked]
