"""The confidence table: precision per piece of evidence with a prior, pieces combined as independent votes."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgagents.agent.matching.confidence import Calibration, evidence


def test_a_pairs_evidence_is_its_accepting_stage_and_the_backgrounds_kind() -> None:
    assert evidence({"channels": ["lexical:exact", "background:shared"]}) == ["lexical:exact", "background:shared"]
    assert evidence({"channels": ["syntactic", "lexical"], "similarity": 0.93}) == ["retrieval@0.90"]
    assert evidence({"channels": ["structural", "background:exact"], "similarity": 0.82}) == [
        "structural", "background:exact"]
    assert evidence({"channels": ["background:exact"]}) == ["background:exact"]


def test_confidence_is_the_learned_precision_combined_by_noisy_or(tmp_path: Path) -> None:
    decided = ([({"channels": ["lexical:exact"]}, True)] * 8 + [({"channels": ["lexical:exact"]}, False)] * 2
               + [({"channels": ["background:shared"]}, True)] * 3 + [({"channels": ["background:shared"]}, False)])
    table = Calibration.learn(decided, "test")
    assert table.counts == {"lexical:exact": (8, 10), "background:shared": (3, 4)}
    exact, shared = 9 / 12, 4 / 6  # one right and one wrong pair of prior
    assert table.confidence({"channels": ["lexical:exact"]}) == pytest.approx(exact, abs=1e-4)
    both = table.confidence({"channels": ["lexical:exact", "background:shared"]})
    assert both == pytest.approx(1 - (1 - exact) * (1 - shared), abs=1e-4) and both > exact
    assert table.confidence({"channels": ["lexical:typo"]}) == pytest.approx(table.overall, abs=1e-4)  # unseen
    table.save(tmp_path / "table.json")
    assert Calibration.load(tmp_path / "table.json").counts == table.counts
    assert Calibration.load(tmp_path / "missing.json").confidence({"channels": ["lexical:exact"]}) == 0.5


def test_a_background_files_stated_confidence_scales_its_evidence() -> None:
    table = Calibration({"lexical:exact": (8, 10), "background:exact": (9, 10)}, "test")
    exact, background = 9 / 12, 10 / 12
    assert table.confidence({"channels": ["background:exact"], "background_confidence": 0.6}) == pytest.approx(
        0.6 * background, abs=1e-4)
    assert table.confidence({"channels": ["background:exact"]}) == pytest.approx(background, abs=1e-4)
    # only the background's piece is scaled, not the lexical evidence beside it
    both = table.confidence({"channels": ["lexical:exact", "background:exact"], "background_confidence": 0.5})
    assert both == pytest.approx(1 - (1 - exact) * (1 - 0.5 * background), abs=1e-4)
