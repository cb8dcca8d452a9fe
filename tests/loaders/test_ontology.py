"""Ontology loader against the real Neo4j: OAEI conference and anatomy files, plus hand-written fixtures.

Expected counts for the real files are computed here with rdflib's own triple queries (the loader parses
with pyoxigraph and builds its model separately); fixture expectations are written out by hand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rdflib import OWL, RDF, RDFS, BNode, Namespace, URIRef
from rdflib import Graph as RdfGraph
from rdflib.collection import Collection

from kgagents.errors import InputFileError, ParseError
from kgagents.graph.connection import Graph
from kgagents.loaders.ontology import load_ontology, parse_ontology

OBO_IN_OWL = Namespace("http://www.geneontology.org/formats/oboInOwl#")
F = "http://example.org/features#"
XSD_DECIMAL = "http://www.w3.org/2001/XMLSchema#decimal"


# -- independent expectations (rdflib) ----------------------------------------------------------
def rdflib_expectations(path: Path) -> dict[str, Any]:
    """Declared named classes / properties and the named-axiom counts, straight from rdflib triple queries."""
    g = RdfGraph().parse(path, format="xml")

    def named(*types: URIRef) -> set[URIRef]:
        return {s for t in types for s in g.subjects(RDF.type, t) if isinstance(s, URIRef)}

    classes = named(OWL.Class, RDFS.Class)
    props = named(OWL.ObjectProperty) | named(OWL.DatatypeProperty)

    def targets(o: Any) -> list[Any]:
        if isinstance(o, BNode) and (o, OWL.unionOf, None) in g:
            return list(Collection(g, g.value(o, OWL.unionOf)))
        return [o]

    def axiom_count(pred: URIRef, sources: set[URIRef]) -> int:
        return sum(1 for s, o in g.subject_objects(pred) for t in targets(o) if s in sources and t in classes)

    return {
        "classes": len(classes),
        "object_properties": len(named(OWL.ObjectProperty)),
        "datatype_properties": len(named(OWL.DatatypeProperty)),
        "sco": sum(1 for s, o in g.subject_objects(RDFS.subClassOf) if s in classes and o in classes),
        "domain": axiom_count(RDFS.domain, props),
        "range": axiom_count(RDFS.range, props),
        "some": sum(1 for s, r in g.subject_objects(RDFS.subClassOf)
                    if s in classes and isinstance(r, BNode) and g.value(r, OWL.someValuesFrom) in classes),
        "graph": g,
        "class_uris": classes,
    }


# -- graph read helpers (test-only Cypher, parameterised) -----------------------------------------
def one(graph: Graph, query: str, **params: Any) -> Any:
    rows = graph.run_text(query, **params)
    return next(iter(rows[0].values()))


def kind_count(graph: Graph, label: str, ontology: str) -> int:
    return one(graph, "MATCH (r:Resource)-[:DEFINED_IN]->(:Ontology {name: $o}) WHERE $label IN labels(r) "
                      "RETURN count(r)", o=ontology, label=label)


def edge_count(graph: Graph, rel_type: str, ontology: str) -> int:
    return one(graph, "MATCH (a:Resource)-[e]->(:Resource) WHERE type(e) = $t AND $o IN a.ontologies "
                      "RETURN count(e)", t=rel_type, o=ontology)


def snapshot(graph: Graph) -> tuple[list[Any], list[Any]]:
    """Every node and relationship with its labels/type and properties (a Load's time and duration excluded)."""
    nodes = graph.run_text("MATCH (n) RETURN labels(n) AS l, properties(n) AS p")
    nodes = [(sorted(n["l"]), sorted((k, v) for k, v in n["p"].items() if k not in ("loaded_at", "seconds")))
             for n in nodes]
    rels = graph.run_text("MATCH (a)-[r]->(b) RETURN coalesce(a.uri, a.name) AS a, type(r) AS t, "
                          "properties(r) AS p, coalesce(b.uri, b.name) AS b")
    rels = [(r["a"], r["t"], sorted(r["p"].items()), r["b"]) for r in rels]
    return sorted(map(repr, nodes)), sorted(map(repr, rels))


# -- real data ----------------------------------------------------------------------------------------
def test_conference_cmt_and_confof(graph: Graph, shared_data: Path) -> None:
    files = {"cmt": shared_data / "om/conference/ontologies/cmt.owl",
             "confof": shared_data / "om/conference/ontologies/confof.owl"}
    for path in files.values():
        load_ontology(graph, path)
    first = snapshot(graph)
    for name, path in files.items():
        exp = rdflib_expectations(path)
        assert exp["classes"] > 0 and exp["object_properties"] > 0 and exp["datatype_properties"] > 0
        assert kind_count(graph, "Class", name) == exp["classes"]
        assert kind_count(graph, "Relationship", name) == exp["object_properties"]
        assert kind_count(graph, "Property", name) == exp["datatype_properties"]
        assert edge_count(graph, "SCO", name) == exp["sco"]
        assert edge_count(graph, "DOMAIN", name) == exp["domain"]
        assert edge_count(graph, "RANGE", name) == exp["range"]
        record = graph.run_text("MATCH (l:Load {kind: 'ontology', target: $o}) RETURN l", o=name)
        assert len(record) == 1 and record[0]["l"]["count_classes"] == exp["classes"]

    for path in files.values():  # reload: nothing changes, lists do not grow
        load_ontology(graph, path)
    assert snapshot(graph) == first


def test_anatomy_human_and_mouse(graph: Graph, shared_data: Path) -> None:
    results = {name: load_ontology(graph, shared_data / f"om/anatomy/{name}.owl") for name in ("human", "mouse")}
    total = sum(r.triples for r in results.values())
    seconds = sum(r.seconds for r in results.values())
    for r in results.values():
        print(f"\n{r.name}: {r.triples} triples, parse {r.parse_seconds:.2f}s, write {r.write_seconds:.2f}s")
    print(f"anatomy: {total} triples in {seconds:.2f}s = {total / seconds:,.0f} triples/s")

    for name, result in results.items():
        exp = rdflib_expectations(shared_data / f"om/anatomy/{name}.owl")
        assert result.triples == len(exp["graph"])
        assert kind_count(graph, "Class", name) == exp["classes"] == result.classes
        assert kind_count(graph, "Relationship", name) == exp["object_properties"]
        assert edge_count(graph, "SCO", name) == exp["sco"]
        assert edge_count(graph, "RESTRICTION", name) == exp["some"] > 1000  # part_of restrictions
        # oboInOwl synonyms are nodes whose rdfs:label is the synonym text
        g = exp["graph"]
        synonyms = {(str(c), str(lab)) for c in exp["class_uris"]
                    for s in g.objects(c, OBO_IN_OWL.hasRelatedSynonym) for lab in g.objects(s, RDFS.label)}
        stored = graph.run_text("MATCH (c:Class) WHERE $o IN c.ontologies UNWIND c.synonyms AS s "
                                "RETURN c.uri AS c, s", o=name)
        assert {(row["c"], row["s"]) for row in stored} == synonyms
    lip = graph.run_text("MATCH (c:Class {uri: 'http://human.owl#NCI_C12220'})-[r:RESTRICTION]->(d:Class) "
                         "RETURN r.property AS p, r.kind AS k, d.uri AS d")
    assert lip == [{"p": "http://human.owl#UNDEFINED_part_of", "k": "some", "d": "http://human.owl#NCI_C12419"}]


# -- fixtures -----------------------------------------------------------------------------------------
def test_features_graph_model(graph: Graph, fixtures: Path) -> None:
    result = load_ontology(graph, fixtures / "ontology/features.ttl")
    assert (result.name, result.uri) == ("features", "http://example.org/features")
    assert (result.classes, result.object_properties, result.datatype_properties) == (7, 3, 3)

    def node(local: str) -> dict[str, Any]:
        return graph.run_text("MATCH (r:Resource {uri: $u}) RETURN r", u=F + local)[0]["r"]

    animal = node("Animal")
    assert animal["name"] == "Animal" and animal["label"] == "Animal"
    assert set(animal["labels"]) == {"animal", "Animal", "animal (plain)", "Beast"}
    assert set(animal["synonyms"]) == {"creature", "fauna"}
    assert animal["definitions"] == ["An organism that moves."]
    assert animal["comment"] == "A living thing."
    assert animal["ontologies"] == ["features"] and animal["deprecated"] is False
    assert node("Cat")["deprecated"] is True
    assert node("Cat")["label"] == "chat"
    assert node("Tail")["synonyms"] == ["caudal appendage"]
    assert node("Tail")["definitions"] == ["The rear appendage."]
    assert node("weight")["datatype_range"] == [XSD_DECIMAL]
    assert node("furColour")["datatype_range"] == [F + "Colour"]
    assert "datatype_range" not in node("hasPart")

    labels = {row["u"]: set(row["l"]) for row in graph.run_text("MATCH (r:Resource) RETURN r.uri AS u, labels(r) AS l")}
    assert labels[F + "Person"] == {"Resource", "Class"}
    assert labels[F + "eats"] == {"Resource", "Relationship"}
    assert labels[F + "nickname"] == {"Resource", "Property"}
    assert F + "rex" not in labels  # individuals are not part of the ontology graph

    edges = {(row["a"][len(F):], row["t"], row["b"][len(F):]) for row in graph.run_text(
        "MATCH (a:Resource)-[e]->(b:Resource) WHERE type(e) <> 'RESTRICTION' "
        "RETURN a.uri AS a, type(e) AS t, b.uri AS b")}
    assert edges == {
        ("Dog", "SCO", "Animal"), ("Cat", "SCO", "Animal"),
        ("Dog", "DISJOINT_WITH", "Cat"), ("Cat", "EQUIVALENT_CLASS", "Feline"),
        ("eats", "SPO", "interactsWith"),
        ("hasPart", "DOMAIN", "Dog"), ("hasPart", "DOMAIN", "Cat"), ("hasPart", "RANGE", "Tail"),
        ("eats", "DOMAIN", "Animal"), ("eats", "RANGE", "Food"), ("weight", "DOMAIN", "Animal"),
    }
    restrictions = {(row["a"][len(F):], row["p"][len(F):], row["k"], row["n"], row["b"][len(F):])
                    for row in graph.run_text(
                        "MATCH (a)-[e:RESTRICTION]->(b) RETURN a.uri AS a, e.property AS p, e.kind AS k, "
                        "e.cardinality AS n, b.uri AS b")}
    assert restrictions == {("Dog", "hasPart", "some", None, "Tail"), ("Dog", "hasPart", "min", 1, "Tail"),
                            ("Cat", "eats", "all", None, "Food")}
    assert one(graph, "MATCH (r:Resource)-[:DEFINED_IN]->(:Ontology {name: 'features'}) RETURN count(r)") == 13
    assert result.relationships == len(edges) + len(restrictions)


def test_clashing_local_names_and_shared_uri(graph: Graph, fixtures: Path) -> None:
    a, b = fixtures / "ontology/clash_a.ttl", fixtures / "ontology/clash_b.ttl"
    load_ontology(graph, a)
    load_ontology(graph, b)
    papers = graph.run_text("MATCH (r:Class {name: 'Paper'}) RETURN r.uri AS u, r.ontologies AS o ORDER BY u")
    assert papers == [{"u": "http://example.org/a#Paper", "o": ["clash_a"]},
                      {"u": "http://example.org/b#Paper", "o": ["clash_b"]}]
    event = graph.run_text("MATCH (r:Resource {uri: 'http://example.org/shared#Event'}) "
                           "OPTIONAL MATCH (r)-[:DEFINED_IN]->(o:Ontology) RETURN r, collect(o.name) AS defined_in")
    assert len(event) == 1
    assert sorted(event[0]["r"]["ontologies"]) == ["clash_a", "clash_b"]
    assert sorted(event[0]["defined_in"]) == ["clash_a", "clash_b"]
    assert sorted(event[0]["r"]["labels"]) == ["Event", "Occurrence"]
    assert one(graph, "MATCH (r:Resource) RETURN count(r)") == 4 + 3 - 1

    before = snapshot(graph)
    load_ontology(graph, a)  # reloading the first after the second must not grow the merged lists
    assert snapshot(graph) == before


def test_explicit_name_and_ntriples(graph: Graph, fixtures: Path) -> None:
    result = load_ontology(graph, fixtures / "ontology/tiny.nt", name="tiny-onto")
    assert (result.name, result.uri, result.classes, result.relationships) == ("tiny-onto", None, 2, 1)
    assert graph.run_text("MATCH (o:Ontology) RETURN o.name AS n, o.uri AS u") == [{"n": "tiny-onto", "u": None}]
    assert one(graph, "MATCH (:Class {name: 'B'})-[:SCO]->(:Class {name: 'A'}) RETURN count(*)") == 1


@pytest.mark.parametrize(("fixture", "line"), [("malformed.owl", 9), ("malformed.ttl", 7)])
def test_malformed_file_raises_parse_error_and_writes_nothing(
    graph: Graph, fixtures: Path, fixture: str, line: int
) -> None:
    path = fixtures / "ontology" / fixture
    with pytest.raises(ParseError) as info:
        load_ontology(graph, path)
    assert info.value.line == line
    assert info.value.path == str(path)
    assert f"{fixture}:{line}" in str(info.value)
    assert one(graph, "MATCH (n) RETURN count(n)") == 0


def test_missing_file_and_unknown_format(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="no such file"):
        parse_ontology(tmp_path / "nope.owl")
    odd = tmp_path / "onto.data"
    odd.write_text("<http://x#A> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
                   "<http://www.w3.org/2002/07/owl#Class> .\n")
    with pytest.raises(InputFileError, match="format"):
        parse_ontology(odd)
    assert [c.uri for c in parse_ontology(odd, format="nt").classes] == ["http://x#A"]


def test_tolerant_fallback_reads_what_the_strict_parser_rejects(fixtures: Path) -> None:
    parsed = parse_ontology(fixtures / "ontology/lenient.owl")
    assert sorted(c.name for c in parsed.classes) == ["A", "B"]


def test_a_load_that_adds_names_to_another_ontologys_resources_says_so(graph: Graph, tmp_path: Path) -> None:
    base = ('@prefix owl: <http://www.w3.org/2002/07/owl#> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n'
            '@prefix skos: <http://www.w3.org/2004/02/skos/core#> .\n'
            '<http://example.org/v#A> a owl:Class ; rdfs:label "A"{extra} .\n<http://example.org/v#B> a owl:Class .\n')
    (tmp_path / "v1.ttl").write_text(base.format(extra=""))
    (tmp_path / "v2.ttl").write_text(base.format(extra=' ; skos:altLabel "Alpha"'))
    first = load_ontology(graph, tmp_path / "v1.ttl")
    assert first.shared_names == {} and first.shared_note() is None
    second = load_ontology(graph, tmp_path / "v2.ttl")
    assert second.shared_names == {"v1": 1}  # A gained a synonym v1 does not give it; B's names are unchanged
    assert "'v1' (1)" in (second.shared_note() or "")
    assert load_ontology(graph, tmp_path / "v1.ttl").shared_names == {}  # v1 adds nothing v2 lacks
