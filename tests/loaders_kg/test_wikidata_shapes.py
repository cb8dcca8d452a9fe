"""Wikidata subgraphs in the shapes users have them (hand-written fixtures): a SPARQL CONSTRUCT result as Turtle
or N-Triples with labels, aliases, descriptions, truthy and full (p: / ps:) statements; and id triple tables with
separate label and type tables (CoDEx's shape), where relations without labels are said to have none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgagents.errors import ParseError
from kgagents.graph.connection import Graph
from kgagents.loaders.wikidata import load_wikidata_nt, parse_wikidata_nt
from kgagents.loaders.wikidata_tables import load_tables

TRIPLES_QUERY = "MATCH (h:Entity {kg: $kg})-[r]->(t) RETURN h.id AS h, type(r) AS p, r.name AS name, " \
                "CASE WHEN t:Literal THEN t.value ELSE t.id END AS t ORDER BY h, p, t"


def test_a_construct_result_reads_the_same_as_turtle_and_as_ntriples(graph: Graph, fixtures: Path) -> None:
    folder = fixtures / "kgqa"
    load_wikidata_nt(graph, folder / "wikidata_construct.ttl", kg="ttl")
    load_wikidata_nt(graph, folder / "wikidata_construct.nt", kg="nt")
    rows = graph.run_text(TRIPLES_QUERY, kg="ttl")
    assert rows == graph.run_text(TRIPLES_QUERY, kg="nt")
    facts = {(r["h"], r["name"], r["t"]) for r in rows}
    assert facts == {("Q42", "place of birth", "Q350"), ("Q42", "educated at", "Q691283"),
                     ("Q42", "educated at", "Q4961791"), ("Q350", "country", "Q145"),
                     ("Q42", "P569", "1952-03-11T00:00:00Z")}  # the qualifier (pq:P582) is not a fact of Q42
    adams = graph.run_text("MATCH (e:Entity {kg: 'ttl', id: 'Q42'}) RETURN e.name AS name, e.aliases AS aliases, "
                           "e.description AS description")[0]
    assert adams == {"name": "Douglas Adams", "aliases": ["Douglas Noel Adams"],
                     "description": "English writer and humorist"}


def test_a_statement_given_both_ways_is_one_relationship(tmp_path: Path) -> None:
    wd, wdt, p, ps = ("http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/",
                      "http://www.wikidata.org/prop/", "http://www.wikidata.org/prop/statement/")
    path = tmp_path / "both.nt"
    path.write_text(f"<{wd}Q1> <{wdt}P31> <{wd}Q5> .\n<{wd}Q1> <{p}P31> <{wd}statement/Q1-x> .\n"
                    f"<{wd}statement/Q1-x> <{ps}P31> <{wd}Q5> .\n", encoding="utf-8")
    assert parse_wikidata_nt(path, kg="both").counts()["triples"] == 1


def test_bad_turtle_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.ttl"
    path.write_text("@prefix wd: <http://www.wikidata.org/entity/> .\n\nwd:Q1 wd:P2 .\n", encoding="utf-8")
    with pytest.raises(ParseError, match="bad.ttl:3"):
        load_wikidata_nt(None, path, kg="bad")  # type: ignore[arg-type]  # refused before the graph is used


def test_id_tables_with_label_tables(graph: Graph, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Q1\tP19\tQ2\nQ3\tP19\tQ2\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("Q2\tP17\tQ4\nQ1\tP9999\tQ3\n", encoding="utf-8")
    (tmp_path / "relations.json").write_text(json.dumps({"P19": {"label": "place of birth", "description": "d"},
                                                         "P17": "country"}), encoding="utf-8")
    (tmp_path / "types.json").write_text(json.dumps({"Q2": ["Q515"], "Q4": ["Q6256", "Q999"]}), encoding="utf-8")
    (tmp_path / "type_labels.tsv").write_text("Q515\tcity\nQ6256\tcountry\n", encoding="utf-8")
    result = load_tables(graph, [tmp_path / "a.txt", tmp_path / "b.txt"], kg="tables",
                         relation_labels=tmp_path / "relations.json", entity_types=tmp_path / "types.json",
                         type_labels=tmp_path / "type_labels.tsv")
    assert (result.entities, result.relations, result.triples) == (4, 3, 4)
    assert result.unlabelled_relations == ["P9999"] and result.typed_entities == 2
    names = {r["p"]: r["name"] for r in graph.run_text(TRIPLES_QUERY, kg="tables")}
    assert names == {"P19": "place of birth", "P17": "country", "P9999": "P9999"}
    q4 = graph.run_text("MATCH (e:Entity {kg: 'tables', id: 'Q4'}) RETURN e.name AS name, e.types AS types")[0]
    assert q4 == {"name": "Q4", "types": ["country", "Q999"]}  # no label: the id; a type without one: its id


def test_a_bad_label_table_names_its_line_and_nothing_is_written(graph: Graph, tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text("Q1\tP19\tQ2\n", encoding="utf-8")
    (tmp_path / "labels.tsv").write_text("P19\tplace of birth\nP17\n", encoding="utf-8")
    with pytest.raises(ParseError, match="labels.tsv:2"):
        load_tables(graph, [tmp_path / "t.txt"], kg="broken", relation_labels=tmp_path / "labels.tsv")
    assert graph.run_text("MATCH (e:Entity {kg: 'broken'}) RETURN count(e) AS n")[0]["n"] == 0
