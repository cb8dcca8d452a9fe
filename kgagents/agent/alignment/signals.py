"""The five retrieval signals of a (source, target) pair, computed over one read of the KG pair.

For every source entity the retriever proposes target entities of the other KG and scores each with:

(a) ``name`` — cosine of the English-name vectors (source: translated ``name_en``; target: ``name``);
(a') ``multilingual`` — cosine of the name-variant vectors (every name the data gives, any language, with a
    multilingual encoder: :mod:`kgagents.agent.alignment.embedding`);
    the top ``name_top_n`` targets of ``w_name·name + w_multilingual·multilingual`` are proposed;
(b) ``exact`` — 1 when any name the dataset gives the source (URI name, translation, labels in either language)
    equals any name of the target after :func:`~kgagents.names.name_key`;
(c) ``structure`` — seed propagation over the relationships: for each neighbour n of s that a seed aligns to m,
    every neighbour t of m gains 1/ln(e + deg m) (hubs count less; counterparts with degree >
    ``structure_max_degree`` are skipped); the top ``structure_top_n`` targets are proposed. It enters the fused
    score saturated, w / (1 + w), so one hub-weighted seed does not swamp the names;
(d) ``attributes`` — Jaccard of the attribute-name lists (DBP15K's Chinese side uses many English
    ``dbpedia.org/property`` names, so they are comparable across languages: :func:`diagnostics.attribute_overlap`).

Why in memory and not one query per source: the name signals compare every source with every target (a
10,500 × 19,572 cosine matrix on DBP15K is a few BLAS calls, where 10,500 vector-index queries took 27 s per
channel), and bootstrapping recomputes the structure signal several times over the same adjacency. So the pair is
read once (:class:`PairView`: vectors, relationships, attribute names, name keys — each a named query), and every
signal is exact: a pair proposed by any signal gets every value, so signals can be ablated by re-fusing.

Seeds are the TRAIN gold links. Their targets are *taken*: under the one-to-one assumption of the benchmark a
target already aligned by a seed is no candidate for another source.
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from kgagents.agent.alignment.settings import RetrievalSettings
from kgagents.graph.connection import Graph
from kgagents.names import name_key

if TYPE_CHECKING:
    from kgagents.agent.alignment.pseudo_seeds import MutualScan

Progress = Callable[[int], None]
#: source rows per cosine block: a 1,024 × 19,572 float32 block per channel is 80 MB
BLOCK = 1024


@dataclass(slots=True)
class PairSignals:
    """The signal values of one (source, target) pair and which signals proposed it (``found_by``: one shared
    frozenset per combination — a million pairs each with a set of their own cost gigabytes)."""

    name: float = 0.0
    multilingual: float = 0.0
    exact: float = 0.0
    structure: float = 0.0
    attributes: float = 0.0
    found_by: frozenset[str] = frozenset()
    #: every value filled in (:meth:`SignalCollector.complete`); only structure changes afterwards
    complete: bool = False


Signals = dict[str, dict[str, PairSignals]]  # source id -> target id -> signals


def copy_signals(signals: Signals) -> Signals:
    """An independent copy (what a trial that bootstraps from the same first pass starts from); ~9× faster than
    ``copy.deepcopy`` on DBP15K's 600,000 pairs."""
    return {s: {t: PairSignals(p.name, p.multilingual, p.exact, p.structure, p.attributes, p.found_by, p.complete)
                for t, p in targets.items()} for s, targets in signals.items()}


def _vectors(rows: Sequence[Mapping[str, Any]], key: str, ids: Sequence[str]) -> np.ndarray:
    """Unit vectors of ``ids`` in that order (zero rows where an entity has none: cosine 0 with everything)."""
    found = {r["id"]: r[key] for r in rows if r[key] is not None}
    dims = len(next(iter(found.values()))) if found else 1
    out = np.zeros((len(ids), dims), dtype=np.float32)
    for i, entity in enumerate(ids):
        vector = found.get(entity)
        if vector is not None:
            out[i] = vector
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.maximum(norms, np.float32(1e-12))


