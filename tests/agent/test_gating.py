"""The paid gate opens only as far as the model earned on training items."""

from kgagents.agent.gating import chance, cheap_threshold, f1_gain, paid_gate, trusted


def test_gate_stays_shut_when_the_model_never_gains() -> None:
    gate = paid_gate([(0.01, -1), (0.02, 0), (0.03, 1), (0.04, -1)])
    assert gate.threshold == 0.0 and gate.asked == 0 and gate.gain == 0


def test_gate_opens_up_to_the_best_net_gain() -> None:
    gate = paid_gate([(0.05, -1), (0.01, 1), (0.02, 1), (0.03, -1), (0.04, 1), (0.06, -1)])
    assert (gate.gain, gate.asked, gate.right, gate.wrong) == (2, 2, 2, 0)
    assert 0.02 < gate.threshold < 0.03


def test_tied_confidences_are_asked_together() -> None:
    gate = paid_gate([(0.01, 1), (0.01, -1), (0.01, -1), (0.2, 1)])
    assert gate.threshold == 0.0
    gate = paid_gate([(0.01, 1), (0.01, 1), (0.01, -1)])
    assert gate.asked == 3 and gate.threshold > 0.01


def test_ties_in_gain_prefer_fewer_calls() -> None:
    gate = paid_gate([(0.01, 1), (0.02, 0), (0.03, 0)])
    assert gate.asked == 1 and gate.threshold < 0.02


def test_f1_gain_values_a_right_pair_above_a_wrong_one() -> None:
    assert f1_gain(True, 0.6) == 1.4 and f1_gain(False, 0.6) == -0.6
    # a validator right 3 times in 7 at F1 0.6 still pays: 3 * 1.4 > 4 * 0.6
    gate = paid_gate([(0.01 * i, f1_gain(i in (2, 4, 6), 0.6)) for i in range(7)])
    assert gate.asked == 7 and gate.gain > 0


def test_the_cheap_threshold_covers_the_unreliable_confidences_and_their_last_item() -> None:
    pairs = [(0.01, False), (0.02, True), (0.03, False), (0.5, True), (0.6, True)]
    gate = cheap_threshold(pairs, 0.6)  # right 0/1, 1/2, 1/3 below 0.5; 2/4 at 0.5 still <= 0.6; 3/5 too
    assert gate > 0.6 and all(c < gate for c, _ in pairs)
    assert cheap_threshold([(0.123449, False)], 0.6) > 0.123449  # never rounded below the item it includes
    assert cheap_threshold([(0.1, True), (0.2, True)], 0.6) == 0.0  # reliable everywhere: never asked


def test_a_record_chance_alone_explains_closes_the_gate() -> None:
    assert chance(1, 0, 0.5) == 0.5 and chance(0, 3, 0.5) == 1.0
    assert abs(chance(3, 1, 0.5) - 5 / 16) < 1e-12  # P(X >= 3 | n = 4)
    coin = paid_gate([(0.01 * i, 1 if i % 3 else -1) for i in range(1, 10)])  # 6 fixed, 3 broken
    assert coin.threshold > 0
    closed = trusted(coin)
    assert closed.threshold == 0.0 and closed.chance is not None and closed.chance > 0.05
    strong = paid_gate([(0.01 * i, 1) for i in range(1, 8)])  # 7 fixed, none broken: 1 / 128 by chance
    assert trusted(strong).threshold == strong.threshold and trusted(strong).chance == round(1 / 128, 4)


def test_the_break_even_share_decides_what_chance_would_do() -> None:
    # the best depth holds 4 good changes and 3 bad: no better than a coin; where a good change weighs as much as
    # four bad ones (break-even 0.2) chance alone gives it 3 % of the time — at 0.3 still 13 %
    gate = paid_gate([(0.01 * i, 2.0 if i in (1, 3, 5, 7) else -0.5) for i in range(1, 11)])
    assert (gate.right, gate.wrong) == (4, 3)
    assert trusted(gate, break_even=0.5).threshold == 0.0
    assert trusted(gate, break_even=0.3).threshold == 0.0
    assert trusted(gate, break_even=0.2).threshold == gate.threshold
