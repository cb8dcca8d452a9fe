"""The memory's vote threshold, calibrated leaving one phrasing out against the zero-shot answer (pure: vectors
made here, no server)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgagents.agent.kgqa.calibration import Record, calibrate, threshold_for
from kgagents.agent.kgqa.paths import PathKey


def test_the_threshold_answers_the_most_right_voting_above_and_zero_shot_below() -> None:
    records = [Record(0.99, True, True), Record(0.97, True, False), Record(0.95, False, True),
               Record(0.93, True, False), Record(0.90, False, True), Record(0.80, False, False)]
    # vote at >= 0.93: 3 votes right + zero-shot right on 0.90 = 4 (at 0.97: 2 + 2 = 4 as well: ties go higher)
    assert threshold_for(records) == (0.97, 4)
    assert threshold_for([Record(0.9, False, True), Record(0.8, False, False)]) == (1.0, 1)  # never vote
    assert threshold_for([Record(0.9, True, False), Record(0.8, True, False)]) == (0.8, 2)  # always vote
    # a tie is one threshold: both records at 0.9 are in or out together
    assert threshold_for([Record(0.95, True, False), Record(0.9, True, False), Record(0.9, False, True)]) \
        == (0.95, 2)  # voting at 0.9 wins one and loses one there: not worth it
    assert threshold_for([Record(0.95, True, False), Record(0.9, True, False), Record(0.9, False, False)]) \
        == (0.9, 2)


def _row(key: str, vector: Sequence[float], path: str) -> dict:
    return {"phrasing": key, "masked": key, "vector": list(vector),
            "examples": [{"path": [path], "weight": 1.0, "reentry": False, "question_key": key, "source": "labelled",
                          "question": f"question {key}", "topic": "t"}]}


def _zero_shot(right: bool, rows: list[dict]) -> object:
    paths = {r["examples"][0]["question"]: (r["examples"][0]["path"][0],) for r in rows}

    def answer(asked: Sequence[tuple[str, str]]) -> list[PathKey | None]:
        return [paths[q] if right else ("elsewhere",) for q, _ in asked]
    return answer


def test_wordings_of_one_kind_vote_for_each_other_where_zero_shot_is_wrong() -> None:
    rng = np.random.default_rng(0)
    centres = {name: rng.normal(size=16) for name in ("a", "b", "c")}
    rows = [_row(f"{name}{i}", centre + 0.3 * rng.normal(size=16), f"rel_{name}")
            for name, centre in centres.items() for i in range(4)]  # three kinds of question, four wordings each
    found = calibrate(rows, _zero_shot(False, rows), k=3, temperature=0.05, sample=100, seed=1)  # type: ignore[arg-type]
    assert (found.sample, found.phrasings, found.vote_right, found.zero_shot_right) == (12, 12, 1.0, 0.0)
    assert found.threshold < 0.95 and found.chosen_right == 1.0 and found.voting == 1.0
    # where zero-shot is right anyway, a vote adds nothing: only a learned phrasing itself votes
    assert calibrate(rows, _zero_shot(True, rows), k=3, temperature=0.05, sample=100,  # type: ignore[arg-type]
                     seed=1).threshold == 1.0
    unrelated = [_row(f"u{i}", rng.normal(size=16), f"rel_{i}") for i in range(6)]
    alone = calibrate(unrelated, _zero_shot(False, unrelated), k=3, temperature=0.05, sample=100,  # type: ignore[arg-type]
                      seed=1)
    assert alone.threshold == 1.0 and alone.vote_right == 0.0