class PairView:
    """What retrieval reads from the graph once per KG pair: name vectors, relationships, attribute names and
    name keys of both KGs (six named queries)."""

    def __init__(self, graph: Graph, *, kg1: str, kg2: str, settings: RetrievalSettings) -> None:
        self.kg1, self.kg2 = kg1, kg2
        params = {"english": settings.vector_property, "multilingual": settings.multilingual_vector_property}
        rows1 = graph.run("alignment_ea/entity_vectors", kg=kg1, **params)
        rows2 = graph.run("alignment_ea/entity_vectors", kg=kg2, **params)
        self.ids1 = [r["id"] for r in rows1]
        self.ids2 = [r["id"] for r in rows2]
        self.row1 = {e: i for i, e in enumerate(self.ids1)}
        self.row2 = {e: i for i, e in enumerate(self.ids2)}
        self.english1, self.english2 = _vectors(rows1, "english", self.ids1), _vectors(rows2, "english", self.ids2)
        self.multi1 = _vectors(rows1, "multilingual", self.ids1)
        self.multi2 = _vectors(rows2, "multilingual", self.ids2)
        self.has_multilingual = any(r["multilingual"] is not None for r in rows1) and any(
            r["multilingual"] is not None for r in rows2)
        self.neighbours1 = _adjacency(graph, kg1)
        self.neighbours2 = _adjacency(graph, kg2)
        self.attributes1 = _attributes(graph, kg1)
        self.attributes2 = _attributes(graph, kg2)
        self.keys1 = _name_keys(graph, kg1)
        self.keys2 = _name_keys(graph, kg2)
        self.by_key2: dict[str, list[str]] = defaultdict(list)
        for entity, keys in self.keys2.items():
            for key in keys:
                self.by_key2[key].append(entity)

    def cosines(self, source: str, targets: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(English, multilingual) cosines of ``source`` with each of ``targets``."""
        i = self.row1[source]
        rows = [self.row2[t] for t in targets]
        return self.english2[rows] @ self.english1[i], self.multi2[rows] @ self.multi1[i]


def _adjacency(graph: Graph, kg: str) -> dict[str, list[str]]:
    """Id → neighbour ids (both directions, one entry per relationship, self-loops left out)."""
    out: dict[str, list[str]] = defaultdict(list)
    for row in graph.run("alignment_ea/kg_edges", kg=kg):
        if row["h"] != row["t"]:
            out[row["h"]].append(row["t"])
            out[row["t"]].append(row["h"])
    return out


def _attributes(graph: Graph, kg: str) -> dict[str, frozenset[str]]:
    return {row["id"]: frozenset(row["attributes"]) for row in graph.run("alignment_ea/entity_attributes", kg=kg)}


def _name_keys(graph: Graph, kg: str) -> dict[str, set[str]]:
    return {row["id"]: {k for k in (name_key(n) for n in row["names"]) if k}
            for row in graph.run("alignment_ea/entity_name_variants", kg=kg)}


_COMBINATIONS: dict[tuple[frozenset[str], str], frozenset[str]] = {}


def _with(found: frozenset[str], by: str) -> frozenset[str]:
    """``found`` and ``by``, as the one shared frozenset of that combination."""
    key = (found, by)
    combined = _COMBINATIONS.get(key)
    if combined is None:
        combined = _COMBINATIONS[key] = found | {by}
    return combined


def _pair(signals: Signals, s: str, t: str, by: str) -> PairSignals:
    row = signals.get(s)
    if row is None:
        row = signals[s] = {}
    p = row.get(t)
    if p is None:  # most calls: a new pair, found by ``by`` alone
        p = row[t] = PairSignals(found_by=_with(_NONE, by))
    elif by not in p.found_by:
        p.found_by = _with(p.found_by, by)
    return p


_NONE: frozenset[str] = frozenset()


def _top(scores: dict[str, float], n: int) -> list[tuple[str, float]]:
    """The ``n`` best (target, score) of ``scores``, ties by id: what sorting by (−score, id) and keeping ``n``
    gives, found through the ``n``-th best score (a C-level selection over plain floats) instead of a key per
    item."""
    if len(scores) <= n:
        return list(scores.items())
    kth = heapq.nlargest(n, scores.values())[-1]
    above = [(t, w) for t, w in scores.items() if w > kth]
    return above + [(t, kth) for t in sorted(t for t, w in scores.items() if w == kth)[: n - len(above)]]


class SignalCollector:
    """Proposes and scores (source, target) pairs of one KG pair over a :class:`PairView`.

    ``taken``: target ids that are no candidates (targets of seed links). Each method adds to a :data:`Signals`
    table in place, so the passes (names, structure with a growing seed set) compose.
    """

    def __init__(self, view: PairView, settings: RetrievalSettings, taken: Iterable[str] = ()) -> None:
        self.view, self.settings = view, settings
        self.taken = set(taken)
        self.open_targets = [t for t in view.ids2 if t not in self.taken]
        self._open_rows = np.array([view.row2[t] for t in self.open_targets], dtype=np.int64)

    def names(self, signals: Signals, sources: Sequence[str], progress: Progress | None = None,
              scan: MutualScan | None = None) -> None:
        """Signals (a), (a') and (b): the top ``name_top_n`` open targets by weighted name cosine (both cosines
        kept) and every open target sharing a name key. ``scan`` sees every block of cosines on the way (the
        pseudo-seeds' nearest neighbours, without a second pass)."""
        v, s = self.view, self.settings
        known = [x for x in sources if x in v.row1]
        if scan is not None:
            scan.start(known, self.open_targets)
        n = min(s.name_top_n, len(self.open_targets))
        english2, multi2 = v.english2[self._open_rows], v.multi2[self._open_rows]
        w_multi = s.w_multilingual if v.has_multilingual else 0.0
        for start in range(0, len(known), BLOCK):
            block = known[start:start + BLOCK]
            rows = [v.row1[x] for x in block]
            english = v.english1[rows] @ english2.T
            multi = v.multi1[rows] @ multi2.T
            if scan is not None:
                scan.add("name", english)
                if v.has_multilingual:
                    scan.add("multilingual", multi)
            score = s.w_name * english + w_multi * multi
            if n:
                top = np.argpartition(-score, n - 1, axis=1)[:, :n]
                # as Python lists in three bulk conversions: a million pairs one numpy scalar at a time cost seconds
                columns = top.tolist()
                names = np.take_along_axis(english, top, axis=1).tolist()
                multis = np.take_along_axis(multi, top, axis=1).tolist()
                targets = self.open_targets
                for source, cs, es, ms in zip(block, columns, names, multis, strict=True):
                    for c, e, m in zip(cs, es, ms, strict=True):
                        p = _pair(signals, source, targets[c], "name")
                        p.name, p.multilingual = e, m
            if progress is not None:
                progress(len(block))
        for source in sources:
            for key in v.keys1.get(source, ()):
                for target in v.by_key2.get(key, ()):
                    if target not in self.taken:
                        _pair(signals, source, target, "exact")

    def structure(self, signals: Signals, sources: Sequence[str], seeds: Mapping[str, str],
                  progress: Progress | None = None) -> None:
        """Signal (c) for ``sources`` from ``seeds`` (source-KG id → target-KG id), replacing earlier values;
        proposes each source's top ``structure_top_n`` targets."""
        s, v = self.settings, self.view
        degree = {m: len(v.neighbours2.get(m, ())) for m in set(seeds.values())}
        weight = {m: 1.0 / math.log(math.e + d) for m, d in degree.items() if 0 < d <= s.structure_max_degree}
        for source in sources:
            for p in signals.get(source, {}).values():
                p.structure = 0.0
            if not s.structure_top_n:
                continue
            counterparts = {seeds[n] for n in v.neighbours1.get(source, ()) if n != source and n in seeds}
            scores: dict[str, float] = defaultdict(float)
            for m in counterparts:
                w = weight.get(m)
                if w is None:
                    continue
                for t in set(v.neighbours2[m]):
                    if t != m and t not in self.taken:
                        scores[t] += w
            if not scores:
                continue
            known = signals.get(source, {})
            for t, w in _top(scores, s.structure_top_n):
                _pair(signals, source, t, "structure").structure = w
            for t, p in known.items():
                if t in scores:
                    p.structure = scores[t]
        if progress is not None:
            progress(len(sources))

    def complete(self, signals: Signals) -> None:
        """Give every pair every value: name cosines (when a signal other than the names proposed it), exact-key
        equality and attribute-name Jaccard — for the pairs not completed before (none of these values changes)."""
        v = self.view
        for source, all_targets in signals.items():
            targets = {t: p for t, p in all_targets.items() if not p.complete}
            if not targets:
                continue
            missing = [t for t, p in targets.items() if "name" not in p.found_by]
            if missing:
                english, multi = v.cosines(source, missing)
                for t, e, m in zip(missing, english, multi, strict=True):
                    targets[t].name, targets[t].multilingual = float(e), float(m)
            keys = v.keys1.get(source, set())
            a = v.attributes1.get(source, frozenset())
            for t, p in targets.items():
                p.complete = True
                p.exact = 1.0 if keys & v.keys2.get(t, set()) else 0.0
                b = v.attributes2.get(t, frozenset())
                union = len(a) + len(b)
                shared = len(a & b) if union else 0
                p.attributes = shared / (union - shared) if union else 0.0
