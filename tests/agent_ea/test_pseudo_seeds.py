"""Pseudo-seeds and the choice of weights, without a server: the block-wise mutual-nearest-neighbour scan against a
brute-force one on random vectors, the agreement rule, and the tie-break towards the starting weights."""

from __future__ import annotations

import numpy as np

from kgagents.agent.alignment.fusion import Ranking, Weights
from kgagents.agent.alignment.pseudo_seeds import MutualScan, agreed_pairs, fused_pairs, with_residual
from kgagents.agent.alignment.signals import PairSignals
from kgagents.agent.alignment.tuning import FeatureTable, choose_weights


def _brute_force(scores: np.ndarray, margin: float) -> dict[int, int]:
    out = {}
    for r in range(scores.shape[0]):
        c = int(scores[r].argmax())
        row_sorted, col_sorted = np.sort(scores[r])[::-1], np.sort(scores[:, c])[::-1]
        if int(scores[:, c].argmax()) == r and row_sorted[0] - row_sorted[1] >= margin \
                and col_sorted[0] - col_sorted[1] >= margin and col_sorted[0] > 0:
            out[r] = c
    return out


def test_the_blockwise_scan_finds_exactly_the_mutual_clear_nearest_neighbours() -> None:
    rng = np.random.default_rng(3)
    left, right = rng.normal(size=(37, 8)).astype(np.float32), rng.normal(size=(29, 8)).astype(np.float32)
    right[:20] = left[:20] + 0.3 * rng.normal(size=(20, 8)).astype(np.float32)  # 20 near-copies: likely pairs
    scores = left @ right.T
    sources, targets = [f"s{i}" for i in range(37)], [f"t{j}" for j in range(29)]
    for margin in (0.0, 0.5, 2.0):
        scan = MutualScan()
        scan.start(sources, targets)
        for start in range(0, 37, 5):  # blocks of 5 rows, the last one of 2
            scan.add("name", scores[start:start + 5])
        expected = {sources[r]: targets[c] for r, c in _brute_force(scores, margin).items()}
        assert scan.pairs("name", margin) == expected
    assert len(expected) < len(_brute_force(scores, 0.0))  # the margin does drop some


def test_a_pair_needs_enough_channels_and_no_channel_against_it() -> None:
    channels = {"name": {"a": "A", "b": "B", "c": "C"}, "multilingual": {"a": "A", "b": "X", "c": "C"},
                "exact": {"c": "C", "d": "D"}}
    assert agreed_pairs(channels, 2) == {"a": "A", "c": "C"}  # b: a channel disagrees; d: one channel only
    assert agreed_pairs(channels, 3) == {"c": "C"}


def _ranked(rows: dict[str, dict[str, float]]) -> Ranking:
    """Fused scores as :func:`~kgagents.agent.alignment.fusion.rank` gives them: best first."""
    return {s: sorted(ts.items(), key=lambda tv: -tv[1]) for s, ts in rows.items()}


def test_the_fused_channel_wants_mutual_and_clear_pairs() -> None:
    ranked = _ranked({"a": {"A": 0.9, "B": 0.5}, "b": {"A": 0.8, "B": 0.7}, "c": {"C": 0.6, "B": 0.55}})
    assert fused_pairs(ranked, 0.0) == {"a": "A", "c": "C"}  # b's best, A, is a's
    assert fused_pairs(ranked, 0.06) == {"a": "A"}  # c leads B by only 0.05
    assert fused_pairs(_ranked({"a": {"A": 0.9}, "b": {"A": 0.85}}), 0.06) == {}  # A's column: a by only 0.05


def test_the_residual_pairs_what_the_agreed_pairs_leave_until_nothing_is_left() -> None:
    ranked = _ranked({"a": {"A": 0.9, "B": 0.5}, "b": {"A": 0.8, "B": 0.7, "C": 0.1},
                      "c": {"B": 0.6, "C": 0.5}, "d": {"A": 0.3}})
    assert fused_pairs(ranked, 0.0) == {"a": "A"}  # b and c both want B; d wants A
    # b is paired once A is set aside, then c once B is; d's only target is taken: it stays unpaired
    assert with_residual(ranked, {"a": "A"}, 0.0) == {"a": "A", "b": "B", "c": "C"}


def _table(rows: dict[str, dict[str, tuple[float, float]]], gold: dict[str, str]) -> FeatureTable:
    """Sources with (name, structure) signals per target."""
    signals = {s: {t: PairSignals(name=n, structure=st) for t, (n, st) in ts.items()} for s, ts in rows.items()}
    return FeatureTable(signals, list(gold.items()), None)


def test_a_validation_set_that_cannot_tell_weights_apart_keeps_the_starting_ones() -> None:
    easy = _table({"a": {"A": (0.9, 1.0), "B": (0.1, 0.0)}, "b": {"B": (0.8, 1.0), "A": (0.2, 0.0)}},
                  {"a": "A", "b": "B"})
    prior = Weights(name=1.0, multilingual=1.0, exact=0.5, structure=1.0, attributes=0.4)
    chosen, scores = choose_weights(easy, prior, True, 0.0)
    assert scores["equally_good_weightings"] == scores["grid_points"]  # every point gets both right
    assert chosen == prior  # on the grid, and nearest to itself
    assert choose_weights(easy, prior.without("structure"), True, 0.0)[0].structure == 0.0


def test_a_validation_set_that_can_tell_them_apart_moves_the_weights() -> None:
    # names mislead for "a", structure knows better: only weightings with structure get it right
    hard = _table({"a": {"A": (0.2, 3.0), "B": (0.5, 0.0)}, "b": {"B": (0.8, 1.0), "A": (0.2, 0.0)}},
                  {"a": "A", "b": "B"})
    chosen, scores = choose_weights(hard, Weights(1.0, 0.0, 0.0, 0.0, 0.0), False, 0.0)
    assert scores["prior_validation_hits_at_1"] == 0.5 and scores["validation_hits_at_1"] == 1.0
    assert chosen.structure > 0 and chosen.multilingual == 0.0  # not embedded: never weighted
