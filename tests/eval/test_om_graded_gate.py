"""`bench om-gate --graded`: the log-odds floor a validator confirmation needs is learned with the band."""

from __future__ import annotations

from benchmarks.om import _graded_gate


def test_the_floor_keeps_the_confirmations_that_gain_and_drops_the_ones_that_lose() -> None:
    # (depth below accept_similarity, F1 gain) of four confirmations and the validator's log-odds for each
    rows = [(0.01, 1.5), (0.02, -0.5), (0.03, 1.5), (0.04, -0.5)]
    gate, floor = _graded_gate(rows, [2.0, 0.1, 1.2, -0.3])
    assert floor == 1.2 and (gate.right, gate.wrong) == (2, 0) and gate.gain == 3.0


def test_no_floor_when_no_confirmation_gains() -> None:
    gate, floor = _graded_gate([(0.01, -0.5), (0.02, -0.4)], [1.0, None])
    assert floor is None and gate.threshold == 0.0 and gate.gain == 0.0
