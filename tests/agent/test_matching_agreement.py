"""The background as a judge of the later stages' pairs (kgagents.agent.matching.agreement): the rules alone, then on
the real Neo4j with a small instrument-parts pair and a bridge of our own, where the containment rule pairs names the
bridge places apart, and a car-parts pair with two bridges (one defining its side's classes, one placing them) for the
near-duplicates the background maps once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kgagents.agent.matching.agreement import (
    below_half,
    blind_duplicates,
    judge_matches,
    stage_of,
    verdict,
    vocabulary,
)
from kgagents.agent.matching.settings import MatchSettings
from kgagents.graph.connection import Graph
from kgagents.jobs.matching import match_pair
from tests.agent.test_matching_background import fresh_pair

A, B = "http://a.test#A_000000", "http://b.test#B_000000"
CONTAINED = [(A + str(i), B + str(i)) for i in range(3, 9)]  # guitar neck / Neck … horn bell / Bell
UNTIED = (A + "8", B + "8")  # horn bell / Bell: the bridge only cross-references them, which assigns nothing


def test_a_mediators_vocabulary_is_its_accession_prefix_else_its_namespace() -> None:
    assert vocabulary("http://purl.obolibrary.org/obo/UBERON_0001062") == "http://purl.obolibrary.org/obo/UBERON"
    assert vocabulary("http://example.org/hub#Wheel") == "http://example.org/hub#"
    assert vocabulary("http://example.org/hub/Wheel") == "http://example.org/hub/"


def test_agreement_is_distrusted_only_when_significantly_below_half() -> None:
    assert below_half(0, 5)  # 1/32 < 5 %
    assert not below_half(0, 4)  # 1/16: four pairs placed apart prove nothing yet
    assert not below_half(1, 6)  # 7/64
    assert below_half(2, 20)
    assert not below_half(0, 0)


def test_a_near_duplicate_the_background_leaves_untied_joins_its_matched_namesake() -> None:
    matched = [("s1", "t1"), ("s2", "t2")]
    ties = {"s1": ["H"], "t1": ["H"], "s2": ["H"], "t2": ["H"], "t4": ["H"]}
    covered = ({"H"}, {"H"})
    candidates = [
        ("s1", "t1"),  # already matched
        ("s1", "t3"),  # t3 untied and unmatched, s1 tied and matched: kept
        ("s2", "t4"),  # t4 is tied: the background judges it, so no duplicate
        ("s9", "t2"),  # the source side's duplicate (s9 untied): kept
        ("s1", "t5"), ("s2", "t5"),  # t5 would join two matched entities: ambiguous, neither
        ("s8", "t8"),  # neither matched: not a duplicate of anything
    ]
    assert blind_duplicates(candidates, matched, ties, covered) == [("s1", "t3"), ("s9", "t2")]
    # a background that ties only one ontology says nothing about the other's untied entities
    assert blind_duplicates(candidates, matched, ties, ({"H"}, set())) == [("s9", "t2")]
    assert blind_duplicates(candidates, matched, {}, (set(), set())) == []  # no background: nothing
    # only a matched entity the background defines (an equivalence) passes its identity on: t2 is only placed below
    assert blind_duplicates(candidates, matched, ties, covered, defined={"s1", "s2"}) == [("s1", "t3")]


def _match(source: str, target: str, channel: str) -> dict[str, Any]:
    return {"source": source, "target": target, "channels": [channel]}


def test_the_background_vetoes_pairs_it_places_apart_and_judges_each_stage() -> None:
    related = {"s1\tt1": "shared"}
    ties = {"s1": ["H"], "t1": ["H"], "s2": ["H"], "t2": ["H"], "s3": ["H"], "t3": ["X"], "s9": ["H"]}
    assert verdict(("s1", "t1"), related, ties) is True
    assert verdict(("s2", "t2"), related, ties) is False  # one vocabulary, no path
    assert verdict(("s3", "t3"), related, ties) is None  # two vocabularies: the background cannot tell
    assert verdict(("s9", "t9"), related, ties) is None  # t9 untied
    matches = [
        _match("s1", "t1", "structural"),
        _match("s2", "t2", "structural"),
        _match("s3", "t3", "structural"),
        _match("s2", "t2", "lexical:exact"),
        _match("s2", "t2", "background:shared"),
    ]
    kept, checks = judge_matches(matches, related, ties)
    assert kept == [matches[0], matches[2], matches[3], matches[4]]  # the pre-match and the background: not judged
    assert [(c.stage, c.agreed, c.disagreed, c.distrusted, c.dropped) for c in checks] == [
        ("structural", 1, 1, False, 1)
    ]
    assert judge_matches(matches, related, ties, veto=False)[0] == matches
    assert stage_of(_match("s", "t", "syntactic")) == "retrieval"


def test_a_stage_the_background_contradicts_loses_its_unjudged_pairs_too() -> None:
    ties = {**{f"s{i}": ["H"] for i in range(5)}, **{f"t{i}": ["H"] for i in range(5)}}
    matches = [_match(f"s{i}", f"t{i}", "lexical:contained") for i in range(6)]  # s5 / t5 untied
    kept, checks = judge_matches(matches, {}, ties)
    assert kept == [] and checks[0].distrusted and checks[0].dropped == 6
    kept, _ = judge_matches(matches, {}, ties, stage_check=False)
    assert kept == [matches[5]]


def test_a_pair_two_matched_neighbour_pairs_corroborate_survives_the_judgement() -> None:
    ties = {e: ["H"] for e in ("s2", "t2", "s3", "t3", "s4", "t4")}
    matches = [
        _match("p1", "q1", "lexical:exact"),
        _match("p2", "q2", "lexical:exact"),
        _match("s2", "t2", "structural"),  # placed apart, but its parents p1, p2 match q1, q2: kept
        _match("s3", "t3", "structural"),  # placed apart, one matched neighbour pair only: dropped
        _match("s4", "t4", "structural"),  # its second neighbour pair is s3 / t3, itself dropped: dropped
    ]
    neighbours = {"s2": {"p1", "p2"}, "t2": {"q1", "q2"}, "s3": {"p1"}, "t3": {"q1"},
                  "s4": {"p1", "s3"}, "t4": {"q1", "t3"}}
    kept, checks = judge_matches(matches, {}, ties, neighbours=neighbours)
    assert kept == matches[:3]
    assert [(c.stage, c.disagreed, c.dropped, c.corroborated) for c in checks] == [("structural", 3, 2, 1)]
    assert judge_matches(matches, {}, ties)[0] == matches[:2]  # without neighbours: the judgement alone
    assert judge_matches(matches, {}, ties, neighbours={})[0] == matches[:2]


@pytest.fixture
def instruments(graph: Graph, fixtures: Path) -> Path:
    return fresh_pair(
        graph, fixtures / "matching" / "judged", instruments_a="instruments_a.ttl", instruments_b="instruments_b.ttl"
    )


def _pairs(graph: Graph, here: Path, background: bool = True, **settings: Any) -> tuple[set[tuple[str, str]], Any]:
    run = match_pair(
        graph,
        "instruments_a",
        "instruments_b",
        MatchSettings(mode="no_llm", **settings),
        background=[here / "bridge.ttl"] if background else [],
    )
    return run.pairs, run.result


def test_the_bridge_removes_the_contained_pairs_it_places_apart(graph: Graph, instruments: Path) -> None:
    plain, _ = _pairs(graph, instruments, background=False)
    assert set(CONTAINED) <= plain  # without background the containment rule pairs all six
    unjudged, _ = _pairs(graph, instruments, background_veto=False, background_stage_check=False)
    assert set(CONTAINED) <= unjudged and (A + "2", B + "2") in unjudged  # the bridge's own pair
    pairs, result = _pairs(graph, instruments)
    assert (A + "1", B + "1") in pairs and (A + "2", B + "2") in pairs
    assert not set(CONTAINED) & pairs  # five placed apart; horn bell / Bell dropped with its distrusted stage
    assert result.properties["background_distrusted"] == ["lexical:contained"]
    assert result.properties["background_judged_dropped"] == 6
    vetoed_only, _ = _pairs(graph, instruments, background_stage_check=False)
    assert set(CONTAINED) & vetoed_only == {UNTIED}


PA, PB = "http://pa.test#PA_000000", "http://pb.test#PB_000000"


def test_a_near_duplicate_joins_only_a_namesake_the_background_defines(graph: Graph, fixtures: Path) -> None:
    here = fresh_pair(graph, fixtures / "matching" / "duplicates", parts_a="parts_a.ttl", parts_b="parts_b.ttl")
    bridges = [here / "bridge_a.ttl", here / "bridge_b.ttl"]
    run = match_pair(graph, "parts_a", "parts_b", MatchSettings(mode="no_llm"), background=bridges)
    found = {(m["source"], m["target"]): m["channels"] for m in run.result.output}
    # Transmission (untied, listing "Gearbox") joins gearbox, which bridge A defines as a hub class: one-to-many
    assert found[(PA + "2", PB + "9")] == ["lexical:duplicate"] and (PA + "2", PB + "2") in found
    # "parking brake" (untied) is only a name of Brake, which bridge B places below a hub class: no pair
    assert (PA + "8", PB + "3") not in found and (PA + "3", PB + "3") in found
    off = match_pair(graph, "parts_a", "parts_b", MatchSettings(mode="no_llm", background_duplicates=False),
                     background=bridges)
    assert not any("lexical:duplicate" in m["channels"] for m in off.result.output)
