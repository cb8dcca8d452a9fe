"""The synonym rule (general-English synonyms from WordNet's first senses) and the lexicon it reads."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest

from kgagents.agent.matching.entities import Entity
from kgagents.agent.matching.lexical import LexicalEntity
from kgagents.agent.matching.llm_steps import parse_names
from kgagents.agent.matching.settings import MatchSettings
from kgagents.agent.matching.synonyms import build_lexicon, lexicon, listed_name_matches, synonym_matches
from kgagents.errors import ParseError
from kgagents.graph.connection import Graph
from kgagents.jobs.matching import match_pair
from kgagents.loaders.ontology import load_ontology
from tests.scripted_chat import ScriptedChatModel

SENSES = {"truck": "1", "lorry": "1", "camion": "1", "windshield": "2", "windscreen": "2", "maker": "3", "manufacturer": "3",
          "french_fries": "4", "chip": "4"}


def test_names_that_are_synonyms_as_a_whole_or_in_one_word_match_one_to_one() -> None:
    sources = [LexicalEntity("a:truck", "Class", ["Truck"]), LexicalEntity("a:ws", "Class", ["Windshield"]),
               LexicalEntity("a:am", "Class", ["automobile maker"]), LexicalEntity("a:ff", "Class", ["French fries"]),
               LexicalEntity("a:fm", "Class", ["food maker"])]
    targets = [LexicalEntity("b:lorry", "Class", ["Lorry"]), LexicalEntity("b:ws", "Relationship", ["windscreen"]),
               LexicalEntity("b:am", "Class", ["AutomobileManufacturer"]), LexicalEntity("b:chips", "Class", ["Chips"]),
               LexicalEntity("b:fm", "Class", ["Drink manufacturer"])]
    found = {(m.source, m.target) for m in synonym_matches(sources, targets, SENSES)}
    # kinds must agree (windscreen is a relationship there); "food maker" / "Drink manufacturer" differ in two words
    assert found == {("a:truck", "b:lorry"), ("a:am", "b:am"), ("a:ff", "b:chips")}
    twice = targets + [LexicalEntity("b:camion", "Class", ["Camion"])]  # two candidates: not 1:1, no pair
    assert ("a:truck", "b:lorry") not in {(m.source, m.target) for m in synonym_matches(sources, twice, SENSES)}


def test_names_sharing_a_name_are_left_to_the_pre_match() -> None:
    # the pre-match declined "Truck" / "Truck" as ambiguous; the synonym rule must not take it up as a synonym
    sources = [LexicalEntity("a:1", "Class", ["Truck", "Lorry"])]
    targets = [LexicalEntity("b:1", "Class", ["Truck"])]
    assert synonym_matches(sources, targets, SENSES) == []


def test_the_lexicon_keeps_each_lemmas_first_sense_where_it_has_another_lemma(fixtures: Path, tmp_path: Path) -> None:
    out = tmp_path / "senses.tsv.gz"
    assert build_lexicon(fixtures / "matching" / "wordnet", out) == 5
    senses = lexicon(out)
    assert senses["truck"] == senses["motortruck"] and senses["windshield"] == senses["windscreen"]
    # "presenter" is a "sponsor" only in its second sense, and its first has no other lemma: no synonym of it
    assert "presenter" not in senses and "sponsor" in senses
    with gzip.open(out, "rt", encoding="utf-8") as f:
        assert f.readline().count("\t") == 1


def test_the_shipped_lexicon_is_wordnets_first_senses() -> None:
    senses = lexicon()
    assert senses["windshield"] == senses["windscreen"] and senses["movie"] == senses["film"]
    assert senses.get("presenter") != senses.get("sponsor")


def test_a_malformed_wordnet_file_is_refused_with_its_line(fixtures: Path, tmp_path: Path) -> None:
    for name in ("data.noun", "index.noun"):
        (tmp_path / name).write_text((fixtures / "matching" / "wordnet" / name).read_text(encoding="utf-8"),
                                     encoding="utf-8")
    with (tmp_path / "index.noun").open("a", encoding="utf-8") as f:
        f.write("brokenline n\n")
    with pytest.raises(ParseError, match=r"index\.noun:8: not a WordNet index line"):
        build_lexicon(tmp_path, tmp_path / "out.tsv.gz")


@pytest.mark.integration
def test_general_vocabulary_synonyms_are_matched_and_only_with_the_rule_on(graph: Graph, fixtures: Path) -> None:
    a, b, d = _vehicles(graph, fixtures)
    runs = {on: match_pair(graph, a, b, MatchSettings(mode="no_llm", synonyms=on), reference=d / "reference.rdf")
            for on in (True, False)}
    first = {on: {(m["source"], m["target"]): m["channels"][0] for m in run.result.output}
             for on, run in runs.items()}
    assert first[True].get((VA + "Windshield", VB + "Windscreen")) == "lexical:synonym"
    assert (VA + "Windshield", VB + "Windscreen") not in first[False]
    assert runs[True].scores.recall > runs[False].scores.recall


def test_a_models_list_of_names_is_read_one_name_a_line() -> None:
    truck = Entity("a:Truck", "Truck", "Class", label="Truck", labels=("Truck",), synonyms=("Freight truck",))
    reply = '1. Lorry\n- "Heavy goods vehicle"\n* truck\n\nA large motor vehicle used to carry goods over roads\nLorry'
    # list marks and quotes go; its own names, a description (over six words) and a repeat are no other names
    assert parse_names(reply, truck) == ["Lorry", "Heavy goods vehicle"]
    assert len(parse_names("\n".join(f"name {i}" for i in range(9)), truck)) == 5


def test_a_listed_name_of_one_entity_that_names_the_other_matches_one_to_one() -> None:
    sources = [LexicalEntity("a:truck", "Class", ["Truck"]), LexicalEntity("a:engine", "Class", ["Engine"]),
               LexicalEntity("a:speed", "Property", ["top speed"]), LexicalEntity("a:van", "Class", ["Van"])]
    targets = [LexicalEntity("b:lorry", "Class", ["Lorry"]), LexicalEntity("b:power", "Class", ["Power unit"]),
               LexicalEntity("b:max", "Property", ["maximum speed"]), LexicalEntity("b:truck2", "Class", ["Camion"])]
    listed = {"a:truck": ["the lorry"], "b:power": ["Engine", "Motor"], "a:speed": ["maximum speed"],
              "a:van": ["Lorry"]}  # two sources name Lorry: neither pair is 1:1
    found = {(m.source, m.target) for m in listed_name_matches(sources, targets, listed)}
    assert found == {("a:engine", "b:power"), ("a:speed", "b:max")}  # either side's list counts, kinds agree
    del listed["a:van"]
    found = {(m.source, m.target) for m in listed_name_matches(sources, targets, listed)}
    assert ("a:truck", "b:lorry") in found  # by the word bag: "the lorry" names "Lorry"
    kinds = {"a:speed": ["Lorry"]}  # a property's listed name does not name a class
    assert listed_name_matches(sources, targets, kinds) == []


VA, VB = "http://example.org/vehicles-a#", "http://example.org/vehicles-b#"


def _vehicles(graph: Graph, fixtures: Path) -> tuple[str, str, Path]:
    """The vehicles pair loaded: (source name, target name, its folder)."""
    d = fixtures / "matching" / "vehicles"
    a, b = (load_ontology(graph, d / f).name for f in ("vehicles_a.ttl", "vehicles_b.ttl"))
    return a, b, d


def _lorry_for_truck(asked: list[str], answer: str = "yes") -> Any:
    """A scripted model's reply: "Lorry" as Truck's other name (each entity asked about noted in ``asked``), and
    ``answer`` to every validation."""
    def reply(messages: list[dict[str, str]]) -> str:
        text = messages[-1]["content"]
        if "Other names:" in text:
            name = text.split("\nname: ", 1)[1].split("\n", 1)[0]
            asked.append(name)
            return {"Truck": "1. Lorry\n2. Heavy goods vehicle"}.get(name, "")
        return f'{{"reason": "-", "answer": "{answer}"}}'
    return reply


@pytest.mark.integration
def test_the_chat_model_as_a_synonym_source_matches_what_wordnet_does_not(graph: Graph, fixtures: Path) -> None:
    a, b, d = _vehicles(graph, fixtures)
    asked: list[str] = []
    reply = _lorry_for_truck(asked)

    def run(on: bool, chat: ScriptedChatModel) -> dict[tuple[str, str], str]:
        settings = MatchSettings(mode="gated", llm_synonyms=on, substitution=False, containment=False)
        done = match_pair(graph, a, b, settings, chat=chat, reference=d / "reference.rdf")
        return {(m["source"], m["target"]): m["channels"][0] for m in done.result.output}

    with_names = run(True, ScriptedChatModel([reply] * 400))
    assert with_names.get((VA + "Truck", VB + "Lorry")) == "lexical:llm-synonym"
    assert "Truck" in asked and "Windshield" not in asked  # only what nothing else matched is asked about
    again = len(asked)
    run(True, ScriptedChatModel([reply] * 400))
    assert len(asked) == again  # the listed names are stored on the entities: asked once per entity and model
    assert (VA + "Truck", VB + "Lorry") not in run(False, ScriptedChatModel([reply] * 400))
    no_llm = match_pair(graph, a, b, MatchSettings(mode="no_llm"), chat=ScriptedChatModel([]))
    assert all(m["channels"][0] != "lexical:llm-synonym" for m in no_llm.result.output)


@pytest.mark.integration
def test_without_validating_the_lexical_rules_a_models_no_drops_only_its_own_names(graph: Graph,
                                                                                  fixtures: Path) -> None:
    a, b, _ = _vehicles(graph, fixtures)

    def reply(messages: list[dict[str, str]]) -> str:  # lists Lorry for Truck, and says no to every pair
        text = messages[-1]["content"]
        if "Other names:" in text:
            return "Lorry" if "\nname: Truck\n" in text else ""
        return '{"reason": "not the same", "answer": "no"}'

    def run(validate: bool) -> dict[tuple[str, str], str]:
        settings = MatchSettings(mode="gated", validate_lexical_rules=validate)
        done = match_pair(graph, a, b, settings, chat=ScriptedChatModel([reply] * 400, model="scripted-no"))
        return {(m["source"], m["target"]): m["channels"][0] for m in done.result.output}

    validated, unvalidated = run(True), run(False)
    assert (VA + "Windshield", VB + "Windscreen") not in validated  # the validator's no drops the WordNet pair
    assert unvalidated.get((VA + "Windshield", VB + "Windscreen")) == "lexical:synonym"  # accepted as without an LLM
    assert (VA + "Truck", VB + "Lorry") not in unvalidated  # the model's own names are validated either way


@pytest.mark.integration
def test_with_more_entities_to_ask_than_the_limit_the_model_is_asked_nothing(graph: Graph, fixtures: Path) -> None:
    a, b, _ = _vehicles(graph, fixtures)
    asked: list[str] = []
    reply = _lorry_for_truck(asked)

    def run(limit: int) -> tuple[set[tuple[str, str]], int]:
        settings = MatchSettings(mode="gated", llm_synonyms_max_asked=limit)
        done = match_pair(graph, a, b, settings, chat=ScriptedChatModel([reply] * 400, model="scripted-limit"))
        return {(m["source"], m["target"]) for m in done.result.output}, done.result.properties["llm_synonyms_skipped"]

    pairs, skipped = run(1)
    assert skipped > 1 and not asked and (VA + "Truck", VB + "Lorry") not in pairs  # over the limit: nothing asked
    pairs, none_skipped = run(skipped)
    assert none_skipped == 0 and len(asked) == skipped and (VA + "Truck", VB + "Lorry") in pairs
    assert run(0)[1] == 0  # every entity asked before by this model: nothing left to ask, the step runs
