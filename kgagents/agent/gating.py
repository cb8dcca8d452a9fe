"""Where the model pays: the threshold below which an agent asks its chat model, learned from what the model did on
training items rather than from how unsure the cheap decision is.

A gate that only measures the cheap decision's uncertainty sends the model every unsure item, even where the model
is wrong more often than the cheap decision; a weak model then makes the job worse. This gate is learned from pairs
(confidence of the cheap decision, gain of asking the model) collected on train items, and opens only as far as the
model earned on them. The gain is in the job's own measure: for accuracy (KGQA Hits@1) +1 when the model turned a
wrong answer right, -1 when it turned a right one wrong; for F1 (ontology matching) see :func:`f1_gain`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

#: a paid gate opens only when chance alone would give its train record at most this often (see :func:`trusted`)
SIGNIFICANCE = 0.05


@dataclass(frozen=True)
class PaidGate:
    """Ask the model where the cheap confidence is below ``threshold`` (0.0: never ask). ``gain`` is the net number
    of decisions the model fixed on the training items below it; ``asked`` how many of them it was asked about."""

    threshold: float
    gain: float
    asked: int
    right: int
    wrong: int
    chance: float | None = None  # how often chance alone gives this record (:func:`trusted`); None: not tested

    def as_dict(self) -> dict[str, float | int | None]:
        return {"threshold": self.threshold, "gain": self.gain, "asked": self.asked, "changed_right": self.right,
                "changed_wrong": self.wrong, "chance": self.chance}


def cheap_threshold(pairs: Sequence[tuple[float, bool]], weak: float) -> float:
    """The cheap gate: the largest confidence below which the cheap decisions (confidence, right) are right at most
    ``weak`` of the time (0.0 when even the least confident are right more often: the model is never asked)."""
    ranked = sorted(pairs, key=lambda p: p[0])
    best, right = 0.0, 0
    for i, (_, correct) in enumerate(ranked, 1):
        right += correct
        if right / i <= weak and (i == len(ranked) or ranked[i][0] > ranked[i - 1][0]):
            best = ranked[i][0] if i < len(ranked) else ranked[-1][0] + 1e-9
    return best  # not rounded: a rounded gate could fall below the confidence it was meant to include


def f1_gain(right: bool, f1: float) -> float:
    """What one more output pair adds to F1 = 2·TP / (|system| + |reference|), to first order and in units of
    1 / (|system| + |reference|): 2 − F1 when the pair is right, −F1 when it is wrong. At F1 0.6 a right pair is
    worth more than two wrong ones, so a validator right 40 % of the time still raises F1."""
    return 2.0 - f1 if right else -f1


def paid_gate(rows: Sequence[tuple[float, float]]) -> PaidGate:
    """The threshold with the largest net gain over the items below it (the smallest such threshold on ties, so
    fewer calls); 0.0 — the model is never asked — when no threshold gains anything. ``rows``: (confidence, gain)
    for items on which the model was asked (a positive gain counts as a change for the better, a negative one as
    a change for the worse)."""
    ranked = sorted(rows, key=lambda r: r[0])
    best = PaidGate(0.0, 0.0, 0, 0, 0)
    gain, right, wrong = 0.0, 0, 0
    for i, (confidence, delta) in enumerate(ranked):
        gain += delta
        right += delta > 0
        wrong += delta < 0
        closes = i + 1 == len(ranked) or ranked[i + 1][0] > confidence
        if closes and gain > best.gain + 1e-12:
            upper = ranked[i + 1][0] if i + 1 < len(ranked) else confidence + 2e-6
            best = PaidGate(round((confidence + upper) / 2, 6), round(gain, 6), i + 1, right, wrong)  # no float noise
    return best


def chance(right: int, wrong: int, break_even: float) -> float:
    """How often chance alone gives at least ``right`` good changes among ``right + wrong``, were each change good
    with probability ``break_even`` (where asking gains nothing on average): the one-sided binomial tail."""
    n = right + wrong
    return min(1.0, sum(math.comb(n, k) * break_even ** k * (1 - break_even) ** (n - k) for k in range(right, n + 1)))


def trusted(gate: PaidGate, break_even: float = 0.5, significance: float = SIGNIFICANCE) -> PaidGate:
    """``gate`` if its train record is unlikely under chance (at most ``significance``), else the closed gate.

    Why: the gate is the best of many thresholds on a few train items, so a small net gain is often luck — on
    PathQuestion's train questions one rule changed answers 15 right / 12 wrong, then 10 / 7 on the dev split and
    1 / 6 on the test split. ``break_even``: the share of good changes at which asking gains nothing — 0.5 when a
    fixed and a broken answer weigh the same (KGQA), F1 / 2 for an F1 gain (:func:`f1_gain`)."""
    if gate.threshold <= 0:
        return gate
    p = round(chance(gate.right, gate.wrong, break_even), 4)
    return replace(gate, chance=p) if p <= significance else PaidGate(0.0, 0.0, 0, 0, 0, chance=p)
