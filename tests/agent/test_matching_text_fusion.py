"""Syntactic-channel normalisation and reciprocal rank fusion, as the Agent-OM paper defines them."""

from __future__ import annotations

import pytest

from kgagents.agent.matching.fusion import dense_ranks, reciprocal_rank_fusion
from kgagents.agent.matching.text import is_code_like, syntactic_text, tokenize_name


@pytest.mark.parametrize(
    ("name", "tokens"),
    [
        ("ConferenceChair", ["conference", "chair"]),
        ("has_the_first_name", ["has", "the", "first", "name"]),
        ("Meta-Reviewer", ["meta", "reviewer"]),
        ("PCMember", ["pc", "member"]),
        ("isWrittenBy", ["is", "written", "by"]),
    ],
)
def test_tokenize_splits_camel_underscore_hyphen_and_keeps_stop_words(name: str, tokens: list[str]) -> None:
    assert tokenize_name(name) == tokens


def test_code_like_names_use_the_label() -> None:
    assert is_code_like("MA_0000270") and is_code_like("NCI_C12345")
    assert not is_code_like("Paper")
    assert syntactic_text("NCI_C12345", "Bone Marrow") == "bone marrow"
    assert syntactic_text("ReviewPaper", "ignored label") == "review paper"


def test_equal_scores_share_a_dense_rank() -> None:
    ranks = dense_ranks([("a", 0.95), ("b", 0.95), ("c", 0.91)])
    assert ranks == {"a": 1, "b": 1, "c": 2}


def test_rrf_constant_zero_sums_inverse_ranks() -> None:
    fused = reciprocal_rank_fusion(
        {
            "syntactic": [("x", 0.99), ("y", 0.93)],
            "lexical": [("y", 0.97), ("x", 0.92)],
            "semantic": [("y", 0.95)],
        }
    )
    scores = {f.candidate: f.score for f in fused}
    assert scores["x"] == pytest.approx(1 / 1 + 1 / 2)
    assert scores["y"] == pytest.approx(1 / 2 + 1 / 1 + 1 / 1)
    assert [f.candidate for f in fused] == ["y", "x"]
    assert fused[0].channels == ("lexical", "semantic", "syntactic")


def test_tied_fused_scores_form_one_group() -> None:
    fused = reciprocal_rank_fusion({"syntactic": [("a", 0.9), ("b", 0.9), ("c", 0.8)]})
    assert {f.candidate: f.rank for f in fused} == {"a": 1, "b": 1, "c": 2}
