"""EA-Agent tools, planner and reward on hand-computed toy examples (plus two reads from the tiny JAPE pair)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from kgagents.agent.alignment.planner import (
    LLMPlanner,
    parse_path,
    rule_plan,
    validate_path,
)
from kgagents.agent.alignment.reward import reflector_effect, reward, rewrite_path
from kgagents.agent.alignment.statistics import EntityStatistics, entity_statistics
from kgagents.agent.alignment.tools import (
    AttributeTripleSelector,
    RelationTripleSelector,
    attribute_entropy,
    relation_frequencies,
    relation_information,
)
from kgagents.graph.connection import Graph
from kgagents.loaders.jape import load_jape_pair
from tests.scripted_chat import ScriptedChatModel

DE, EN = "http://de.dbpedia.org/property/", "http://dbpedia.org/ontology/"
DATASET = "jape_tiny_de_en"


def h(p: float) -> float:
    return -sum(q * math.log(q) for q in (p, 1 - p) if q > 0)


def test_attribute_entropy_and_selection_on_a_toy_pool() -> None:
    # four candidates; attributes compared by local name across namespaces
    pool = [{EN + "populationTotal", EN + "bar", EN + "foo"}, {EN + "populationTotal", EN + "foo"},
            {EN + "populationTotal", EN + "foo", EN + "bar"}, {EN + "foo"}]
    assert attribute_entropy(DE + "populationTotal", pool) == pytest.approx(-(0.75 * math.log(0.75) + 0.25 * math.log(0.25)))
    assert attribute_entropy(DE + "bar", pool) == pytest.approx(math.log(2))
    assert attribute_entropy(DE + "foo", pool) == 0.0  # every candidate has it
    assert attribute_entropy(DE + "absent", pool) == 0.0
    source = [DE + "bar", DE + "populationTotal", DE + "foo", DE + "name"]
    # name-like kept first, then foo (0) before populationTotal (0.562); bar (0.693) does not fit in 3
    assert AttributeTripleSelector(limit=3).select(source, pool) == [DE + "name", DE + "foo", DE + "populationTotal"]
    assert AttributeTripleSelector(limit=1).select(source, pool) == [DE + "name"]


def test_relation_information_and_selection_on_a_toy_kg() -> None:
    freq = {"A": 1, "B": 3}  # N = 4 triples
    assert relation_information("A", freq, 4) == pytest.approx(math.log(4 / 2))
    assert relation_information("B", freq, 4) == pytest.approx(0.0)
    assert relation_information("C", freq, 4) == pytest.approx(math.log(4))
    triples = [{"direction": "out", "rel": "A", "relation": "A", "other": "x"},
               {"direction": "in", "rel": "B", "relation": "B", "other": "y"},
               {"direction": "out", "rel": "B", "relation": "B", "other": "z"},
               {"direction": "in", "rel": "C", "relation": "C", "other": "w"}]
    kept = RelationTripleSelector(freq, limit=2).select(triples)
    assert [(t["rel"], t["direction"]) for t in kept] == [("C", "in"), ("A", "out")]


def test_frequencies_and_statistics_from_neo4j(graph: Graph, fixtures: Path) -> None:
    load_jape_pair(graph, fixtures / "kg" / DATASET)
    kg1 = f"{DATASET}:de"
    # triples_1: (1 hauptstadt 0), (0 land 1) twice, (3 land 1), (2 geburtsort 0) -> 4 distinct triples
    freq = relation_frequencies(graph, kg1)
    assert freq == {DE + "hauptstadt": 1, DE + "land": 2, DE + "geburtsort": 1}
    stats = entity_statistics(graph, kg1=kg1, run_id="none", sources=["http://de.dbpedia.org/resource/Berlin",
                                                                      "http://de.dbpedia.org/resource/Deutschland"])
    berlin = stats["http://de.dbpedia.org/resource/Berlin"]
    assert (berlin.attribute_count, berlin.relation_count, berlin.has_name) == (2, 3, True)
    assert sorted(berlin.relation_types) == ["geburtsort", "hauptstadt", "land"]
    germany = stats["http://de.dbpedia.org/resource/Deutschland"]
    assert (germany.attribute_count, germany.relation_count, germany.top_scores) == (0, 3, [])
    assert germany.name == "Germany"  # translated name


def _stats(scores: list[float], attributes: int = 1, relations: int = 1) -> EntityStatistics:
    return EntityStatistics(source="s", name="S", has_name=True, attribute_count=attributes,
                            attributes=["a"] * attributes, relation_count=relations, relation_types=["r"],
                            top_scores=scores)


def test_path_validation_and_rule_plan() -> None:
    assert validate_path(["attribute_selector", "relation_selector", "aligner", "reflector"]) is None
    assert validate_path(["aligner", "reflector"]) is None
    assert validate_path(["aligner"]) is not None
    assert validate_path(["reflector", "aligner"]) is not None
    assert validate_path(["aligner", "attribute_selector"]) is not None
    assert validate_path(["relation_selector", "relation_selector", "aligner"]) is not None
    assert validate_path(["attribute_selector", "magic", "aligner"]) is not None
    assert rule_plan(_stats([0.9, 0.7])).path == ["attribute_selector", "relation_selector", "aligner", "reflector"]
    assert rule_plan(_stats([0.9, 0.5], attributes=0)).path == ["relation_selector", "aligner"]
    assert rule_plan(_stats([0.9], attributes=0, relations=0)).path == ["relation_selector", "aligner"]


def test_llm_planner_scripted_valid_and_invalid() -> None:
    assert parse_path("Plan:\n2) aligner\n1. relation selector\n3. `reflector`") == [
        "relation_selector", "aligner", "reflector"]
    chat = ScriptedChatModel(["1. attribute_selector\n2. aligner", "1. aligner\n2. relation_selector",
                              "I would use the aligner."])
    planner = LLMPlanner(chat)
    ok = planner.plan(_stats([0.9, 0.1]))
    assert (ok.path, ok.source) == (["attribute_selector", "aligner"], "llm")
    bad = planner.plan(_stats([0.9, 0.8]))
    assert bad.source == "fallback" and "only the reflector" in bad.note
    assert bad.path == ["attribute_selector", "relation_selector", "aligner", "reflector"]
    none = planner.plan(_stats([0.9, 0.1]))
    assert none.source == "fallback" and none.path == ["attribute_selector", "relation_selector", "aligner"]
    assert "top-1/2/3 candidate scores: 0.90, 0.10" in chat.calls[0]["messages"][0]["content"]


def test_reward_cases() -> None:
    e2, e3 = math.exp(-0.4), math.exp(-0.6)
    assert reward(path=["relation_selector", "aligner"], initial="g", final="g", gold="g") == pytest.approx(1 + e2)
    assert reward(path=["relation_selector", "aligner"], initial="x", final="x", gold="g") == pytest.approx(e2)
    # reflector fixed a wrong answer / broke a right one
    assert reward(path=["relation_selector", "aligner", "reflector"], initial="x", final="g", gold="g") == pytest.approx(1.5 + e3)
    assert reward(path=["aligner", "reflector"], initial="g", final="x", gold="g") == pytest.approx(-0.5 + e2)
    assert reflector_effect("x", "y", "g", reflected=True) == 0
    assert reward(path=["aligner", "reflector"], initial="x", final="y", gold=None) == pytest.approx(0.5 + e2)
    assert rewrite_path(["relation_selector", "aligner", "reflector"], initial="a", final="a", margin=0.5) == [
        "relation_selector", "aligner"]
    assert rewrite_path(["relation_selector", "aligner", "reflector"], initial="a", final="a", margin=0.1) == [
        "relation_selector", "aligner", "reflector"]
    assert rewrite_path(["attribute_selector", "aligner", "reflector"], initial="a", final="b", margin=0.5,
                        empty_selectors=["attribute_selector"]) == ["aligner", "reflector"]


# -- the gated aligner: constrained answers, override only when sure and confirmed ----------------------
def _cands() -> list:
    from kgagents.agent.alignment.tools import EntityContext
    return [EntityContext("t:Paris", "Paris", score=0.9), EntityContext("t:Lyon", "Lyon", score=0.85),
            EntityContext("t:Nice", "Nice", score=0.5)]


@pytest.mark.parametrize(("replies", "target", "changed", "confirmer"), [
    (['{"choice": 1, "sure": true}'], "t:Paris", False, False),                      # agrees with rank 1
    (['{"choice": 2, "sure": false}'], "t:Paris", False, False),                     # unsure: rank 1 kept
    (['{"choice": 2, "sure": true}', '{"same_as": "A"}'], "t:Lyon", True, True),      # A = t:Lyon (ids sorted)
    (['{"choice": 2, "sure": true}', '{"same_as": "B"}'], "t:Paris", False, True),    # not confirmed
    (['{"choice": 7, "sure": true}', '{"choice": 9, "sure": true}'], "t:Paris", False, False),  # no such option
])
def test_gated_aligner_overrides_only_when_sure_and_confirmed(replies: list[str], target: str, changed: bool,
                                                              confirmer: bool) -> None:
    from kgagents.agent.alignment.tools import GATED_SYSTEM, EntityContext, GatedAligner
    chat = ScriptedChatModel(replies)
    choice, asked = GatedAligner(chat).align(EntityContext("s:Paris", "Paris"), _cands())
    assert (choice.target, choice.changed, asked) == (target, changed, confirmer)
    assert chat.remaining == 0
    # the fixed instructions come first in every call (one prompt-cache prefix), and the answer is schema-bound
    assert all(c["messages"][0] == {"role": "system", "content": GATED_SYSTEM} for c in chat.calls)
    assert chat.calls[0]["json_schema"]["properties"]["choice"]["maximum"] == 3
