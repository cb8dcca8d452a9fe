"""One confidence in [0, 1] per entity-alignment pair: how often retrieval's rank 1 was right, on held-out links,
at that source's retrieval margin.

The margin is taken among the ``top_k`` candidates a run stores, on the held-out links as on the run, because that
is what the graph keeps for a pair exported later (with the taken penalty a strong rival can rank below them).

Why the margin and not the fused score: the fused score ranks one source's candidates but is on no common scale
(weighted name and structure similarities, CSLS-rescaled; it goes negative), while the margin — rank 1's score minus
the best other candidate's, the number the LLM gate already thresholds — says how clearly retrieval decided. It is
negative where the one-to-one assignment gave a source a target another candidate outscores.

Why isotonic: a wider margin should never mean less confidence, and nothing else is assumed about the shape. The
held-out links' (margin, right) rows are pooled into blocks whose share right does not fall as the margin grows
(pool adjacent violators, on the shares with one right and one wrong link added, so a small block says little and no
pair is ever certain).

Learned where the tuning learns the weights and the gate (:mod:`~kgagents.agent.alignment.tuning`): on the seed links
held out from the run (the rest serve as seeds, as retrieval uses them). Held-out pseudo-seeds are no sample of the
sources — they are the pairs the names already agree on —, so a run without enough seed links gives no confidence
rather than an optimistic one.
"""

from __future__ import annotations

import math
import sys
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: the prior every block starts from: one right and one wrong link
PRIOR_RIGHT, PRIOR_TOTAL = 1, 2


def margin_of(ranking: Sequence[tuple[str, float]]) -> float:
    """Rank 1's score minus the best other candidate's (infinite with one candidate, minus infinite with none)."""
    if not ranking:
        return float("-inf")
    others = [score for _, score in ranking[1:]]
    return ranking[0][1] - max(others) if others else float("inf")


@dataclass(frozen=True)
class Calibration:
    """Retrieval margin → confidence: block ``i`` covers margins from ``edges[i - 1]`` (the first: from minus
    infinity) and has confidence ``values[i]``; ``links``: the held-out links it was learned on."""

    edges: tuple[float, ...]
    values: tuple[float, ...]
    links: int

    def __call__(self, margin: float) -> float:
        return self.values[bisect_right(self.edges, margin)]

    def of_ranking(self, ranking: Sequence[tuple[str, float]]) -> float:
        """The confidence in a source's rank 1, from its (target, score) ranking, to 4 places (as stored)."""
        return round(self(margin_of(ranking)), 4)

    @classmethod
    def stored(cls, run: Mapping[str, Any]) -> Calibration | None:
        """The calibration a retrieval run's node keeps (``confidence_edges`` / ``_values`` / ``_links``), if any."""
        if run.get("confidence_values") is None:
            return None
        return cls(tuple(run["confidence_edges"]), tuple(run["confidence_values"]), int(run["confidence_links"]))

    def properties(self) -> dict[str, Any]:
        """What a retrieval run's node keeps of it (read back by :meth:`stored`)."""
        record = self.record()
        return {"confidence_edges": record["edges"], "confidence_values": record["values"],
                "confidence_links": record["links"]}

    def record(self) -> dict[str, Any]:
        """JSON- and Neo4j-ready (an infinite edge — margins of one-candidate sources — as the largest float)."""
        return {"edges": [e if math.isfinite(e) else math.copysign(sys.float_info.max, e) for e in self.edges],
                "values": list(self.values), "links": self.links, "learned_on": "held-out seed links"}


def fit_calibration(rows: Sequence[tuple[float, bool]]) -> Calibration | None:
    """The isotonic calibration of ``rows`` (margin, right); None without rows."""
    if not rows:
        return None
    blocks: list[list[Any]] = []  # [lowest margin, right, total]
    for margin, right in sorted(rows, key=lambda r: r[0]):
        if blocks and blocks[-1][0] == margin:  # equal margins are one block
            blocks[-1][1] += right
            blocks[-1][2] += 1
        else:
            blocks.append([margin, int(right), 1])
        while len(blocks) > 1 and _value(blocks[-2]) >= _value(blocks[-1]):  # a violator: pool the two
            _, right_, total = blocks.pop()
            blocks[-1][1] += right_
            blocks[-1][2] += total
    return Calibration(tuple(b[0] for b in blocks[1:]), tuple(_value(b) for b in blocks), len(rows))


def _value(block: Sequence[Any]) -> float:
    """A block's confidence: its share right with the prior's links added (pooled on it, so values rise)."""
    return (block[1] + PRIOR_RIGHT) / (block[2] + PRIOR_TOTAL)


def calibrate_on_validation(final: Mapping[str, Sequence[tuple[str, float]]], validation: Sequence[tuple[str, str]],
                            top_k: int | None = None) -> Calibration | None:
    """The calibration learned on ``validation`` links from their sources' final rankings (rank 1 right or not),
    each margin taken among the first ``top_k`` candidates — the ones a run stores, which is all a pair's confidence
    is computed from later (with the taken penalty a strong rival can sit below them)."""
    gold = dict(validation)
    return fit_calibration([(margin_of(final.get(s, [])[:top_k]), bool(final.get(s)) and final[s][0][0] == gold[s])
                            for s in gold])
