"""A hand-written JAPE directory (tests/fixtures/kg/jape_tiny_de_en): every expectation below is read off the files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kgagents.errors import ParseError
from kgagents.graph.connection import Graph
from kgagents.loaders.jape import gold_links, load_jape_pair
from kgagents.loaders.kg_common import get_entity, kg_stats, triples_between

DE = "http://de.dbpedia.org/resource/"
EN = "http://dbpedia.org/resource/"


@pytest.fixture
def tiny(fixtures: Path) -> Path:
    return fixtures / "kg" / "jape_tiny_de_en"


def test_tiny_pair_loads_with_names_translations_attributes(graph: Graph, tiny: Path) -> None:
    result = load_jape_pair(graph, tiny)
    assert [r.kg for r in result.kgs] == ["jape_tiny_de_en:de", "jape_tiny_de_en:en"]
    de, en = (kg_stats(graph, kg) for kg in ("jape_tiny_de_en:de", "jape_tiny_de_en:en"))
    # triples_1 has 5 lines, one of them ("0 1 1") twice
    assert (de["entities"], de["relations"], de["triples"]) == (4, 3, 4)
    assert (en["entities"], en["relations"], en["triples"]) == (4, 3, 3)
    assert result.kgs[0].duplicate_triples == 1
    cafe = get_entity(graph, "jape_tiny_de_en:de", DE + "Caf%C3%A9_Einstein")
    assert cafe is not None and cafe["name"] == "Café Einstein" and cafe["name_en"] == "Cafe Einstein"
    assert cafe["eid"] == 3 and "attributes" not in cafe
    berlin = get_entity(graph, "jape_tiny_de_en:de", DE + "Berlin")
    assert berlin is not None and berlin["attributes"] == ["populationTotal", "areaTotal"]
    assert "name_en" not in berlin
    berlin_en = get_entity(graph, "jape_tiny_de_en:en", EN + "Berlin")
    assert berlin_en is not None and berlin_en["attributes"] == ["populationTotal", "leaderName"]
    assert triples_between(graph, "jape_tiny_de_en:de", DE + "Deutschland", DE + "Berlin") == [
        {"type": "hauptstadt", "rel": "http://de.dbpedia.org/property/hauptstadt", "name": "hauptstadt"}]
    assert triples_between(graph, "jape_tiny_de_en:en", EN + "Cafe_Einstein", EN + "Berlin") == [
        {"type": "country/region", "rel": "http://dbpedia.org/property/country/region", "name": "country/region"}]
    # sup_ent_ids = train, the rest of ref_ent_ids = test
    assert gold_links(graph, "jape_tiny_de_en") == sorted([
        (DE + "Berlin", EN + "Berlin", "train"), (DE + "Deutschland", EN + "Germany", "test"),
        (DE + "Angela_Merkel", EN + "Angela_Merkel", "test"),
        (DE + "Caf%C3%A9_Einstein", EN + "Cafe_Einstein", "test")])


def test_name_overrides_directory_name(graph: Graph, tiny: Path) -> None:
    load_jape_pair(graph, tiny, name="tiny")
    assert kg_stats(graph, "tiny:de")["kg_exists"] and kg_stats(graph, "tiny:en")["kg_exists"]


def test_malformed_triple_line_names_file_and_line_and_writes_nothing(graph: Graph, tiny: Path,
                                                                       tmp_path: Path) -> None:
    bad = tmp_path / "bad_de_en"
    shutil.copytree(tiny, bad)
    lines = (bad / "triples_2").read_text().splitlines()
    lines[1] = "10\tcountry\t11"  # line 2: relation must be an integer id
    (bad / "triples_2").write_text("\n".join(lines) + "\n")
    with pytest.raises(ParseError) as err:
        load_jape_pair(graph, bad)
    assert err.value.path.endswith("triples_2") and err.value.line == 2
    assert f"{bad / 'triples_2'}:2" in str(err.value)
    assert not kg_stats(graph, "bad_de_en:de")["kg_exists"]
    assert kg_stats(graph, "bad_de_en:de")["entities"] == 0


def test_triple_with_unknown_entity_id_is_rejected(graph: Graph, tiny: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad_de_en"
    shutil.copytree(tiny, bad)
    with open(bad / "triples_1", "a") as fh:
        fh.write("0\t1\t99\n")  # line 6
    with pytest.raises(ParseError, match=r"triples_1:6: entity id 99"):
        load_jape_pair(graph, bad)
    assert kg_stats(graph, "bad_de_en:en")["entities"] == 0
