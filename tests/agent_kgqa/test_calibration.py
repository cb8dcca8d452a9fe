"""The memory's vote threshold, calibrated leaving one phrasing out (pure: vectors made here, no server)."""

from __future__ import annotations

import numpy as np

from kgagents.agent.kgqa.calibration import calibrate, threshold_for


def test_the_threshold_is_the_lowest_similarity_at_which_votes_were_right_often_enough() -> None:
    records = [(0.99, True), (0.97, True), (0.95, False), (0.93, True), (0.90, True), (0.80, False), (0.70, False)]
    # from the top: 2/2, 2/3, 3/4, 4/5 (0.8 at 0.90), 4/6, 4/7
    assert threshold_for(records, 0.8) == (0.90, 0.8)
    assert threshold_for(records, 0.95) == (0.97, 1.0)
    assert threshold_for(records, 0.5) == (0.70, round(4 / 7, 4))
    assert threshold_for([(0.9, False), (0.8, False)], 0.5) == (1.0, None)  # never right: only itself votes
    # a tie is one threshold: both records at 0.9 are in or out together
    assert threshold_for([(0.95, True), (0.9, True), (0.9, False)], 0.9) == (0.95, 1.0)


def _row(key: str, vector: list[float], path: list[str]) -> dict:
    return {"phrasing": key, "masked": key, "vector": vector,
            "examples": [{"path": path, "weight": 1.0, "reentry": False, "question_key": key, "source": "labelled"}]}


def test_phrasings_whose_neighbours_share_their_path_vote_from_further_away() -> None:
    rng = np.random.default_rng(0)
    base = {name: rng.normal(size=16) for name in ("a", "b", "c")}
    rows = []
    for name, centre in base.items():  # three kinds of question, four wordings each, near their centre
        for i in range(4):
            rows.append(_row(f"{name}{i}", list(centre + 0.3 * rng.normal(size=16)), [f"rel_{name}"]))
    found = calibrate(rows, k=3, temperature=0.05, target=0.9, sample=100, seed=1)
    assert found.sample == 12 and found.phrasings == 12 and found.precision == 1.0
    assert found.threshold < 0.95  # wordings of one kind agree, so the memory votes for new wordings of it
    unrelated = [_row(f"u{i}", list(rng.normal(size=16)), [f"rel_{i}"]) for i in range(6)]
    alone = calibrate(unrelated, k=3, temperature=0.05, target=0.9, sample=100, seed=1)
    assert alone.threshold == 1.0 and alone.precision is None
