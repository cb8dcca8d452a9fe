"""Pseudo-seeds: the alignment's own most certain pairs, for a run that has few or no seed links.

Why: structure (neighbours of aligned neighbours) carries most of what names miss, but it needs aligned
neighbours to start from, and tuning the fusion needs pairs to validate on. A user aligning two KGs of their own
rarely has seed links. Pairs the data itself makes certain stand in for them: a (source, target) pair is a
pseudo-seed when, in at least ``pseudo_seed_channels`` independent channels, each is the other's nearest
neighbour (mutual), and clearly so — in a cosine channel the best score leads the runner-up of the source's row and
of the target's column by at least ``pseudo_seed_margin``. A pair some channel contradicts (another mutual nearest
neighbour for either entity) is dropped.

Channels: the English-name cosine, the multilingual name-variant cosine (when embedded), exact name keys (a
key shared by exactly one source and one target) and, when seed links are given, structure (the source's best
structural target, and that target's best source, agree and lead). No gold link is read.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np

from kgagents.agent.alignment.settings import RetrievalSettings
from kgagents.agent.alignment.signals import BLOCK, PairView, Signals

#: the channels a pseudo-seed can be found in
CHANNELS = ("name", "multilingual", "exact", "structure")


def _mutual_cosine(left: np.ndarray, right: np.ndarray, margin: float) -> dict[int, int]:
    """Row → column of the pairs that are each other's best in ``left @ right.T``, each leading its row's and its
    column's runner-up by at least ``margin`` (rows with no vector score 0 everywhere and never lead)."""
    if not len(left) or not len(right):
        return {}
    n_cols = right.shape[0]
    row_best = np.empty(len(left), dtype=np.int64)
    row_lead = np.empty(len(left), dtype=np.float32)
    col_first = np.full(n_cols, -np.inf, dtype=np.float32)
    col_second = np.full(n_cols, -np.inf, dtype=np.float32)
    col_best = np.zeros(n_cols, dtype=np.int64)
    for start in range(0, len(left), BLOCK):
        scores = left[start:start + BLOCK] @ right.T
        if n_cols > 1:
            top2 = np.argpartition(-scores, 1, axis=1)[:, :2]
            values = np.take_along_axis(scores, top2, axis=1)
            first = values.argmax(axis=1)
            rows = np.arange(len(scores))
            row_best[start:start + len(scores)] = top2[rows, first]
            row_lead[start:start + len(scores)] = values[rows, first] - values[rows, 1 - first]
        else:
            row_best[start:start + len(scores)] = 0
            row_lead[start:start + len(scores)] = scores[:, 0]
        # the columns' best two over this block, merged with the running best two
        if len(scores) > 1:
            ctop = np.argpartition(-scores, 1, axis=0)[:2]
            cvals = np.take_along_axis(scores, ctop, axis=0)
            cfirst_at = cvals.argmax(axis=0)
            cols = np.arange(n_cols)
            b_first, b_second = cvals[cfirst_at, cols], cvals[1 - cfirst_at, cols]
            b_best = ctop[cfirst_at, cols] + start
        else:
            b_first, b_second = scores[0], np.full(n_cols, -np.inf, dtype=np.float32)
            b_best = np.full(n_cols, start, dtype=np.int64)
        new_second = np.maximum(np.minimum(col_first, b_first), np.maximum(col_second, b_second))
        take = b_first > col_first
        col_best = np.where(take, b_best, col_best)
        col_first = np.maximum(col_first, b_first)
        col_second = new_second
    col_lead = col_first - col_second
    out = {}
    for row, col in enumerate(row_best.tolist()):
        if col_best[col] == row and row_lead[row] >= margin and col_lead[col] >= margin and col_first[col] > 0:
            out[row] = col
    return out


def channel_pairs(view: PairView, *, sources: Sequence[str], targets: Sequence[str], settings: RetrievalSettings,
                  signals: Signals | None = None) -> dict[str, dict[str, str]]:
    """Channel → {source: target} of its mutual, clear nearest neighbours among ``sources`` × ``targets``.
    ``signals`` with structure values (a first pass with seed links) adds the structure channel."""
    known = [s for s in sources if s in view.row1]
    open_targets = [t for t in targets if t in view.row2]
    rows1 = np.array([view.row1[s] for s in known], dtype=np.int64)
    rows2 = np.array([view.row2[t] for t in open_targets], dtype=np.int64)
    found: dict[str, dict[str, str]] = {}
    matrices = [("name", view.english1, view.english2)]
    if view.has_multilingual:
        matrices.append(("multilingual", view.multi1, view.multi2))
    for channel, left, right in matrices:
        pairs = _mutual_cosine(left[rows1], right[rows2], settings.pseudo_seed_margin) if len(rows1) else {}
        found[channel] = {known[r]: open_targets[c] for r, c in pairs.items()}
    found["exact"] = _unique_keys(view, known, set(open_targets))
    if signals is not None:
        found["structure"] = _mutual_structure(signals, known, set(open_targets))
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


def find_pseudo_seeds(view: PairView, *, sources: Sequence[str], targets: Sequence[str],
                      settings: RetrievalSettings, signals: Signals | None = None
                      ) -> tuple[dict[str, str], dict[str, int]]:
    """(pseudo-seeds source → target, how many pairs each channel found) — see the module docstring."""
    channels = channel_pairs(view, sources=sources, targets=targets, settings=settings, signals=signals)
    return agreed_pairs(channels, settings.pseudo_seed_channels), {c: len(p) for c, p in channels.items()}
