"""Entity-alignment ranking metrics: Hits@k and MRR over gold links, and the name-bias subset.

Protocol (as in the DBP15K literature): every test source entity has one gold target; a system gives a
ranked candidate list per source. Hits@k = share of sources whose gold target is among the first k;
MRR = mean of 1 / rank of the gold target. Candidate lists are finite here (a retriever returns a
few dozen), so a gold target missing from the list counts as rank ∞ (reciprocal rank 0) — a slight
under-estimate of the untruncated MRR, never an over-estimate. A source without any list counts as a miss.

Name bias: many DBP15K pairs share an identical (translated) name, which makes them trivial for any
name matcher. :func:`~kgagents.names.name_key` (the exact-name signal's normalisation) finds them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel

from kgagents.names import name_key


class RankScores(BaseModel):
    """Hits@1, Hits@10 and MRR over ``n`` gold links."""

    hits_at_1: float
    hits_at_10: float
    mrr: float
    n: int


def rank_of(candidates: Sequence[str], gold: str) -> int | None:
    """1-based position of ``gold`` in ``candidates``, or None when absent."""
    for position, candidate in enumerate(candidates, 1):
        if candidate == gold:
            return position
    return None


def rank_scores(rankings: Mapping[str, Sequence[str]], gold: Iterable[tuple[str, str]]) -> RankScores:
    """Hits@1, Hits@10 and MRR of ``rankings`` (source → ranked targets) against gold (source, target) links."""
    links = list(gold)
    if not links:
        return RankScores(hits_at_1=0.0, hits_at_10=0.0, mrr=0.0, n=0)
    ranks = [rank_of(rankings.get(source, ()), target) for source, target in links]
    n = len(links)
    return RankScores(
        hits_at_1=sum(1 for r in ranks if r == 1) / n,
        hits_at_10=sum(1 for r in ranks if r is not None and r <= 10) / n,
        mrr=sum(1.0 / r for r in ranks if r is not None) / n,
        n=n,
    )


def non_trivial_links(gold: Iterable[tuple[str, str]], source_names: Mapping[str, str | None],
                      target_names: Mapping[str, str | None]) -> list[tuple[str, str]]:
    """The gold links whose two names differ after :func:`name_key` (the name-bias-free subset)."""
    return [(s, t) for s, t in gold
            if not name_key(source_names.get(s)) or name_key(source_names.get(s)) != name_key(target_names.get(t))]
