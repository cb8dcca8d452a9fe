"""Bootstrapping (as in BootEA-style semi-supervised EA): confident alignments become extra structural seeds.

After a ranking, the ``share`` of the pairs the global one-to-one assignment
(:mod:`kgagents.agent.alignment.assignment`) makes with the highest fused scores become pseudo-seeds (a share, not a
score threshold, so the setting means the same whatever the weights' scale), and the structure signal is
recomputed with the train seeds plus these predictions. No gold link of the test split is read to do so; the
pseudo-seeds are the retriever's own output, so their errors propagate (their number per round is recorded on the
run). A source's own pseudo-seed never feeds its own structure (only neighbours' seeds count).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING

from kgagents.agent.alignment.assignment import stable_assignment
from kgagents.agent.alignment.fusion import Ranking, Weights, rank
from kgagents.agent.alignment.signals import Progress, SignalCollector, Signals

if TYPE_CHECKING:
    from kgagents.agent.alignment.pseudo_seeds import OutsideAnchors


def assigned_by_score(ranked: Ranking) -> list[tuple[str, str]]:
    """The one-to-one assignment's pairs, highest fused score first (a share of it is a prefix)."""
    scores = {s: dict(r) for s, r in ranked.items()}
    return sorted(stable_assignment(ranked).items(), key=lambda st: (-scores[st[0]][st[1]], st[0]))


def pseudo_seeds(ranked: Ranking, share: float) -> dict[str, str]:
    """The ``share`` of the one-to-one assignment's pairs with the highest fused scores."""
    pairs = assigned_by_score(ranked)
    return dict(pairs[: round(share * len(pairs))])


def bootstrap(collector: SignalCollector, signals: Signals, *, sources: Sequence[str], seeds: Mapping[str, str],
              weights: Weights, allowed: Collection[str] | None, rounds: int, share: float,
              progress: Progress | None = None, outside: OutsideAnchors | None = None,
              anchor_counts: list[int] | None = None) -> list[int]:
    """``rounds`` times: pseudo-seeds of the current ranking → (with ``outside``: anchors outside the task found
    again with them, their number appended to ``anchor_counts``) → structure recomputed with seeds + anchors +
    pseudo-seeds → new pairs scored. Returns the number of pseudo-seeds per round."""
    counts = []
    anchors: dict[str, str] | None = None
    for _ in range(rounds):
        pseudo = pseudo_seeds(rank(signals, weights, allowed), share)
        counts.append(len(pseudo))
        if outside:
            anchors = outside.find({**pseudo, **seeds}, anchors)[0]
            if anchor_counts is not None:
                anchor_counts.append(len(anchors))
        collector.structure(signals, sources, {**pseudo, **seeds, **(anchors or {})}, progress)
        collector.complete(signals)
    return counts
