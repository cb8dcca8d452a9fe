"""Re-loading, naming and refusing ontologies: a changed file replaces its earlier load, default names never
merge two ontologies, and files Neo4j or the loader cannot use are refused whole."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kgagents.errors import OntologyNameClashError, ParseError
from kgagents.graph.connection import Graph
from kgagents.loaders.ontology import load_ontology

P = "http://example.org/pets#"
SHARED = "http://example.org/shared#Thing"


def ontology_graph(graph: Graph) -> tuple[list[Any], list[Any]]:
    """Every node and relationship except the (:Load) log, with labels/type and properties."""
    nodes = graph.run_text("MATCH (n) WHERE NOT n:Load RETURN labels(n) AS l, properties(n) AS p")
    rels = graph.run_text("MATCH (a)-[r]->(b) RETURN coalesce(a.uri, a.name) AS a, type(r) AS t, "
                          "properties(r) AS p, coalesce(b.uri, b.name) AS b")
    return (sorted(repr((sorted(n["l"]), sorted(n["p"].items()))) for n in nodes),
            sorted(repr((r["a"], r["t"], sorted(r["p"].items()), r["b"])) for r in rels))


def counts(graph: Graph) -> tuple[int, int]:
    row = graph.run_text("MATCH (n) WITH count(n) AS n RETURN n, COUNT { ()-[]->() } AS r")[0]
    return row["n"], row["r"]


@pytest.fixture
def reload_dir(fixtures: Path, tmp_path: Path) -> Path:
    for name in ("v1.ttl", "v2.ttl", "other.ttl"):
        shutil.copy(fixtures / "ontology" / "reload" / name, tmp_path / name)
    return tmp_path


def test_reloading_an_edited_file_equals_a_fresh_load_of_it(graph: Graph, reload_dir: Path) -> None:
    pets = reload_dir / "pets.ttl"
    load_ontology(graph, reload_dir / "other.ttl")
    shutil.copy(reload_dir / "v1.ttl", pets)
    load_ontology(graph, pets)
    assert graph.run_text("MATCH (:Class {uri: $u})-[:SCO]->(:Class {uri: $a}) RETURN count(*) AS n",
                          u=P + "Cat", a=P + "Animal")[0]["n"] == 1
    shutil.copy(reload_dir / "v2.ttl", pets)  # the user edits the file and loads it again
    load_ontology(graph, pets)
    reloaded = ontology_graph(graph)

    graph.run("admin/wipe")
    load_ontology(graph, reload_dir / "other.ttl")
    load_ontology(graph, pets)
    assert reloaded == ontology_graph(graph)

    # and what that means, spelled out
    uris = {r["u"]: r for r in graph.run_text(
        "MATCH (r:Resource) RETURN r.uri AS u, r.label AS label, r.labels AS labels, r.ontologies AS o, "
        "[l IN labels(r) WHERE l <> 'Resource'] AS kinds")}
    assert P + "Wolf" not in uris and P + "Bird" in uris
    assert uris[P + "Dog"]["label"] == "Hound" and uris[P + "Dog"]["labels"] == ["Hound"]
    assert uris[P + "owns"]["kinds"] == ["Property"]
    assert uris[SHARED]["o"] == ["other", "pets"] and sorted(uris[SHARED]["labels"]) == ["Pet object", "Thing"]
    assert graph.run_text("MATCH (:Class {uri: $u})-[:SCO]->() RETURN count(*) AS n", u=P + "Cat")[0]["n"] == 0
    assert graph.run_text("MATCH (:Resource {uri: $u})-[:SCO]->(:Class {name: 'Stuff'}) RETURN count(*) AS n",
                          u=SHARED)[0]["n"] == 1  # other.ttl's edge on the shared class stays


def test_reloading_an_unchanged_file_changes_nothing(graph: Graph, reload_dir: Path) -> None:
    load_ontology(graph, reload_dir / "other.ttl")
    load_ontology(graph, reload_dir / "v1.ttl")
    before = ontology_graph(graph)
    load_ontology(graph, reload_dir / "v1.ttl")
    assert ontology_graph(graph) == before


def test_a_shared_resource_keeps_its_other_membership_when_one_ontology_drops_it(
        graph: Graph, reload_dir: Path, fixtures: Path) -> None:
    pets = reload_dir / "pets.ttl"
    shutil.copy(reload_dir / "v1.ttl", pets)
    load_ontology(graph, pets)
    load_ontology(graph, reload_dir / "other.ttl")
    pets.write_text((fixtures / "ontology/reload/v1.ttl").read_text().replace(
        '<http://example.org/shared#Thing> a owl:Class ; rdfs:label "Pet thing" .', ""))
    load_ontology(graph, pets)
    row = graph.run_text("MATCH (r:Resource {uri: $u}) RETURN r.ontologies AS o, r.labels AS l", u=SHARED)
    assert row == [{"o": ["other"], "l": ["Thing"]}]


def test_two_tasks_shipping_the_same_file_name_are_not_merged(graph: Graph, fixtures: Path) -> None:
    first, second = fixtures / "ontology/task1/source.ttl", fixtures / "ontology/task2/source.ttl"
    assert load_ontology(graph, first).name == "source"
    with pytest.raises(OntologyNameClashError, match="already loaded from .*task1.*--name"):
        load_ontology(graph, second)
    classes = graph.run_text("MATCH (c:Class) RETURN c.name AS n, c.ontologies AS o")
    assert classes == [{"n": "Paper", "o": ["source"]}]
    load_ontology(graph, second, name="task2-source")
    names = {r["n"]: r["o"] for r in graph.run_text("MATCH (c:Class) RETURN c.name AS n, c.ontologies AS o")}
    assert names == {"Paper": ["source"], "Review": ["task2-source"]}


def test_an_explicit_name_replaces_what_is_loaded_under_it(graph: Graph, fixtures: Path) -> None:
    load_ontology(graph, fixtures / "ontology/task1/source.ttl")
    load_ontology(graph, fixtures / "ontology/task2/source.ttl", name="source")
    assert graph.run_text("MATCH (c:Class) RETURN c.name AS n") == [{"n": "Review"}]


@pytest.mark.parametrize("content", ["", '<?xml version="1.0"?>\n'
                                         '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>\n'])
def test_an_empty_ontology_file_is_refused(graph: Graph, tmp_path: Path, content: str) -> None:
    empty = tmp_path / "empty.owl"
    empty.write_text(content)
    with pytest.raises(ParseError, match="empty.owl: holds no RDF triples"):
        load_ontology(graph, empty)
    assert counts(graph) == (0, 0)


def test_a_file_without_class_or_property_declarations_is_refused(graph: Graph, tmp_path: Path) -> None:
    data = tmp_path / "data.ttl"
    data.write_text('<http://x#a> <http://www.w3.org/2000/01/rdf-schema#label> "a" .\n')
    with pytest.raises(ParseError, match="declares no class or property"):
        load_ontology(graph, data)


def test_a_uri_neo4j_cannot_index_fails_inside_the_reload_and_leaves_the_old_load(
        graph: Graph, reload_dir: Path) -> None:
    """The failure happens in the write transaction, after the reload already took the old file's
    contribution back: the rollback must restore it exactly."""
    pets = reload_dir / "pets.ttl"
    shutil.copy(reload_dir / "v1.ttl", pets)
    load_ontology(graph, reload_dir / "other.ttl")
    load_ontology(graph, pets)
    before, before_counts = ontology_graph(graph), counts(graph)
    long_name = "Very" + "Long" * 2500  # 10 kB local name: over Neo4j's ~8 kB index entry limit
    text = (reload_dir / "v2.ttl").read_text()
    pets.write_text(text + f':{long_name} a owl:Class ; rdfs:label "long" .\n')
    with pytest.raises(ParseError) as info:
        load_ontology(graph, pets)
    assert info.value.line == text.count("\n") + 1  # names the line of the offending class
    assert "10,0" in str(info.value) and "nothing was written" in str(info.value)
    assert counts(graph) == before_counts and ontology_graph(graph) == before
