"""The synonym rule (general-English synonyms from WordNet's first senses) and the lexicon it reads."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from kgagents.agent.matching.lexical import LexicalEntity
from kgagents.agent.matching.settings import MatchSettings
from kgagents.agent.matching.synonyms import build_lexicon, lexicon, synonym_matches
from kgagents.errors import ParseError
from kgagents.graph.connection import Graph
from kgagents.jobs.matching import match_pair
from kgagents.loaders.ontology import load_ontology

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
    d = fixtures / "matching" / "vehicles"
    a, b = (load_ontology(graph, d / f).name for f in ("vehicles_a.ttl", "vehicles_b.ttl"))
    va, vb = "http://example.org/vehicles-a#", "http://example.org/vehicles-b#"
    runs = {on: match_pair(graph, a, b, MatchSettings(mode="no_llm", synonyms=on), reference=d / "reference.rdf")
            for on in (True, False)}
    first = {on: {(m["source"], m["target"]): m["channels"][0] for m in run.result.output}
             for on, run in runs.items()}
    assert first[True].get((va + "Windshield", vb + "Windscreen")) == "lexical:synonym"
    assert (va + "Windshield", vb + "Windscreen") not in first[False]
    assert runs[True].scores.recall > runs[False].scores.recall
