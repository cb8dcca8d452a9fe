"""`bench kgqa-scorer`'s re-ranking (pure): each grid point answers with the best path under its weights."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from benchmarks.kgqa_scorer import _chain_rows, _Scored, chain_gains, hits
from kgagents.agent.kgqa.chains import chain_gain


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


def test_the_direct_check_turns_a_question_to_its_one_relation_path() -> None:
    # MiniLM alone answers SHORT with its 2-relation path; a confident "yes, stored directly about X" (log-odds 3
    # against a centre of 1, weight 0.05: +0.1 for one-relation paths) turns it to the 1-relation one
    sure = _Scored(SHORT.hops, SHORT.words, SHORT.paths, direct=3.0)
    assert hits([sure], 0.0, 0.0, 0.0, None) == {1: 0.0}
    assert hits([sure], 0.0, 0.0, 0.0, None, direct_weight=0.05, direct_center=1.0) == {1: 100.0}
    # a "no" (log-odds below the centre) pushes one-relation paths down instead
    unsure = _Scored(LONG.hops, LONG.words, LONG.paths, direct=-2.0)
    assert hits([unsure], 1.0, 0.0, 0.0, None, direct_weight=0.05, direct_center=1.0) == {2: 100.0}


def test_the_relation_check_re_ranks_only_the_paths_it_asked_about() -> None:
    # MiniLM alone answers SHORT with its 2-relation path; the model says the question asks about the 1-relation
    # path's relation (+3) and not about the extra one (−3): at weight 0.05 the right path wins
    checked = _Scored(SHORT.hops, SHORT.words, SHORT.paths, relations=[[3.0], [3.0, -3.0]])
    assert hits([checked], 0.0, 0.0, 0.0, None) == {1: 0.0}
    assert hits([checked], 0.0, 0.0, 0.0, None, relation_weight=0.05) == {1: 100.0}
    # a path the check did not reach (beyond the head) is never the answer, however it scores
    head_only = _Scored(LONG.hops, LONG.words, LONG.paths, relations=[[0.0]])
    assert hits([head_only], 0.0, 0.0, 0.0, None) == {2: 100.0}
    assert hits([head_only], 0.0, 0.0, 0.0, None, relation_weight=0.05) == {2: 0.0}


def test_the_chain_check_lifts_the_written_chain_and_counts_walked_paths_only_when_asked() -> None:
    # MiniLM alone answers SHORT with its 2-relation path (wrong); chain columns: equal to the written chain, equal
    # once collapsed, share in common in order, has answers, walked
    chain = np.array([[1, 1, 1.0, 1, 0], [0, 0, 0.5, 1, 0]], dtype=np.float64)
    written = _Scored(SHORT.hops, SHORT.words, SHORT.paths, chain=chain, written=True)
    assert hits([written], 0.0, 0.0, 0.0, None) == {1: 0.0}
    assert hits([written], 0.0, 0.0, 0.0, None, chain_weight=0.1, chain_partial=0.5) == {1: 100.0}
    # a path equal to the chain once collapsed gains chain_collapsed's share, never the partial one
    other = np.array([[0, 0, 0.0, 1, 0], [0, 1, 0.5, 1, 0]], dtype=np.float64)
    turned = _Scored(SHORT.hops, SHORT.words, SHORT.paths[::-1], chain=other, written=True)
    assert hits([turned], 0.0, 0.0, 0.0, None, chain_weight=0.1, chain_collapsed=1.0) == {1: 100.0}
    assert hits([turned], 0.0, 0.0, 0.0, None, chain_weight=0.1, chain_collapsed=0.0, chain_partial=1.0) == {1: 0.0}
    # a path walked because the observation missed the chain counts only when the check is on
    walked = np.array([[0, 0, 0.0, 1, 0], [1, 1, 1.0, 1, 1]], dtype=np.float64)
    found = _Scored(LONG.hops, LONG.words, LONG.paths, chain=walked, written=True)
    assert hits([found], 0.0, 0.0, 0.0, None) == {2: 0.0}
    assert hits([found], 0.0, 0.0, 0.0, None, chain_weight=0.1) == {2: 100.0}


def test_the_parsed_chain_is_weighed_apart_from_the_models() -> None:
    # the same rows as the parse's: parse_weight moves them, chain_weight does not (and the other way round)
    parse = np.array([[0, 0, 0.0, 1, 0], [1, 1, 1.0, 1, 1]], dtype=np.float64)
    read = _Scored(LONG.hops, LONG.words, LONG.paths, parse=parse, parsed=True)
    assert hits([read], 0.0, 0.0, 0.0, None, chain_weight=0.1) == {2: 0.0}  # walked for the parse: hidden
    assert hits([read], 0.0, 0.0, 0.0, None, parse_weight=0.1) == {2: 100.0}
    both = _Scored(LONG.hops, LONG.words, LONG.paths, chain=np.zeros((2, 5)), written=True, parse=parse, parsed=True)
    assert hits([both], 0.0, 0.0, 0.0, None, chain_weight=0.1, parse_weight=0.1) == {2: 100.0}
    unread = _Scored(LONG.hops, LONG.words, LONG.paths, parse=parse, parsed=False)
    assert hits([unread], 0.0, 0.0, 0.0, None, parse_weight=0.1) == {2: 0.0}


def test_a_parsed_step_taken_backwards_gains_its_share_and_an_unnamed_relation_costs() -> None:
    # LONG's right path (the second) is walked for the parse but takes a step backwards: at a quarter share its gain
    # no longer beats the first path's lead
    parse = np.array([[0, 0, 0.0, 1, 0], [1, 1, 1.0, 1, 0]], dtype=np.float64)
    read = _Scored(LONG.hops, LONG.words, LONG.paths[:, :], parse=parse, parsed=True,
                   forward=np.array([1.0, 0.0]))
    lead = _Scored(LONG.hops, LONG.words, LONG.paths[:, :] + np.array([[0.15, 0, 0, 0, 0], [0, 0, 0, 0, 0]]),
                   parse=parse, parsed=True, forward=np.array([1.0, 0.0]))
    assert hits([read, lead], 0.0, 0.0, 0.0, None, parse_weight=0.2) == {2: 100.0}
    assert hits([read, lead], 0.0, 0.0, 0.0, None, parse_weight=0.2, parse_backward_share=0.25) == {2: 50.0}
    # SHORT answers with its longer path on MiniLM alone; that path's extra relation is unnamed at margin 0 only
    named = _Scored(SHORT.hops, SHORT.words, SHORT.paths, unnamed={0.0: np.array([0.0, 1.0]),
                                                                   0.03: np.array([0.0, 0.0])})
    assert hits([named], 0.0, 0.0, 0.0, None) == {1: 0.0}
    assert hits([named], 0.0, 0.0, 0.0, None, unnamed_penalty=0.1) == {1: 100.0}
    assert hits([named], 0.0, 0.0, 0.0, None, unnamed_penalty=0.1, unnamed_margin=0.03) == {1: 0.0}


@pytest.mark.parametrize("written", [("directed_by",), ("starred_actors", "starred_actors"),
                                     ("directed_by", "starred_actors", "release_year")])
def test_the_grid_search_gains_are_the_agents_chain_gains(written: tuple[str, ...]) -> None:
    # every chain of up to three of these relations, against each written chain, at several grid points: the
    # vectorised gains the search ranks by are exactly what the agent adds (chains.chain_gain)
    relations = ("directed_by", "starred_actors", "release_year")
    taken = [c for n in (1, 2, 3) for c in itertools.product(relations, repeat=n)]
    rows = _chain_rows(taken, [1] * len(taken), written, walked=[False] * len(taken))
    for weight, collapsed_share, partial_share in ((0.1, 0.5, 0.75), (0.3, 1.0, 0.0), (0.05, 0.25, 0.5)):
        want = [chain_gain(c, written, weight=weight, collapsed_share=collapsed_share, partial_share=partial_share)
                for c in taken]
        assert chain_gains(rows, weight, collapsed_share, partial_share) == pytest.approx(want)
