"""Pseudo-seeds: the alignment's own most certain pairs, for a run that has few or no seed links.

Why: structure (neighbours of aligned neighbours) carries most of what names miss, but it needs aligned
neighbours to start from, and tuning the fusion needs pairs to validate on. A user aligning two KGs of their own
rarely has seed links. Pairs the data itself makes certain stand in for them: a (source, target) pair is a
pseudo-seed when, in at least ``pseudo_seed_channels`` independent channels, each is the other's nearest
neighbour (mutual), and clearly so — in a cosine channel the best score leads the runner-up of the source's row and
of the target's column by at least ``pseudo_seed_margin``. A pair some channel contradicts (another mutual nearest
neighbour for either entity) is dropped.

Anchors (:class:`OutsideAnchors`): the same rule among the entities a task does not rank — the source KG's entities
outside its sources and seed links, against the target KG's entities outside its targets (a benchmark ranks its
test links only; the rest of the two KGs is still there). They are never candidates and never validate; they only
give the structure channel more aligned neighbours, as seed links would. Once structure is known there, the fused
score's mutual clear nearest neighbours are one more channel, and what the agreed anchors leave is paired greedily
by the fused score (:func:`with_residual`).

Channels: the English-name cosine, the multilingual name-variant cosine (when embedded), exact name keys (a
key shared by exactly one source and one target) and, when seed links are given, structure (the source's best
structural target, and that target's best source, agree and lead). No gold link is read.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence

import numpy as np

from kgagents.agent.alignment.fusion import SIGNALS, Ranking, Weights, rank
from kgagents.agent.alignment.settings import RetrievalSettings
from kgagents.agent.alignment.signals import PairView, SignalCollector, Signals


class MutualScan:
    """The mutual, clear nearest neighbours of the cosine channels, accumulated block by block while the names
    pass (:meth:`~kgagents.agent.alignment.signals.SignalCollector.names`) computes the cosines anyway: per source
    row its best target and lead over the runner-up, per target column its best row, best and second-best score."""

    def __init__(self) -> None:
        self._rows: dict[str, tuple[list[np.ndarray], list[np.ndarray]]] = {}
        self._cols: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self.sources: list[str] = []
        self.targets: list[str] = []

    def start(self, sources: Sequence[str], targets: Sequence[str]) -> None:
        """Scan ``sources`` (rows, in block order) against ``targets`` (columns)."""
        self.sources, self.targets = list(sources), list(targets)
        self._rows, self._cols = {}, {}

    def add(self, channel: str, scores: np.ndarray) -> None:
        """The cosines of the next block of source rows (in order) with every target."""
        n_rows, n_cols = scores.shape
        row_best, row_lead = self._rows.setdefault(channel, ([], []))
        offset = sum(len(b) for b in row_best)
        if n_cols > 1:
            best, first, second = _top_two(scores, axis=1)
            row_best.append(best)
            row_lead.append(first - second)
        else:
            row_best.append(np.zeros(n_rows, dtype=np.int64))
            row_lead.append(scores[:, 0] if n_cols else np.zeros(n_rows, dtype=np.float32))
        if not n_cols:
            return
        col_first, col_second, col_best = self._cols.get(channel) or (
            np.full(n_cols, -np.inf, dtype=np.float32), np.full(n_cols, -np.inf, dtype=np.float32),
            np.zeros(n_cols, dtype=np.int64))
        if n_rows > 1:
            at, b_first, b_second = _top_two(scores, axis=0)
            b_best = at + offset
        else:
            b_first, b_second = scores[0], np.full(n_cols, -np.inf, dtype=np.float32)
            b_best = np.full(n_cols, offset, dtype=np.int64)
        second = np.maximum(np.minimum(col_first, b_first), np.maximum(col_second, b_second))
        col_best = np.where(b_first > col_first, b_best, col_best)
        self._cols[channel] = (np.maximum(col_first, b_first), second, col_best)

    def pairs(self, channel: str, margin: float) -> dict[str, str]:
        """Source → target of the channel's mutual nearest neighbours that lead their row's and their column's
        runner-up by at least ``margin`` (an entity with no vector scores 0 everywhere and never leads)."""
        if channel not in self._cols:
            return {}
        row_best, row_lead = (np.concatenate(x) for x in self._rows[channel])
        col_first, col_second, col_best = self._cols[channel]
        col_lead = col_first - col_second
        out = {}
        for row, col in enumerate(row_best.tolist()):
            if col_best[col] == row and row_lead[row] >= margin and col_lead[col] >= margin and col_first[col] > 0:
                out[self.sources[row]] = self.targets[col]
        return out


def _top_two(scores: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(index of the best, best, second best) along ``axis`` of a 2-D array — two max reductions, several times
    faster than a partition along the same axis; ``scores`` is left as it was."""
    best = scores.argmax(axis=axis)
    other = np.arange(scores.shape[1 - axis])
    at = (other, best) if axis == 1 else (best, other)
    first = scores[at].copy()
    scores[at] = -np.inf
    second = scores.max(axis=axis)
    scores[at] = first
    return best, first, second


