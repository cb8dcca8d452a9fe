"""A ``.owl`` file may hold any OWL syntax (ontology editors save them all under it): Turtle and N-Triples are read
by their content, OWL/XML and the functional syntax are refused with what to do (kgagents.loaders.rdf_read)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgagents.errors import InputFileError, ParseError
from kgagents.loaders.ontology import OntologyLoadResult
from kgagents.loaders.ontology_model import parse_ontology
from kgagents.loaders.rdf_read import RdfFormat, resolve_format

TURTLE = """# a comment first
@prefix owl: <http://www.w3.org/2002/07/owl#> .
<http://example.org/o#A> a owl:Class .
"""
NTRIPLES = "<http://example.org/o#A> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> " \
           "<http://www.w3.org/2002/07/owl#Class> .\n"
RDF_XML = """<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [ <!ENTITY owl "http://www.w3.org/2002/07/owl#" > ]>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:owl="http://www.w3.org/2002/07/owl#">
  <owl:Class rdf:about="http://example.org/o#A"/>
</rdf:RDF>
"""
OWL_XML = """<?xml version="1.0"?>
<Ontology xmlns="http://www.w3.org/2002/07/owl#" xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
     ontologyIRI="http://example.org/o">
    <Declaration><Class IRI="#A"/></Declaration>
</Ontology>
"""
FUNCTIONAL = """Prefix(:=<http://example.org/o#>)
Ontology(<http://example.org/o>
Declaration(Class(:A))
)
"""


@pytest.mark.parametrize(("text", "expected"), [(TURTLE, RdfFormat.TURTLE), (NTRIPLES, RdfFormat.TURTLE),
                                                (RDF_XML, RdfFormat.XML)])
def test_an_owl_file_is_read_by_its_content(tmp_path: Path, text: str, expected: RdfFormat) -> None:
    path = tmp_path / "o.owl"
    path.write_text(text)
    assert resolve_format(path) is expected
    assert [c.uri for c in parse_ontology(path).classes] == ["http://example.org/o#A"]


@pytest.mark.parametrize(("text", "syntax"), [(OWL_XML, "OWL/XML"), (FUNCTIONAL, "functional syntax")])
def test_owl_syntaxes_no_rdf_parser_reads_are_refused_with_what_to_do(tmp_path: Path, text: str, syntax: str) -> None:
    path = tmp_path / "o.owl"
    path.write_text(text)
    with pytest.raises(InputFileError, match=f"{syntax}.*save it as RDF/XML or Turtle"):
        parse_ontology(path)


def test_an_explicit_format_is_not_second_guessed(tmp_path: Path) -> None:
    path = tmp_path / "o.owl"
    path.write_text(TURTLE)
    assert resolve_format(path, "xml") is RdfFormat.XML


def test_classes_typed_by_a_metaclass_the_file_declares_are_classes(tmp_path: Path) -> None:
    """ASHRAE 223P declares its classes as instances of ``s223:Class``, itself below ``rdfs:Class``."""
    path = tmp_path / "s.ttl"
    path.write_text("""
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix s: <http://example.org/s#> .
s:Class a rdfs:Class ; rdfs:subClassOf rdfs:Class .
s:Equipment a s:Class ; rdfs:label "Equipment" .
s:Pump a s:Class ; rdfs:label "Pump" ; rdfs:subClassOf s:Equipment .
s:pump1 a s:Pump .
""")
    parsed = parse_ontology(path)
    assert sorted(c.uri for c in parsed.classes) == ["http://example.org/s#Class", "http://example.org/s#Equipment",
                                                     "http://example.org/s#Pump"]  # the instance pump1 is not
    assert [(e.source, e.target) for e in parsed.edges] == [("http://example.org/s#Pump", "http://example.org/s#Equipment")]


def test_json_ld_with_an_inline_context_is_read_and_a_remote_one_refused(tmp_path: Path) -> None:
    path = tmp_path / "o.jsonld"
    path.write_text('{"@context": {"owl": "http://www.w3.org/2002/07/owl#"}, '
                    '"@id": "http://example.org/o#A", "@type": "owl:Class"}')
    assert [c.uri for c in parse_ontology(path).classes] == ["http://example.org/o#A"]
    path.write_text('{"@context": "https://schema.org/", "@id": "http://example.org/o#A", "@type": "Thing"}')
    with pytest.raises(ParseError, match="does not fetch"):
        parse_ontology(path)


def test_imports_are_listed_not_fetched(tmp_path: Path) -> None:
    path = tmp_path / "o.ttl"
    path.write_text("""@prefix owl: <http://www.w3.org/2002/07/owl#> .
<http://example.org/o> a owl:Ontology ; owl:imports <http://example.org/base>, <http://example.org/units> .
<http://example.org/o#A> a owl:Class .
""")
    parsed = parse_ontology(path)
    assert parsed.imports == ["http://example.org/base", "http://example.org/units"]
    note = OntologyLoadResult(name="o", path=str(path), uri=parsed.uri, classes=1, object_properties=0,
                              datatype_properties=0, triples=3, relationships=0, parse_seconds=0.0,
                              write_seconds=0.0, imports=parsed.imports).imports_note()
    assert note is not None and "imports 2 ontologies" in note and "robot merge" in note


def test_the_language_most_labels_carry_is_the_ontologys_label_language(tmp_path: Path) -> None:
    path = tmp_path / "o.ttl"
    path.write_text("""@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<http://example.org/o#A> a owl:Class ; rdfs:label "Fahrzeug"@de, "Vehicle"@en .
<http://example.org/o#B> a owl:Class ; rdfs:label "Fahrrad"@de-AT .
<http://example.org/o#C> a owl:Class ; rdfs:label "Motor" .
""")
    assert parse_ontology(path).label_language == "de"
    path.write_text("<http://example.org/o#A> a <http://www.w3.org/2002/07/owl#Class> .\n")
    assert parse_ontology(path).label_language is None
