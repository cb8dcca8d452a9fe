"""The JAPE layouts people download, and the input defects that must be one clear error with nothing written.

Each layout is made from the hand-written pair in tests/fixtures/kg/jape_tiny_de_en (expectations read off those
files); the seeded split is also checked on the real SRPRS gold links (parsing only, no write).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgagents.cli import app
from kgagents.config import Neo4jSettings
from kgagents.errors import ParseError
from kgagents.graph.connection import Graph
from kgagents.loaders.jape import _JapeDirectory, gold_links, load_jape_pair
from kgagents.loaders.kg_common import get_entity, get_relations, kg_stats, safe_type

DE = "http://de.dbpedia.org/resource/"
EN = "http://dbpedia.org/resource/"
GOLD = {(DE + "Berlin", EN + "Berlin"), (DE + "Deutschland", EN + "Germany"),
        (DE + "Angela_Merkel", EN + "Angela_Merkel"), (DE + "Caf%C3%A9_Einstein", EN + "Cafe_Einstein")}


@pytest.fixture
def tiny(fixtures: Path, tmp_path: Path) -> Path:
    """A writable copy of the tiny pair in a directory whose name says no languages."""
    copy = tmp_path / "pair"
    shutil.copytree(fixtures / "kg" / "jape_tiny_de_en", copy)
    return copy


def _nothing_written(graph: Graph) -> bool:
    return graph.run_text("MATCH (n) WHERE n:Entity OR n:KG RETURN count(n) AS n")[0]["n"] == 0


def test_translated_names_in_ent_ids_with_native_names_in_ent_ids_lang(graph: Graph, tiny: Path) -> None:
    native = (tiny / "ent_ids_1").read_text(encoding="utf-8")
    (tiny / "ent_ids_1_de").write_text(native, encoding="utf-8")
    (tiny / "ent_ids_2_en").write_text((tiny / "ent_ids_2").read_text(encoding="utf-8"), encoding="utf-8")
    (tiny / "ent_ids_1").write_text("0\thttp://en.dbpedia.org/resource/Berlin\n1\thttp://en.dbpedia.org/resource/"
                                    "Germany\n2\thttp://en.dbpedia.org/resource/Angela_Merkel\n", encoding="utf-8")
    (tiny / "ent_ids_1_translated").unlink()
    result = load_jape_pair(graph, tiny)
    # languages come from the ent_ids_<n>_<lang> files; entity ids are the native URIs
    assert [r.kg for r in result.kgs] == ["pair:de", "pair:en"]
    assert kg_stats(graph, "pair:de")["entities"] == 4
    germany = get_entity(graph, "pair:de", DE + "Deutschland")
    assert germany is not None and germany["name"] == "Deutschland" and germany["name_en"] == "Germany"
    cafe = get_entity(graph, "pair:de", DE + "Caf%C3%A9_Einstein")
    assert cafe is not None and "name_en" not in cafe  # no translation given for id 3
    assert {(s, t) for s, t, _ in gold_links(graph, "pair")} == GOLD


def test_languages_given_by_option(graph: Graph, tiny: Path) -> None:
    result = load_jape_pair(graph, tiny, langs=("deu", "eng"))
    assert [r.kg for r in result.kgs] == ["pair:deu", "pair:eng"]
    assert get_entity(graph, "pair:deu", DE + "Berlin") is not None


def test_same_language_twice_is_refused(graph: Graph, tiny: Path) -> None:
    with pytest.raises(ParseError, match="two different codes"):
        load_jape_pair(graph, tiny, langs=("en", "en"))
    assert _nothing_written(graph)


def test_ill_ent_ids_with_a_seeded_split(graph: Graph, tiny: Path) -> None:
    (tiny / "ref_ent_ids").rename(tiny / "ill_ent_ids")
    (tiny / "sup_ent_ids").unlink()
    unsplit = load_jape_pair(graph, tiny, name="unsplit")
    assert unsplit.gold_links == {"train": 0, "test": 4}  # no split file, no ratio: every link is test
    first = load_jape_pair(graph, tiny, name="a", train_ratio=0.5, split_seed=3)
    again = load_jape_pair(graph, tiny, name="b", train_ratio=0.5, split_seed=3)
    assert first.gold_links == again.gold_links == {"train": 2, "test": 2}
    assert gold_links(graph, "a") == gold_links(graph, "b")
    assert {(s, t) for s, t, _ in gold_links(graph, "a")} == GOLD


def test_seeded_split_of_the_real_srprs_links(shared_data: Path, tmp_path: Path) -> None:
    """Parsing only: the split is a function of the seed, has the asked size and covers every link once."""
    src = shared_data / "ea" / "srprs_en_fr"
    layout = tmp_path / "srprs_en_fr"
    layout.mkdir()
    for name in ("ent_ids_1", "ent_ids_2", "rel_ids_1", "rel_ids_2", "triples_1", "triples_2"):
        (layout / name).symlink_to(src / name)
    (layout / "ill_ent_ids").symlink_to(src / "ref_ent_ids")

    def split(seed: int) -> dict[str, set[tuple[int, int]]]:
        pair = _JapeDirectory(layout, None)
        pair.parse_side(1)
        pair.parse_side(2)
        gold = pair.parse_gold(0.3, seed)
        return {s: {(a, b) for a, b, sp in gold if sp == s} for s in ("train", "test")}

    one, same, other = split(1), split(1), split(2)
    all_links = {tuple(map(int, line.split("\t"))) for line in (src / "ref_ent_ids").read_text().splitlines()}
    assert len(one["train"]) == 4500 and one["train"] | one["test"] == all_links
    assert not one["train"] & one["test"]
    assert one == same and one["train"] != other["train"]


def test_non_utf8_file_is_one_error_naming_file_and_line(graph: Graph, tiny: Path) -> None:
    lines = (tiny / "ent_ids_2").read_bytes().splitlines(keepends=True)
    lines[2] = "12\thttp://dbpedia.org/resource/Angela_Merkel_Gr\u00fc\u00df\n".encode("latin-1")
    (tiny / "ent_ids_2").write_bytes(b"".join(lines))
    with pytest.raises(ParseError) as err:
        load_jape_pair(graph, tiny)
    assert err.value.line == 3 and err.value.path.endswith("ent_ids_2")
    assert "not UTF-8" in str(err.value) and "iconv" in str(err.value)
    assert _nothing_written(graph)


def test_relation_and_attribute_with_no_usable_short_name_load_under_a_derived_type(graph: Graph,
                                                                                    tiny: Path) -> None:
    """As machine-translated DBP15K ships them: a property URI whose local name is blank after translation."""
    odd = "http://de.dbpedia.org/property/  "
    lines = (tiny / "rel_ids_1").read_text(encoding="utf-8").splitlines()
    rid = lines[1].split("\t")[0]
    lines[1] = f"{rid}\t{odd}"
    (tiny / "rel_ids_1").write_text("\n".join(lines) + "\n", encoding="utf-8")
    attrs = (tiny / "training_attrs_1").read_text(encoding="utf-8").splitlines()
    entity = attrs[0].split("\t")[0]
    attrs[0] += "\thttp://de.dbpedia.org/property/\u0007"  # a control character: no type either
    (tiny / "training_attrs_1").write_text("\n".join(attrs) + "\n", encoding="utf-8")
    result = load_jape_pair(graph, tiny)
    side = result.kgs[0]
    assert side.derived_types == 2
    assert safe_type("http://de.dbpedia.org/property/\u0007", "\u0007")[0] in get_entity(graph, side.kg,
                                                                                          entity)["attributes"]
    relation = get_relations(graph, side.kg)[odd]
    derived, was_derived = safe_type(odd, "  ")
    assert was_derived and relation["type"] == derived and relation["derived_type"] is True
    assert derived.startswith("rel_") and derived == safe_type(odd, "")[0] != safe_type(odd + "x", "")[0]
    used = {t for t in (tiny / "triples_1").read_text(encoding="utf-8").splitlines() if t.split("\t")[1] == rid}
    stored = graph.run_text("MATCH (:Entity {kg: $kg})-[r]->() WHERE type(r) = $type RETURN count(r) AS n, "
                            "collect(DISTINCT r.rel) AS rels", kg=side.kg, type=derived)[0]
    assert stored["n"] == len(used) > 0 and stored["rels"] == [odd]


@pytest.mark.parametrize("gold_file", ["ref_ent_ids", "sup_ent_ids"])
def test_an_empty_gold_file_is_an_error_not_zero_links(graph: Graph, tiny: Path, gold_file: str) -> None:
    (tiny / gold_file).write_text("\n", encoding="utf-8")
    with pytest.raises(ParseError, match=rf"{gold_file}: has no gold links"):
        load_jape_pair(graph, tiny)
    assert _nothing_written(graph)


def test_cli_prints_one_line_and_exits_1_on_a_non_utf8_file(graph: Graph, neo4j_settings: Neo4jSettings,
                                                              tiny: Path) -> None:
    (tiny / "triples_1").write_bytes(b"0\t1\t1\n\xff\xfe\t1\t1\n")
    env = {"KGAGENTS_NEO4J_URI": neo4j_settings.uri,
           "KGAGENTS_NEO4J_PASSWORD": neo4j_settings.password.get_secret_value()}
    result = CliRunner().invoke(app, ["load", "kg", str(tiny), "--format", "jape"], env=env)
    assert result.exit_code == 1
    assert "Traceback" not in result.output and "triples_1:2" in result.output.replace("\n", "")
    assert _nothing_written(graph)
