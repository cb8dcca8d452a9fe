"""The rule an entity alignment's SSSOM file names KG entities by (kgagents.loaders.entity_iri), and back."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgagents.loaders.entity_iri import entity_iri, iri_form, stored_ids
from kgagents.loaders.pairs import PairLine, resolve_ids
from kgagents.loaders.sssom import Mapping, read_sssom, write_sssom


@pytest.mark.parametrize(("kg", "kg_format", "entity", "iri"), [
    ("zh", "jape", "http://zh.dbpedia.org/resource/北京_(城市)",
     "http://zh.dbpedia.org/resource/%E5%8C%97%E4%BA%AC_(%E5%9F%8E%E5%B8%82)"),
    ("de", "triples", "München", "https://w3id.org/kgagents/kg/de/M%C3%BCnchen"),
    ("my kg", "triples", "New York/50% off", "https://w3id.org/kgagents/kg/my%20kg/New%20York%2F50%25%20off"),
    ("wd", "wikidata-truthy-nt", "Q42", "http://www.wikidata.org/entity/Q42"),
    ("t", "triples", "Q42", "https://w3id.org/kgagents/kg/t/Q42"),  # a triples file's Q42 is just a name
])
def test_every_id_is_an_ascii_iri_that_reads_back_as_the_id(kg: str, kg_format: str, entity: str, iri: str) -> None:
    assert entity_iri(kg, kg_format, entity) == iri
    assert iri.isascii()
    assert entity in stored_ids(iri)


def test_only_escapes_of_non_ascii_characters_are_decoded() -> None:
    assert iri_form("http://x.org/r/%C3%BCber%22a%22") == 'http://x.org/r/über%22a%22'
    assert iri_form("http://x.org/r/%FF") == "http://x.org/r/%FF"  # no UTF-8: left as it is


def test_an_id_is_resolved_to_a_loaded_entity_only_when_it_is_not_one_itself() -> None:
    sources = {"München", "https://w3id.org/kgagents/kg/de/Berlin"}
    targets = {"Munich"}
    pairs = [PairLine("https://w3id.org/kgagents/kg/de/M%C3%BCnchen", "https://w3id.org/kgagents/kg/en/Munich", 3),
             PairLine("https://w3id.org/kgagents/kg/de/Berlin", "Nowhere", 4)]
    assert resolve_ids(pairs, sources, targets) == [PairLine("München", "Munich", 3),
                                                    PairLine("https://w3id.org/kgagents/kg/de/Berlin", "Nowhere", 4)]


def test_a_colon_in_an_iris_local_part_is_escaped_so_the_row_is_valid_sssom_and_reads_back(tmp_path: Path) -> None:
    from sssom import parsers as sssom_parsers  # a dev dependency: the reference implementation

    iri = entity_iri("dbp15k:en", "jape", "http://dbpedia.org/resource/The_Dark_Tower_V:_Wolves_50%")
    path = tmp_path / "colon.sssom.tsv"
    write_sssom(path, [Mapping(iri, "http://www.w3.org/2002/07/owl#sameAs", iri,
                               "https://w3id.org/semapv/vocab/ManualMappingCuration")],
                {"mapping_set_id": "https://example.org/m", "license": "https://example.org/l"},
                {"dbp15k_en": "http://dbpedia.org/resource/"})
    assert "dbp15k_en:The_Dark_Tower_V%3A_Wolves_50%25\t" in path.read_text(encoding="utf-8")
    assert len(sssom_parsers.parse_sssom_table(str(path)).df) == 1  # the parser drops a row whose CURIE is bad
    read = read_sssom(path).mappings[0].subject_id
    assert "http://dbpedia.org/resource/The_Dark_Tower_V:_Wolves_50%" in stored_ids(read)