def channel_pairs(view: PairView, scan: MutualScan, *, settings: RetrievalSettings,
                  structure: Signals | None = None) -> dict[str, dict[str, str]]:
    """Channel → {source: target} of its mutual, clear nearest neighbours over what ``scan`` saw (the cosine
    channels), the name keys and — given ``structure`` values from seed links — the structure channel."""
    found = {channel: scan.pairs(channel, settings.pseudo_seed_margin) for channel in ("name", "multilingual")
             if channel == "name" or view.has_multilingual}
    found["exact"] = _unique_keys(view, scan.sources, set(scan.targets))
    if structure is not None:
        found["structure"] = _mutual_structure(structure, scan.sources, set(scan.targets))
    return found


def _unique_keys(view: PairView, sources: Sequence[str], targets: set[str]) -> dict[str, str]:
    """Source → target where they share a name key and neither shares one with any other entity."""
    by_key1: dict[str, set[str]] = defaultdict(set)
    for s in sources:
        for key in view.keys1.get(s, ()):
            by_key1[key].add(s)
    match1: dict[str, set[str]] = defaultdict(set)
    match2: dict[str, set[str]] = defaultdict(set)
    for key, ss in by_key1.items():
        ts = [t for t in view.by_key2.get(key, ()) if t in targets]
        for s in ss:
            match1[s].update(ts)
        for t in ts:
            match2[t].update(ss)
    return {s: next(iter(ts)) for s, ts in match1.items() if len(ts) == 1 and len(match2[next(iter(ts))]) == 1}


def _mutual_structure(signals: Signals, sources: Sequence[str], targets: set[str]) -> dict[str, str]:
    """Source → target where each is the other's only best structural match (strictly ahead of the runner-up)."""
    best_of_source: dict[str, str] = {}
    by_target: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for s in sources:
        scored = sorted(((p.structure, t) for t, p in signals.get(s, {}).items()
                         if p.structure > 0 and t in targets), reverse=True)
        for value, t in scored:
            by_target[t].append((value, s))
        if scored and (len(scored) == 1 or scored[0][0] > scored[1][0]):
            best_of_source[s] = scored[0][1]
    out = {}
    for s, t in best_of_source.items():
        ranked = sorted(by_target[t], reverse=True)
        if ranked[0][1] == s and (len(ranked) == 1 or ranked[0][0] > ranked[1][0]):
            out[s] = t
    return out


def agreed_pairs(channels: Mapping[str, Mapping[str, str]], min_channels: int) -> dict[str, str]:
    """The pairs found in at least ``min_channels`` channels that no channel contradicts (no other partner of
    either entity in any channel)."""
    partners1: dict[str, set[str]] = defaultdict(set)
    partners2: dict[str, set[str]] = defaultdict(set)
    votes: dict[tuple[str, str], int] = defaultdict(int)
    for pairs in channels.values():
        for s, t in pairs.items():
            partners1[s].add(t)
            partners2[t].add(s)
            votes[(s, t)] += 1
    return {s: t for (s, t), n in sorted(votes.items())
            if n >= min_channels and len(partners1[s]) == 1 and len(partners2[t]) == 1}


def find_pseudo_seeds(view: PairView, scan: MutualScan, *, settings: RetrievalSettings,
                      structure: Signals | None = None) -> tuple[dict[str, str], dict[str, int]]:
    """(pseudo-seeds source → target, how many pairs each channel found) — see the module docstring."""
    channels = channel_pairs(view, scan, settings=settings, structure=structure)
    return agreed_pairs(channels, settings.pseudo_seed_channels), {c: len(p) for c, p in channels.items()}


