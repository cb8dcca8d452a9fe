"""`bench om-gate --graded`: the log-odds floor a validator confirmation needs is learned with the band, and the band is
checked against the no-LLM mode."""

from __future__ import annotations

from pathlib import Path

from benchmarks.om import _graded_gate, confirmed, offline_of
from kgagents.agent.base import RunResult
from kgagents.agent.matching.settings import MatchSettings
from kgagents.jobs.matching import PairRun
from kgagents.loaders.alignment import read_alignment


def test_the_floor_keeps_the_confirmations_that_gain_and_drops_the_ones_that_lose() -> None:
    # (depth below accept_similarity, F1 gain) of four confirmations and the validator's log-odds for each
    rows = [(0.01, 1.5), (0.02, -0.5), (0.03, 1.5), (0.04, -0.5)]
    gate, floor = _graded_gate(rows, [2.0, 0.1, 1.2, -0.3])
    assert floor == 1.2 and (gate.right, gate.wrong) == (2, 0) and gate.gain == 3.0


def test_no_floor_when_no_confirmation_gains() -> None:
    gate, floor = _graded_gate([(0.01, -0.5), (0.02, -0.4)], [1.0, None])
    assert floor is None and gate.threshold == 0.0 and gate.gain == 0.0


def test_the_band_is_checked_against_the_no_llm_mode_with_the_same_other_settings() -> None:
    learned = MatchSettings(mode="gated", threshold=0.81, validator_min_log_odds=-1.2, structural=False)
    offline = offline_of(learned)
    assert offline == MatchSettings(mode="no_llm", structural=False)
    assert offline.threshold == MatchSettings(mode="no_llm").threshold and not offline.validator


def test_confirmed_lists_the_validator_confirmed_matches_of_the_output_with_the_references_verdict(
        tmp_path: Path) -> None:
    reference = tmp_path / "a-b.rdf"
    reference.write_text(
        '<?xml version="1.0"?>\n'
        '<rdf:RDF xmlns="http://knowledgeweb.semanticweb.org/heterogeneity/alignment"'
        ' xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n'
        '<Alignment><map><Cell><entity1 rdf:resource="http://a#Paper"/><entity2 rdf:resource="http://b#Article"/>'
        '<relation>=</relation><measure>1.0</measure></Cell></map></Alignment></rdf:RDF>\n')
    output = [{"source": "http://a#Paper", "target": "http://b#Article", "validated": True},   # confirmed, right
              {"source": "http://a#Chair", "target": "http://b#Seat", "validated": True},       # confirmed, wrong
              {"source": "http://a#Author", "target": "http://b#Writer", "validated": False}]   # never asked
    run = PairRun("r", "a", "b", set(), 0, 0.0, 2,
                  result=RunResult(run_id="r", job="match", model="m", mode="gated", output=output))
    assert [(m["target"], ok) for m, ok in confirmed(run, read_alignment(reference))] == [("http://b#Article", True),
                                                                          ("http://b#Seat", False)]
