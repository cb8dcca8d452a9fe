"""Reciprocal rank fusion as Agent-OM defines it: constant 0, 1-based ranks, ties share a rank.

Each channel gives a list of (candidate, similarity). Within a list, candidates with equal
similarity form one rank group (dense ranking: 1, 1, 2, …). A candidate's fused score is the sum over
channels of 1 / rank. The fused list is ranked the same way, so the validator walks rank *groups*.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Fused:
    """One fused candidate: its RRF score, its fused rank group, and the channels that proposed it."""

    candidate: str
    score: float
    rank: int
    channels: tuple[str, ...]
    similarities: Mapping[str, float] = field(default_factory=dict)


def dense_ranks(scored: Sequence[tuple[str, float]], digits: int = 6) -> dict[str, int]:
    """1-based dense ranks, higher score first; scores equal to ``digits`` decimals share a rank."""
    ranks: dict[str, int] = {}
    rank, previous = 0, None
    for candidate, score in sorted(scored, key=lambda cs: (-cs[1], cs[0])):
        key = round(score, digits)
        if key != previous:
            rank, previous = rank + 1, key
        ranks.setdefault(candidate, rank)
    return ranks


def reciprocal_rank_fusion(channel_lists: Mapping[str, Iterable[tuple[str, float]]]) -> list[Fused]:
    """Fuse per-channel candidate lists into rank groups, best first."""
    scores: dict[str, float] = defaultdict(float)
    channels: dict[str, list[str]] = defaultdict(list)
    sims: dict[str, dict[str, float]] = defaultdict(dict)
    for channel, scored in channel_lists.items():
        scored = list(scored)
        for candidate, rank in dense_ranks(scored).items():
            scores[candidate] += 1.0 / rank
            channels[candidate].append(channel)
        for candidate, similarity in scored:
            sims[candidate][channel] = max(similarity, sims[candidate].get(channel, float("-inf")))
    fused_ranks = dense_ranks(list(scores.items()))
    fused = [
        Fused(c, scores[c], fused_ranks[c], tuple(sorted(channels[c])), dict(sims[c])) for c in scores
    ]
    return sorted(fused, key=lambda f: (f.rank, f.candidate))
