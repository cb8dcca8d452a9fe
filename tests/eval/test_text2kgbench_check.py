"""The extraction check's floors, learned from a recording run's checks on train sentences."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.text2kgbench_check import learn, read_recording
from kgagents.errors import InputFileError, KgAgentsError
from kgagents.metrics.text2kgbench import load_ontology_data


def _recording(root: Path, split: str = "train") -> dict:
    sentence = next(s for s in load_ontology_data(root / "extraction" / "text2kgbench" / "dbpedia_webnlg",
                                                  "1_university", "train").sentences if len(s.triples) == 1)
    s, r, o = sentence.triples[0]
    right = (s.replace("_", " "), r, o.replace("_", " "))
    wrong = (right[0], r, "Nowhere at all")
    checks = [{"subject": right[0], "relation": r, "object": right[2], "source": "stated", "log_odds": 2.0},
              {"subject": wrong[0], "relation": r, "object": wrong[2], "source": "stated", "log_odds": -1.0}]
    return {"split": split, "model": "scripted", "agent_settings": {"check_min_log_odds": -99.0,
                                                                      "propose_min_log_odds": -99.0},
            "per_ontology": {"1_university": {"checked": [{"id": sentence.id, "written": [list(right), list(wrong)],
                                                            "checks": checks}]}}}


def test_the_floor_that_drops_the_unconfirmed_triple_is_learned(shared_data: Path) -> None:
    root = shared_data / "extraction" / "text2kgbench" / "dbpedia_webnlg"
    result = learn(_recording(shared_data), root)
    assert result["f1_without_check"] < 1.0 and result["f1_chosen"] == 1.0
    assert -1.0 < result["chosen"]["check_min_log_odds"] <= 2.0  # keeps the right triple, drops the wrong one
    assert result["chosen"]["propose_min_log_odds"] is None  # no proposals recorded: none gained, none proposed
    assert result["auc"] == {"stated": 1.0, "proposed": None}  # the right triple scored above the wrong one


def test_only_a_train_run_with_recorded_checks_is_learned_from(shared_data: Path) -> None:
    root = shared_data / "extraction" / "text2kgbench" / "dbpedia_webnlg"
    with pytest.raises(KgAgentsError, match="train-split"):
        learn(_recording(shared_data, "test"), root)
    unrecorded = _recording(shared_data) | {"agent_settings": {}}
    with pytest.raises(KgAgentsError, match="recorded no checks"):
        learn(unrecorded, root)


@pytest.mark.parametrize(("text", "message"), [("nope", r"x\.json:1: not JSON"), ("[1]", "no model, per_ontology"),
                                               ('{"model": "m"}', "no per_ontology")])
def test_a_file_that_is_not_a_recording_is_refused_with_its_name(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(text)
    with pytest.raises(InputFileError, match=message):
        read_recording(path)
