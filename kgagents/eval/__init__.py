"""Scoring matcher output the way the OAEI does (see :mod:`kgagents.eval.scorer`)."""

from kgagents.eval.scorer import (
    Scores,
    equivalence_pairs,
    is_trivial,
    macro_average,
    micro_average,
    normalise_label,
    score,
    score_non_trivial,
    score_pairs,
)

__all__ = [
    "Scores",
    "equivalence_pairs",
    "is_trivial",
    "macro_average",
    "micro_average",
    "normalise_label",
    "score",
    "score_non_trivial",
    "score_pairs",
]