class OutsideAnchors:
    """Anchors among the entities outside a task (module docstring): the source KG's entities not in ``sources``
    nor seeded, against the target KG's not in ``targets`` (None: every target not seeded). Their name channels are
    scanned once; :meth:`find` adds the structure channel from the aligned pairs it is given, so each bootstrap
    round — more pairs aligned inside the task — can find more anchors outside. Empty when either side is: a task
    over every entity of both KGs has no outside."""

    def __init__(self, view: PairView, *, sources: Collection[str],
                 targets: Collection[str] | None, seeds: Mapping[str, str], settings: RetrievalSettings) -> None:
        self.view, self.settings, self.seeds = view, settings, dict(seeds)
        ranked = set(sources) | set(seeds)
        self.sources = [e for e in view.ids1 if e not in ranked]
        # the task's targets are taken here: the outside block's open targets are the target KG's other entities
        self.collector = SignalCollector(view, settings.model_copy(update={"name_top_n": settings.outside_name_top_n}),
                                         taken={*seeds.values(), *(targets or ())})
        self.signals: Signals = {}
        self.scan = MutualScan()
        self.anchors: dict[str, str] = {}
        self.channels: dict[str, int] = {}
        if not self.sources or not self.collector.open_targets:
            self.sources = []
            return
        self.collector.names(self.signals, self.sources, scan=self.scan)
        self.anchors, self.channels = find_pseudo_seeds(view, self.scan, settings=settings)

    def __bool__(self) -> bool:
        return bool(self.sources)

    def settle(self, inside: Mapping[str, str]) -> None:
        """Replace :attr:`anchors` (and :attr:`channels`) by what :meth:`find` finds with ``inside`` — the anchors
        a run starts from (the tuning's, from the task's pseudo-seeds)."""
        self.anchors, self.channels = self.find(inside)

    def find(self, inside: Mapping[str, str], anchors: Mapping[str, str] | None = None
             ) -> tuple[dict[str, str], dict[str, int]]:
        """(anchors, pairs per channel) by every channel, the structure channel's aligned neighbours being
        ``anchors`` (default: the name channels' :attr:`anchors`), ``inside`` (pairs aligned within the task) and
        the seed links. With structure in, the fused score is a channel too (:func:`fused_pairs`): a pair the names
        leave unclear can be found by structure and the fused score together."""
        if not self:
            return {}, {}
        aligned = {**(self.anchors if anchors is None else anchors), **inside, **self.seeds}
        self.collector.structure(self.signals, self.sources, aligned)
        self.collector.complete(self.signals)
        channels = channel_pairs(self.view, self.scan, settings=self.settings, structure=self.signals)
        if not self.settings.outside_fused:
            return agreed_pairs(channels, self.settings.pseudo_seed_channels), {c: len(p) for c, p in channels.items()}
        weights = Weights.of(self.settings)
        ranked = rank(self.signals, weights)
        lead = self.settings.pseudo_seed_margin * sum(abs(getattr(weights, s)) for s in SIGNALS)
        channels["fused"] = fused_pairs(ranked, lead)
        agreed = agreed_pairs(channels, self.settings.pseudo_seed_channels)
        found = with_residual(ranked, agreed, lead)
        return found, {**{c: len(p) for c, p in channels.items()}, "residual": len(found) - len(agreed)}


def with_residual(ranked: Ranking, found: Mapping[str, str], lead: float) -> dict[str, str]:
    """``found`` and, until none is left, the :func:`fused_pairs` among what it leaves: the sources it does not
    pair, against the targets it does not take. Why: an entity whose nearest neighbour an agreed pair took is not
    mutual anywhere, yet once that pair is set aside its own counterpart is often plainly its best (one-to-one,
    found greedily by certainty rather than by a global assignment, which would pair every entity of a KG that has
    no counterpart with something)."""
    out = dict(found)
    while True:
        used = set(out.values())
        rest = {s: [(t, v) for t, v in targets if t not in used] for s, targets in ranked.items() if s not in out}
        more = fused_pairs(rest, lead)
        if not more:
            return out
        out.update(more)


def fused_pairs(ranked: Ranking, lead: float) -> dict[str, str]:
    """Source → target of a ranking's mutual nearest neighbours that lead their row's and their column's runner-up
    (among the ranked pairs) by at least ``lead``. On the fused score the lead is ``pseudo_seed_margin`` per unit
    of weight: the fused score is a weighted sum, so a cosine channel's margin scales with the weights."""
    column: dict[str, tuple[float, str, float]] = {}  # target -> (best score, its source, second score)
    for s, targets in ranked.items():
        for t, v in targets:
            first, at, second = column.get(t, (-math.inf, "", -math.inf))
            column[t] = (v, s, first) if v > first else (first, at, max(second, v))
    out = {}
    for s, targets in ranked.items():
        if not targets:
            continue
        (t, first), second = targets[0], targets[1][1] if len(targets) > 1 else -math.inf
        col_first, at, col_second = column[t]
        if at == s and first - second >= lead and col_first - col_second >= lead:
            out[s] = t
    return out
