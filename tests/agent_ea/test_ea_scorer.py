"""Hits@k / MRR on a hand-made ranking, and the name normalisation behind the name-bias subset."""

from __future__ import annotations

import pytest

from kgagents.metrics.ea import non_trivial_links, rank_of, rank_scores
from kgagents.names import name_key


def test_rank_scores_on_a_toy_ranking() -> None:
    rankings = {"a": ["x", "y", "z"], "b": ["y", "x"], "c": ["q"],
                "d": [f"t{i}" for i in range(10)] + ["w"]}
    gold = [("a", "x"), ("b", "x"), ("c", "z"), ("d", "w"), ("e", "x")]  # e has no list at all
    scores = rank_scores(rankings, gold)
    # ranks: a 1, b 2, c missing, d 11, e missing
    assert scores.n == 5
    assert scores.hits_at_1 == pytest.approx(1 / 5)
    assert scores.hits_at_10 == pytest.approx(2 / 5)
    assert scores.mrr == pytest.approx((1 + 1 / 2 + 1 / 11) / 5)


def test_rank_of_and_empty_gold() -> None:
    assert rank_of(["a", "b"], "b") == 2
    assert rank_of(["a", "b"], "c") is None
    assert rank_scores({}, []).n == 0


def test_name_key_and_non_trivial_subset() -> None:
    assert name_key("Abdullah_Gül") == name_key("Abdullah Gul") == "abdullahgul"
    assert name_key("Café-Einstein") == "cafeeinstein"
    assert name_key(None) == ""
    gold = [("1", "a"), ("2", "b"), ("3", "c")]
    kept = non_trivial_links(gold, {"1": "Kim Dae-jung", "2": "Peking", "3": None},
                             {"a": "Kim_Dae-jung", "b": "Beijing", "c": None})
    assert kept == [("2", "b"), ("3", "c")]
