"""Wikidata truthy N-Triples: a hand-written sample (tests/fixtures/kg/wikidata_truthy_sample.nt).

Expected values are read off the fixture by hand: line 27 lacks the final ' .'; without it the sample has
10 entities (9 in wdt: statements + Q3107329 with only a label), 15 wdt: properties, 8 distinct
entity-to-entity statements (Q42 P31 Q5 is repeated) and 8 literal-valued statements.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kgagents.errors import ParseError
from kgagents.graph.connection import Graph
from kgagents.loaders.kg_common import get_entity, get_relations, kg_stats, triples_between
from kgagents.loaders.wikidata import literals_of, load_wikidata_nt, parse_wikidata_nt

WDT = "http://www.wikidata.org/prop/direct/"
XSD = "http://www.w3.org/2001/XMLSchema#"


@pytest.fixture
def sample(fixtures: Path) -> Path:
    return fixtures / "kg" / "wikidata_truthy_sample.nt"


@pytest.fixture
def valid_sample(sample: Path, tmp_path: Path) -> Path:
    lines = sample.read_text(encoding="utf-8").splitlines(keepends=True)
    assert "P735" in lines[26] and not lines[26].rstrip().endswith(".")
    path = tmp_path / "sample.nt"
    path.write_text("".join(lines[:26] + lines[27:]), encoding="utf-8")
    return path


def test_malformed_line_is_reported_and_nothing_written(graph: Graph, sample: Path) -> None:
    with pytest.raises(ParseError) as err:
        load_wikidata_nt(graph, sample)
    assert err.value.line == 27
    assert kg_stats(graph, "wikidata")["entities"] == 0


def test_sample_counts(graph: Graph, valid_sample: Path) -> None:
    result = load_wikidata_nt(graph, valid_sample)
    assert (result.entities, result.relations, result.triples, result.literals) == (10, 15, 8, 8)
    assert result.duplicate_triples == 1
    stats = kg_stats(graph, "wikidata")
    assert (stats["entities"], stats["relations"], stats["triples"], stats["literals"]) == (10, 15, 8, 8)
    load_wikidata_nt(graph, valid_sample)
    assert kg_stats(graph, "wikidata") == stats


def test_english_names_only(graph: Graph, valid_sample: Path) -> None:
    load_wikidata_nt(graph, valid_sample, kg="wd")
    q42 = get_entity(graph, "wd", "Q42")
    assert q42 is not None
    assert q42["name"] == "Douglas Adams"  # not the en-gb or fr label
    assert q42["description"] == "English writer and humorist (1952\u20132001)"
    assert q42["aliases"] == ["Douglas No\u00ebl Adams", "DNA"]  # the @de alias is ignored
    assert get_entity(graph, "wd", "Q350")["name"] == "Cambridge"  # schema:name when there is no rdfs:label
    assert get_entity(graph, "wd", "Q28389")["name"] == "Q28389"  # no label at all
    assert get_entity(graph, "wd", "P31") is None  # a property with labels only is not an entity


def test_statements_are_typed_by_pid_with_property_labels(graph: Graph, valid_sample: Path) -> None:
    load_wikidata_nt(graph, valid_sample, kg="wd")
    assert triples_between(graph, "wd", "Q42", "Q5") == [{"type": "P31", "rel": WDT + "P31", "name": "instance of"}]
    assert triples_between(graph, "wd", "Q42", "Q691283") == [{"type": "P69", "rel": WDT + "P69", "name": "P69"}]
    assert triples_between(graph, "wd", "Q25169", "Q42") == [{"type": "P50", "rel": WDT + "P50", "name": "author"}]
    relations = get_relations(graph, "wd")
    assert relations[WDT + "P569"]["name"] == "date of birth"
    assert relations[WDT + "P569"]["description"] == "date on which the subject was born"


def test_literal_statements_keep_value_datatype_language(graph: Graph, valid_sample: Path) -> None:
    load_wikidata_nt(graph, valid_sample, kg="wd")
    lits = {(x["type"], x["value"]): x for x in literals_of(graph, "Q42", kg="wd")}
    assert len(lits) == 6
    assert lits[("P569", "1952-03-11T00:00:00Z")]["datatype"] == XSD + "dateTime"
    assert lits[("P569", "1952-03-11T00:00:00Z")]["name"] == "date of birth"
    assert lits[("P2048", "+1.96")]["datatype"] == XSD + "decimal"
    monolingual = lits[("P1477", "Douglas No\u00ebl Adams")]
    assert monolingual["lang"] == "en" and monolingual["datatype"].endswith("#langString")
    assert lits[("P214", "113230702")]["datatype"] == XSD + "string" and lits[("P214", "113230702")]["lang"] is None
    assert any(t == "P18" and v.startswith("http://commons.wikimedia.org/") for t, v in lits)
    titles = [x["value"] for x in literals_of(graph, "Q25169", kg="wd") if x["type"] == "P1476"]
    assert titles == ['The Hitchhiker\'s Guide to the "Galaxy"']


def test_property_label_file_overrides_and_completes_dump_labels(graph: Graph, valid_sample: Path,
                                                                 tmp_path: Path) -> None:
    labels = tmp_path / "labels.tsv"
    labels.write_text("# PID\tlabel\nP31\tis a\n\nhttp://www.wikidata.org/entity/P69\teducated at\n", encoding="utf-8")
    load_wikidata_nt(graph, valid_sample, kg="wd", property_labels=labels)
    assert triples_between(graph, "wd", "Q42", "Q5") == [{"type": "P31", "rel": WDT + "P31", "name": "is a"}]
    assert triples_between(graph, "wd", "Q42", "Q691283")[0]["name"] == "educated at"  # the dump has no label
    assert get_relations(graph, "wd")[WDT + "P50"]["name"] == "author"  # not in the file: the dump's label


def test_bad_property_label_line_names_file_and_line(valid_sample: Path, tmp_path: Path) -> None:
    labels = tmp_path / "labels.tsv"
    labels.write_text("P31\tinstance of\nQ5\thuman\n", encoding="utf-8")
    with pytest.raises(ParseError) as err:
        parse_wikidata_nt(valid_sample, property_labels=labels)
    assert err.value.line == 2 and str(labels) in str(err.value)


def test_fast_path_and_full_grammar_read_the_same_statements(valid_sample: Path, tmp_path: Path) -> None:
    """Statement lines in the dump's exact shape take a shortcut; spaced or commented ones the full grammar."""
    reshaped = tmp_path / "reshaped.nt"
    reshaped.write_text("".join(line.replace("> <", ">\t<").rstrip("\n") + " # comment\n" if line.strip() else line
                                for line in valid_sample.read_text(encoding="utf-8").splitlines(keepends=True)),
                        encoding="utf-8")
    fast, full = parse_wikidata_nt(valid_sample), parse_wikidata_nt(reshaped)
    assert sorted(fast.triples()) == sorted(full.triples()) and len(list(fast.triples())) == 8
    assert sorted(map(str, fast.literals())) == sorted(map(str, full.literals()))
    assert fast.entities == full.entities and fast.relations == full.relations
    assert fast.duplicate_triples == full.duplicate_triples == 1
