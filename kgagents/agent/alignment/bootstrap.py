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

from kgagents.agent.alignment.assignment import stable_assignment
from kgagents.agent.alignment.fusion import Ranking, Weights, rank
from kgagents.agent.alignment.signals import Progress, SignalCollector, Signals


def pseudo_seeds(ranked: Ranking, share: float) -> dict[str, str]:
    """The ``share`` of the one-to-one assignment's pairs with the highest fused scores."""
    scores = {s: dict(r) for s, r in ranked.items()}
    pairs = sorted(stable_assignment(ranked).items(), key=lambda st: (-scores[st[0]][st[1]], st[0]))
    return dict(pairs[: round(share * len(pairs))])


def bootstrap(collector: SignalCollector, signals: Signals, *, sources: Sequence[str], seeds: Mapping[str, str],
              weights: Weights, allowed: Collection[str] | None, rounds: int, share: float,
              progress: Progress | None = None) -> list[int]:
    """``rounds`` times: pseudo-seeds of the current ranking → structure recomputed with seeds + pseudo-seeds →
    new pairs scored. Returns the number of pseudo-seeds per round."""
    counts = []
    for _ in range(rounds):
        pseudo = pseudo_seeds(rank(signals, weights, allowed), share)
        counts.append(len(pseudo))
        collector.structure(signals, sources, {**pseudo, **seeds}, progress)
        collector.complete(signals)
    return counts
