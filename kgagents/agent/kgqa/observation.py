"""ODA's recursive observation on relation paths, every KG access in Cypher.

From each topic entity, level by level up to D: one ``kgqa/expand_paths`` query takes the end sets of the paths
chosen for expansion and returns, per path, the relations leaving its end set with the entities they reach
(relation-level aggregation in Cypher: one row per relation and direction, never one per triple). Each new path
is scored (:mod:`scoring`); the best N of the level join the observation and the best P % (at least
``min_expand``) are expanded to the next level, together with every prefix of a path the memory votes for (over
the relations that continue it), so a remembered path is always observed however its prefixes score. The memory's
vote is evidence added to a path's score (:mod:`scoring`), and it is only cast where the question comes close
enough to what the memory learned (:mod:`calibration`). When it is sure of one path (``memory_focus``), only the
remembered paths are walked — the first level over their first relations only, and only their prefixes are
expanded (a hub topic's other relations are never read): a remembered path that exists outscores the paths
left unread anyway, and where none of them leads anywhere from the topic, the topic is observed again as if the
memory had not voted. An
end set larger than ``max_frontier`` is observed but not expanded (a genre's thousands of films), and topic entities
never re-enter a path (a remembered path learned with re-entry is followed with its topic allowed back in).

Bounded expansion (``expand_budget``): a level reads at most about that many relationships from each end set it
expands — its entities best supported first, counted by their degrees (Neo4j's degree store, no relationship
read) —, so walking on from the people of a country or the films of a genre costs a few thousand relationships,
not every one of theirs. The relation *types* leaving a large end set show up among its best-supported members;
the paths found that way are scored and expanded like the others, and marked ``sampled``: their end sets are read
in full (:func:`follow`) when one answers. Measured on the CoDEx-M Wikidata subgraph (hubs of 7,000 links), see
docs/kgqa.md.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import Any

from kgagents.agent.kgqa.paths import (
    ObservedPath,
    PathKey,
    path_display,
    path_phrase,
    path_text,
    split_step,
    step,
)
from kgagents.agent.kgqa.scoring import PathScorer, Query
from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.cypher import with_types
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

    def observe(self, question: Query, topics: Sequence[str], prior: Mapping[PathKey, float] | None = None,
                *, reentry: Set[PathKey] = frozenset(), depth: int | None = None) -> Observation:
        """Observe from each topic in turn (the others are excluded from its paths); paths best first.
        ``prior``: the memory's share per path; ``reentry``: remembered paths the topic may walk back into."""
        started = time.perf_counter()
        result = Observation()
        prior = prior or {}
        for topic in dict.fromkeys(topics):
            found = self._observe_one(question, topic, list(dict.fromkeys(topics)), prior, reentry, result,
                                      depth or self.settings.depth)
            if self._focused(prior) and not any(p.prior > 0 and p.size > 0 for p in found):
                # the remembered paths lead nowhere from this topic: observe it as if the memory had not voted
                found = self._observe_one(question, topic, list(dict.fromkeys(topics)), prior, reentry, result,
                                          depth or self.settings.depth, focus=False)
            result.paths.extend(found)
        self._renormalise(result.paths, question)
        result.paths.sort(key=lambda p: (-p.score, p.length, p.path))
        result.seconds = time.perf_counter() - started
        return result

    def _renormalise(self, observed: list[ObservedPath], question: Query) -> None:
        """The memory's shares over the remembered paths that exist from these topics (a share voted for a path
        that leads nowhere here goes to the ones that do), and the scores with them."""
        shares: dict[PathKey, float] = {}
        for p in observed:
            if p.prior > 0 and p.size > 0:
                shares[p.key] = p.prior
        total = sum(shares.values())
        if total <= 0:
            return
        for p in observed:
            if p.prior > 0:
                p.prior = round(shares.get(p.key, 0.0) / total, 4)
                p.score = round(self.scorer.score(p.similarity, p.length, p.type_score, p.prior, question.words,
                                                  question.direct), 4)

    def _expand(self, question: Query, frontiers: list[dict[str, Any]], exclude: list[str],
                result: Observation, full: list[str] | None = None) -> list[dict[str, Any]]:
        """One level (``kgqa/expand_paths``); ``full``: the only groups whose ends are wanted beyond ``ends_kept``
        (None: all). No more ends are read back than the budget could walk on (each end has a triple)."""
        s = self.settings
        result.queries += 1
        cap = min(s.max_frontier, s.expand_budget) if s.expand_budget else s.max_frontier
        types = sorted(self.names.get()) or None
        return self.graph.run_text(with_types("kgqa/expand_paths", types), kg=self.kg, frontiers=frontiers,
                                   exclude=exclude, cap=cap, named=s.ends_kept, sample=s.type_sample,
                                   vector=[float(x) for x in question.vector], full=full, types=types,
                                   budget=s.expand_budget)

    def _focused(self, prior: Mapping[PathKey, float]) -> bool:
        """Whether the memory's vote is sure enough of one path to walk only the remembered ones
        (``memory_focus``)."""
        return bool(prior) and max(prior.values()) >= self.settings.memory_focus

    def _observe_one(self, question: Query, topic: str, exclude: list[str], prior: Mapping[PathKey, float],
                     reentry: Set[PathKey], result: Observation, depth: int, focus: bool = True
                     ) -> list[ObservedPath]:
        s = self.settings
        names = self.names.get()
        # prefix of a remembered path → the relationship types that continue it
        forced: dict[PathKey, set[str]] = {}
        for key in prior:
            for i in range(1, len(key)):
                forced.setdefault(key[:i], set()).add(split_step(key[i])[0])
        focused = focus and self._focused(prior)
        first = sorted({split_step(key[0])[0] for key in prior if key}) if focused else None
        # focused: only the remembered paths and their prefixes need their complete end sets
        full = sorted({_group(key[:i]) for key in prior for i in range(1, len(key) + 1)}) if focused else None
        frontiers: list[dict[str, Any]] = [{"key": "[]", "ids": [topic], "relations": first or None}]
        observed: list[ObservedPath] = []
        for level in range(1, depth + 1):
            # the last level walks no further: only the remembered groups (focused) need more than ends_kept ends
            rows = self._expand(question, frontiers, exclude, result, full if focused or level < depth else [])
            if not rows:
                break
            keys = [tuple(json.loads(r["key"])) + (step(r["relation"], r["forward"]),) for r in rows]
            texts = [path_text(k, names) for k in keys]
            sims = self.scorer.similarities(question, texts)
            level_paths = []
            full_ends: dict[PathKey, list[str]] = {}
            for row, key, text, sim in zip(rows, keys, texts, sims, strict=True):
                level_paths.append(self._path(question, topic, key, text, row, float(sim), prior.get(key, 0.0),
                                              names))
                full_ends[key] = row["ends"]
            level_paths.sort(key=lambda p: (-p.score, p.path))
            by_level = {p.key: p for p in level_paths}
            # the best N, and every path the memory votes for even when it scored below them
            observed.extend(p for i, p in enumerate(level_paths) if i < s.top_n or p.prior > 0)
            if level == depth:
                break
            expandable = [p for p in level_paths if p.size <= s.max_frontier]
            wanted = 0 if focused else max(s.min_expand, math.ceil(s.top_percent * len(level_paths)))
            chosen: dict[PathKey, list[str] | None] = {p.key: None for p in expandable[:wanted]}
            chosen.update({p.key: sorted(forced[p.key]) for p in expandable if p.key in forced and p.key not in chosen})
            frontiers = [{"key": json.dumps(list(k)), "ids": full_ends[k], "relations": types,
                          "part": by_level[k].sampled or len(full_ends[k]) < by_level[k].size}
                         for k, types in chosen.items()]
            result.expanded += len(frontiers)
            if not frontiers:
                break
        by_key = {p.key: p for p in observed}
        top = max(prior.values(), default=0.0)
        for key, share in prior.items():
            if share > 0 and (key not in by_key or key in reentry):
                remembered = self._remembered(question, topic, key, exclude, share, names, key in reentry, by_key,
                                              walk_back=share >= top)
                if remembered is not None:
                    observed = [p for p in observed if p.key != key] + [remembered]
        return observed

    def _remembered(self, question: Query, topic: str, key: PathKey, exclude: Sequence[str], share: float,
                    names: Mapping[str, str], reentry: bool, observed: Mapping[PathKey, ObservedPath],
                    walk_back: bool) -> ObservedPath | None:
        """A remembered path the level-wise observation did not give as learned, followed directly when it can
        exist: the empty path (the topic itself); a path learned with ``reentry`` (the topic allowed back in); a
        path below a prefix too large to expand; or, when ``walk_back`` (the memory's most voted path), a path that
        leads nowhere unless the topic walks back into it ("the child of X's mother" when X has no siblings: X is
        its end; "the job of X's child's parents" when the child's other parent is not in the KG) — the question
        names these relations, and the topic is the one entity they reach. None when it leads nowhere from this
        topic even so."""
        s = self.settings
        allowed = [x for x in exclude if x != topic]
        if not key:
            ends = [{"id": topic, "name": self._name(topic), "support": 1}]
        elif reentry or self._below_incomplete(key, observed):
            ends = follow(self.graph, self.kg, topic, key, allowed if reentry else exclude, s.max_frontier)
        else:
            ends = []
        if key and not ends and not reentry and walk_back:
            ends = follow(self.graph, self.kg, topic, key, allowed, s.max_frontier)
            reentry = bool(ends)
        if not ends:
            return None
        text = path_text(key, names)
        similarity = float(self.scorer.similarities(question, [text])[0]) if text else 0.0
        row = {"size": len(ends), "ends": [e["id"] for e in ends], "names": [e["name"] for e in ends[: s.ends_kept]],
               "supports": [e["support"] for e in ends], "type_score": None}
        path = self._path(question, topic, key, text, row, similarity, share, names)
        path.reentry = reentry
        return path

    @staticmethod
    def _below_incomplete(key: PathKey, observed: Mapping[PathKey, ObservedPath]) -> bool:
        """Whether the longest observed prefix of ``key`` was too large to expand (so ``key`` may exist)."""
        for i in range(len(key) - 1, 0, -1):
            if key[:i] in observed:
                return not observed[key[:i]].complete
        return False

    def _name(self, entity: str) -> str:
        rows = self.graph.run("kgqa/entity_names", kg=self.kg, ids=[entity])
        return rows[0]["name"] if rows else entity

    def extend(self, question: Query, observed: Sequence[ObservedPath], topics: Sequence[str],
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
            rows = self._expand(question, [{"key": "[]", "ids": ends, "relations": None}], exclude, result)
            keys = [p.key + (step(r["relation"], r["forward"]),) for r in rows]
            texts = [path_text(k, names) for k in keys]
            for row, key, text, sim in zip(rows, keys, texts, self.scorer.similarities(question, texts),
                                           strict=True):
                out.append(self._path(question, p.topic, key, text, row, float(sim), prior.get(key, 0.0), names))
        return sorted(out, key=lambda x: (-x.score, x.path))

    def _path(self, question: Query, topic: str, key: PathKey, text: str, row: Mapping[str, Any],
              similarity: float, prior: float, names: Mapping[str, str]) -> ObservedPath:
        s = self.settings
        p = ObservedPath(topic=topic, path=list(key), text=text, display=path_display(key, names),
                         phrase=path_phrase(key, names), size=row["size"],
                         ends=row["ends"][: s.ends_kept], end_names=row["names"],
                         supports=row["supports"][: s.ends_kept], similarity=round(similarity, 4),
                         type_score=round(float(row["type_score"] or 0.0), 4), prior=prior,
                         complete=row.get("complete", row["size"] <= len(row["ends"]))
                         and not row.get("sampled", False),
                         sampled=bool(row.get("sampled", False)))
        p.score = round(self.scorer.score(p.similarity, p.length, p.type_score, p.prior, question.words,
                                          question.direct), 4)
        return p


def _group(key: PathKey) -> str:
    """A path as ``kgqa/expand_paths`` names the group that ends it: its prefix's key, its last relation and
    direction."""
    relation, forward = split_step(key[-1])
    return f"{json.dumps(list(key[:-1]))}|{relation}|{'>' if forward else '<'}"


def follow(graph: Graph, kg: str, topic: str, path: Sequence[str], exclude: Sequence[str],
           cap: int) -> list[dict[str, Any]]:
    """The complete end set of ``path`` from ``topic`` (``{id, name, support}`` best supported first, at most
    ``cap``), one ``kgqa/follow_path`` query per step; an end's support is how many entities of the step
    before reach it."""
    current: dict[str, int] = {topic: 1}
    names: dict[str, str] = {}
    for i, s in enumerate(path):
        relation, forward = split_step(s)
        # the last step's ends are ranked and cut in Cypher: a hub's 5,000 are not all named and sent back
        rows = graph.run_text(with_types("kgqa/follow_path", [relation]), kg=kg, ids=list(current),
                              relation=relation, forward=forward, exclude=list(exclude),
                              limit=cap if i == len(path) - 1 else None)
        current = {r["id"]: r["support"] for r in rows}
        names = {r["id"]: r["name"] for r in rows}
        if not current:
            break
    ranked = sorted(current.items(), key=lambda kv: (-kv[1], kv[0]))[:cap]
    return [{"id": e, "name": names.get(e, e), "support": n} for e, n in ranked]
