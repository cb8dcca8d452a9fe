"""The EA pairs' calibrated confidence (kgagents.agent.alignment.confidence): isotonic in the retrieval margin, with a
prior that keeps a small block from saying much, learned from held-out links' final rankings."""

from __future__ import annotations

import random

import pytest

from kgagents.agent.alignment.confidence import calibrate_on_validation, fit_calibration, margin_of
from kgagents.metrics.calibration import reliability


def test_the_margin_is_rank_1_minus_the_best_other() -> None:
    assert margin_of([("a", 0.9), ("b", 0.2), ("c", 0.5)]) == pytest.approx(0.4)
    assert margin_of([("a", 0.1), ("b", 0.6)]) == pytest.approx(-0.5)  # the assignment's choice, outscored
    assert margin_of([("a", 0.3)]) == float("inf") and margin_of([]) == float("-inf")


def test_blocks_pool_until_the_confidence_rises_with_the_margin() -> None:
    rows = [(0.0, False), (0.1, True), (0.2, False), (0.5, True), (0.6, True), (float("inf"), True),
            (float("-inf"), False)]
    c = fit_calibration(rows)
    assert c is not None and c.links == 7
    assert c.edges == (0.1, 0.5)  # {-inf, 0.0} wrong; {0.1 right, 0.2 wrong} pooled; {0.5, 0.6, inf} right
    assert c.values == (pytest.approx(1 / 4), pytest.approx(2 / 4), pytest.approx(4 / 5))  # one right, one wrong added
    assert c(-3.0) == c(0.05) == pytest.approx(0.25) and c(0.3) == pytest.approx(0.5)
    assert c(float("inf")) == pytest.approx(0.8)  # never certain


def test_any_rows_give_a_non_decreasing_map_inside_the_unit_interval() -> None:
    rng = random.Random(3)
    for _ in range(50):
        rows = [(round(rng.uniform(-1, 1), 1), rng.random() < 0.7) for _ in range(rng.randint(1, 40))]
        c = fit_calibration(rows)
        assert c is not None
        assert all(0 < v < 1 for v in c.values)
        assert list(c.values) == sorted(c.values) and len(set(c.values)) == len(c.values)
        assert list(c.edges) == sorted(c.edges)


def test_without_rows_there_is_no_calibration() -> None:
    assert fit_calibration([]) is None and calibrate_on_validation({}, []) is None


def test_learned_from_the_held_out_sources_rank_1() -> None:
    final = {"s1": [("t1", 0.9), ("x", 0.1)], "s2": [("x", 0.5), ("t2", 0.45)], "s3": []}
    c = calibrate_on_validation(final, [("s1", "t1"), ("s2", "t2"), ("s3", "t3")])
    assert c is not None and c.links == 3
    assert c(0.8) > c(0.05)  # s1 (wide margin) right; s2 (narrow) and s3 (nothing ranked) wrong


def test_a_confidence_that_matches_the_share_right_has_no_calibration_error() -> None:
    scored = [(0.75, True)] * 3 + [(0.75, False)] + [(0.5, True), (0.5, False)]
    report = reliability(scored)
    assert report["pairs"] == 6 and report["expected_calibration_error"] == 0.0
    assert [(b["from"], b["pairs"], b["precision"]) for b in report["bands"]] == [(0.5, 2, 0.5), (0.7, 4, 0.75)]
    assert reliability([(0.95, False)])["expected_calibration_error"] == 0.95


def test_the_margin_is_taken_among_the_candidates_a_run_stores() -> None:
    final = {"s1": [("t1", 0.9), ("a", 0.2), ("b", 0.85)], "s2": [("x", 0.5), ("t2", 0.45)]}
    validation = [("s1", "t1"), ("s2", "t2")]
    everything = calibrate_on_validation(final, validation)
    stored = calibrate_on_validation(final, validation, top_k=2)
    assert everything is not None and stored is not None
    assert everything.edges != stored.edges  # s1's rival at 0.85 lies below the two stored candidates
    assert stored(0.7) > stored(0.05)  # s1 (right) has margin 0.7 among the stored two, s2 (wrong) 0.05
