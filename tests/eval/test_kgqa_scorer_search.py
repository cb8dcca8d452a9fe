"""`bench kgqa-scorer`'s re-ranking (pure): each grid point answers with the best path under its weights."""

from __future__ import annotations

import numpy as np

from benchmarks.kgqa_scorer import _Scored, hits


def _question(hops: int, words: int, rows: list[tuple[float, float, int, float, bool]]) -> _Scored:
    return _Scored(hops, words, np.array(rows, dtype=np.float64))


# a 1-hop question whose right path is short, and a 2-hop one whose right path is long; columns: MiniLM cosine,
# e5 cosine, length, end-name fit, right
SHORT = _question(1, 5, [(0.50, 0.60, 1, 0.0, True), (0.56, 0.40, 2, 0.0, False)])
LONG = _question(2, 20, [(0.40, 0.50, 1, 0.0, False), (0.46, 0.52, 2, 0.0, True)])


def test_the_e5_share_and_the_length_penalty_decide_the_answer() -> None:
    assert hits([SHORT, LONG], 0.0, 0.0, 0.0, None) == {1: 0.0, 2: 100.0}  # MiniLM alone: the longer paths
    assert hits([SHORT, LONG], 1.0, 0.0, 0.0, None) == {1: 100.0, 2: 100.0}  # e5 alone
    # MiniLM with a flat penalty of 0.07 per relation: both answer short
    assert hits([SHORT, LONG], 0.0, 0.07, 0.0, None) == {1: 100.0, 2: 0.0}
    # the same penalty at 10 words: the 5-word question pays 0.14 per relation, the 20-word one 0.035
    assert hits([SHORT, LONG], 0.0, 0.07, 0.0, 10) == {1: 100.0, 2: 100.0}


def test_a_question_without_paths_counts_as_wrong() -> None:
    empty = _Scored(1, 4, np.zeros((0, 5)))
    assert hits([empty, SHORT], 1.0, 0.0, 0.0, None) == {1: 50.0}
