"""The TWA slot scorer on the shared ground-truth example: self-score 1.0, perturbed copies score as counted."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from kgagents.metrics.twa import _max_assignment, fingerprint, load_ground_truth, records, score, slots


@pytest.fixture(scope="module")
def truth(shared_data: Path) -> dict[str, Any]:
    return load_ground_truth(shared_data / "extraction" / "twa_mops" / "ground_truth_example_10.1021_ic050460z")


def n_slots(record: Any) -> int:
    return sum(slots(record).values())


def mutable(document: dict[str, Any]) -> list[Any]:
    """The record list inside a category document itself (records() flattens Devices into a new list)."""
    return document["Devices"][0]["Characterisation"] if "Devices" in document else records(document)


def test_self_score_is_one(truth: dict[str, Any]) -> None:
    assert set(truth) == {"cbu", "characterisation", "chemicals", "steps"}
    result = score(truth, truth)
    assert result["micro"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0} == result["macro"]
    assert all(len(records(v)) == 3 for v in truth.values())


def test_record_order_and_formatting_do_not_matter(truth: dict[str, Any]) -> None:
    shuffled = copy.deepcopy(truth)
    for category in shuffled.values():
        mutable(category).reverse()
    records(shuffled["cbu"])[0]["mopCCDCNumber"] = "  " + records(shuffled["cbu"])[0]["mopCCDCNumber"].upper() + " "
    assert score(truth, shuffled)["micro"]["f1"] == 1.0


def test_dropped_record_costs_recall_only(truth: dict[str, Any]) -> None:
    predicted = copy.deepcopy(truth)
    dropped = records(predicted["chemicals"]).pop()
    total = sum(n_slots(r) for r in records(truth["chemicals"]))
    chem = score(truth, predicted)["categories"]["chemicals"]
    assert (chem["tp"], chem["fp"], chem["fn"]) == (total - n_slots(dropped), 0, n_slots(dropped))
    assert chem["precision"] == 1.0 and chem["recall"] == pytest.approx((total - n_slots(dropped)) / total)


def test_changed_value_is_one_fp_and_one_fn_and_macro_is_mean_of_categories(truth: dict[str, Any]) -> None:
    predicted = copy.deepcopy(truth)
    records(predicted["cbu"])[1]["cbuFormula1"] = "[C8H4O4]"
    result = score(truth, predicted)
    cbu = result["categories"]["cbu"]
    total = sum(n_slots(r) for r in records(truth["cbu"]))
    assert (cbu["tp"], cbu["fp"], cbu["fn"]) == (total - 1, 1, 1)
    assert result["macro"]["f1"] == pytest.approx((3 + cbu["f1"]) / 4)
    pooled = sum(n_slots(r) for v in truth.values() for r in records(v))
    assert result["micro"]["precision"] == pytest.approx((pooled - 1) / pooled)


def test_extra_record_costs_precision_and_missing_category_scores_zero(truth: dict[str, Any]) -> None:
    predicted = copy.deepcopy(truth)
    extra = copy.deepcopy(records(predicted["characterisation"])[0])
    extra["productCCDCNumber"] = "999999"
    mutable(predicted["characterisation"]).append(extra)
    char = score(truth, predicted)["categories"]["characterisation"]
    assert char["fn"] == 0 and char["fp"] == n_slots(extra) and char["recall"] == 1.0
    del predicted["steps"]
    result = score(truth, predicted)
    cats = result["categories"]
    assert cats["steps"]["f1"] == 0.0 and cats["steps"]["fn"] == sum(n_slots(r) for r in records(truth["steps"]))
    assert result["macro"]["f1"] == pytest.approx(sum(c["f1"] for c in cats.values()) / 4)


def test_matching_maximises_exact_slots_and_normalisation() -> None:
    assert sorted(_max_assignment([[1, 5], [4, 2], [0, 0]])) == [(0, 1), (1, 0)]
    assert _max_assignment([[3]]) == [(0, 0)] and _max_assignment([]) == []
    # greedy would pair gt0 with pred0 (3 slots) and leave gt1 with 0; the optimum pairs crosswise (2 + 2)
    gt = [{"a": "1", "b": "2", "c": "3"}, {"a": "1", "b": "2", "d": "4"}]
    pred = [{"a": "1", "b": "2", "c": "3", "e": "x"}, {"a": "1", "d": "4"}]
    assert score({"k": gt}, {"k": pred})["categories"]["k"]["tp"] == 5
    assert fingerprint("N/A") == "" and fingerprint(-1) == "" and fingerprint(" Mo₂(OAc)₄ ") == "mo2(oac)4"
    assert slots({"names": ["A", "b", "n/a"], "x": {"y": " Z "}}) == {("names", "a"): 1, ("names", "b"): 1,
                                                                      ("x.y", "z"): 1}


def test_bench_twa_writes_where_out_says_and_leaves_the_repository_results(shared_data: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from benchmarks import RESULTS_DIR
    from kgagents.cli import app

    before = {p.name: p.stat().st_mtime_ns for p in RESULTS_DIR.glob("extraction/twa/*")}
    result = CliRunner().invoke(app, ["bench", "twa", "--out", str(tmp_path / "twa")],
                                env={"KGAGENTS_DATA_DIR": str(shared_data)})
    assert result.exit_code == 0, result.output
    written = {p.name for p in (tmp_path / "twa" / "extraction" / "twa").iterdir()}
    assert {"tools.json", "scorer_selftest.json"} <= written
    assert before and {p.name: p.stat().st_mtime_ns for p in RESULTS_DIR.glob("extraction/twa/*")} == before
