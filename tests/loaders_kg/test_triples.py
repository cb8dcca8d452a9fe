"""head|relation|tail loader: MetaQA's full KB and PathQuestion's KBs against counts made with plain Python."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgagents.errors import ParseError
from kgagents.graph.connection import Graph
from kgagents.loaders.kg_common import delete_kg, get_relations, kg_stats, safe_type, triples_between
from kgagents.loaders.triples import detect_separator, load_triples


def _distinct(path: Path, sep: str) -> tuple[set[tuple[str, ...]], set[str], set[str]]:
    triples = {tuple(line.split(sep)) for line in path.read_text(encoding="utf-8").splitlines() if line}
    return triples, {x for h, _, t in triples for x in (h, t)}, {r for _, r, _ in triples}


def test_metaqa_full_kb(graph: Graph, shared_data: Path) -> None:
    path = shared_data / "kgqa" / "metaqa" / "kb_partial.txt"
    triples, entities, relations = _distinct(path, "|")
    steps: list[int] = []
    result = load_triples(graph, path, kg="metaqa", progress=steps.append)
    stats = kg_stats(graph, "metaqa")
    assert (stats["entities"], stats["relations"], stats["triples"]) == (len(entities), len(relations), len(triples))
    assert (result.entities, result.triples) == (len(entities), len(triples))
    assert len(relations) == 9 and sum(steps) == len(entities) + len(relations) + len(triples)
    assert triples_between(graph, "metaqa", "Kismet", "William Dieterle") == [
        {"type": "directed_by", "rel": "directed_by", "name": "directed_by"}]
    assert set(get_relations(graph, "metaqa")) == relations


@pytest.mark.parametrize("name", ["2H-kb.txt", "3H-kb.txt"])
def test_pathquestion_kbs_are_tab_separated(graph: Graph, shared_data: Path, name: str) -> None:
    path = shared_data / "kgqa" / "pathquestion" / name
    triples, entities, relations = _distinct(path, "\t")
    assert detect_separator(path) == "\t"
    load_triples(graph, path, kg="pq")  # separator detected
    stats = kg_stats(graph, "pq")
    assert (stats["entities"], stats["relations"], stats["triples"]) == (len(entities), len(relations), len(triples))


def test_duplicates_collapse_and_reload_is_idempotent(graph: Graph, fixtures: Path) -> None:
    path = fixtures / "kg" / "triples_small.txt"
    first = load_triples(graph, path, kg="small")
    assert (first.entities, first.relations, first.triples, first.duplicate_triples) == (5, 3, 4, 1)
    before = kg_stats(graph, "small")
    load_triples(graph, path, kg="small")
    assert kg_stats(graph, "small") == before == {
        "kg_exists": True, "entities": 5, "relations": 3, "triples": 4, "literals": 0, "gold_links": 0}


def test_bad_line_is_a_parse_error_with_line_number(graph: Graph, fixtures: Path) -> None:
    path = fixtures / "kg" / "triples_bad.txt"
    with pytest.raises(ParseError) as err:
        load_triples(graph, path, kg="bad")
    assert err.value.line == 3 and f"{path}:3" in str(err.value)
    assert kg_stats(graph, "bad")["entities"] == 0 and not kg_stats(graph, "bad")["kg_exists"]


def test_delete_kg_removes_only_that_kg(graph: Graph, fixtures: Path) -> None:
    path = fixtures / "kg" / "triples_small.txt"
    load_triples(graph, path, kg="keep")
    load_triples(graph, path, kg="drop")
    delete_kg(graph, "drop")
    assert kg_stats(graph, "drop") == {"kg_exists": False, "entities": 0, "relations": 0, "triples": 0,
                                       "literals": 0, "gold_links": 0}
    assert kg_stats(graph, "keep")["triples"] == 4


def test_tab_separator_is_detected_and_a_pipe_inside_a_field_is_kept(graph: Graph, fixtures: Path) -> None:
    path = fixtures / "kg" / "triples_tabs.txt"
    assert detect_separator(path) == "\t"
    result = load_triples(graph, path, kg="tabs")
    assert (result.entities, result.relations, result.triples) == (5, 2, 3)
    assert triples_between(graph, "tabs", "lothair", "charles | the simple")[0]["type"] == "children"


def test_wrong_separator_names_the_line_and_the_separator(graph: Graph, fixtures: Path) -> None:
    with pytest.raises(ParseError) as err:
        load_triples(graph, fixtures / "kg" / "triples_tabs.txt", kg="tabs", sep="|")
    assert err.value.line == 1 and "'|'" in str(err.value)
    assert not kg_stats(graph, "tabs")["kg_exists"]


def test_non_utf8_file_names_file_and_line_and_writes_nothing(graph: Graph, fixtures: Path) -> None:
    path = fixtures / "kg" / "triples_latin1.txt"
    with pytest.raises(ParseError) as err:
        load_triples(graph, path, kg="latin1")
    assert err.value.line == 2 and f"{path}:2" in str(err.value) and "UTF-8" in str(err.value)
    assert "0xe9" in str(err.value)
    assert kg_stats(graph, "latin1") == {"kg_exists": False, "entities": 0, "relations": 0, "triples": 0,
                                         "literals": 0, "gold_links": 0}


def test_a_relation_that_can_be_no_type_loads_under_the_same_derived_type_as_in_every_loader(
        graph: Graph, tmp_path: Path) -> None:
    odd, long = "has\x07bell", "r" * 300
    path = tmp_path / "odd.tsv"
    path.write_text(f"a\t{odd}\tb\nb\t{long}\tc\nc\tknows\ta\n", encoding="utf-8")
    result = load_triples(graph, path, kg="odd")
    assert result.derived_types == 2 and result.triples == 3
    relations = get_relations(graph, "odd")
    assert relations["knows"]["type"] == "knows" and "derived_type" not in relations["knows"]
    for rel in (odd, long):
        assert relations[rel]["type"] == safe_type(rel, rel)[0] != rel and relations[rel]["derived_type"] is True
        assert triples_between(graph, "odd", *(("a", "b") if rel == odd else ("b", "c"))) == [
            {"type": safe_type(rel, rel)[0], "rel": rel, "name": rel}]


def test_a_loader_called_directly_creates_the_schema_it_relies_on(graph: Graph, tmp_path: Path) -> None:
    """A library user calling the loader (not the load job or the CLI) on a fresh database gets the (kg, id)
    constraint too: without it every observation of the KG scans all entities."""
    graph.run_text("DROP CONSTRAINT entity_kg_id IF EXISTS")
    path = tmp_path / "tiny.txt"
    path.write_text("Alice|knows|Bob\nBob|knows|Carol\n", encoding="utf-8")
    load_triples(graph, path, kg="tiny")
    names = {r["name"] for r in graph.run_text("SHOW CONSTRAINTS YIELD name RETURN name")}
    assert "entity_kg_id" in names
