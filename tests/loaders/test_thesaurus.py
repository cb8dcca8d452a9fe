"""A SKOS thesaurus is read as an ontology of its concepts (kgagents.loaders.ontology_model); concepts inside an
OWL ontology are not. Expectations come from rdflib's reading of the same files."""

from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import SKOS, Graph, URIRef

from kgagents.errors import ParseError
from kgagents.loaders.ontology_model import EdgeType, parse_ontology


@pytest.fixture
def thesauri(fixtures: Path) -> Path:
    return fixtures / "matching" / "thesauri"


def test_concepts_are_classes_and_broader_is_the_hierarchy(thesauri: Path) -> None:
    path = thesauri / "colours_a.ttl"
    g = Graph().parse(path)
    concepts = {str(c) for c in g.subjects(predicate=None, object=SKOS.Concept)}
    below = {(str(s), str(o)) for s, o in g.subject_objects(SKOS.broader)} | {
        (str(o), str(s)) for s, o in g.subject_objects(SKOS.narrower)}
    parsed = parse_ontology(path)
    assert {c.uri for c in parsed.classes} == concepts
    assert {(e.source, e.target) for e in parsed.edges if e.type is EdgeType.SCO} == below
    assert parsed.uri == str(next(g.subjects(predicate=None, object=SKOS.ConceptScheme)))
    assert parsed.label == "Colours thesaurus"
    by_uri = {c.uri: c for c in parsed.classes}
    colour = by_uri[str(URIRef("http://example.org/colours-a#colour"))]
    assert colour.label == "Colour" and set(colour.labels) == {"Colour", "Farbe"}  # English preferred
    assert by_uri["http://example.org/colours-a#red"].synonyms == ["Crimson"]  # altLabel
    assert by_uri["http://example.org/colours-a#green"].synonyms == ["Verdant"]  # hiddenLabel
    assert by_uri["http://example.org/colours-a#blue"].definitions == ["The colour of a clear sky."]


def test_concepts_inside_an_owl_ontology_stay_individuals(tmp_path: Path) -> None:
    path = tmp_path / "codes.ttl"
    path.write_text("""
@prefix : <http://example.org/codes#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
:Status a owl:Class .
:open a skos:Concept, :Status ; skos:prefLabel "open" .
:closed a skos:Concept, :Status ; skos:prefLabel "closed" ; skos:broader :open .
""")
    parsed = parse_ontology(path)
    assert [c.uri for c in parsed.classes] == ["http://example.org/codes#Status"] and not parsed.edges


def test_a_file_with_neither_classes_nor_concepts_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "people.ttl"
    path.write_text('<http://example.org/a> <http://xmlns.com/foaf/0.1/name> "A" .\n')
    with pytest.raises(ParseError, match="no skos:Concept"):
        parse_ontology(path)
