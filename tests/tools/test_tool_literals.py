"""Tool arguments are typed by the ontology: an xsd:integer value is a JSON integer in the schema (text still
accepted), a label must be text, and a value sent as a JSON number or boolean is checked in its XSD lexical form."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from kgagents.graph.connection import Graph
from kgagents.tools.compiler import compile_ontology
from kgagents.tools.datatypes import check_literal, lexical
from kgagents.tools.runtime import ToolRuntime

TTL = """@prefix : <http://example.org/t#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
:Company a owl:Class .
:employees a owl:DatatypeProperty ; rdfs:domain :Company ; rdfs:range xsd:nonNegativeInteger .
:revenue a owl:DatatypeProperty ; rdfs:domain :Company ; rdfs:range xsd:decimal .
:listed a owl:DatatypeProperty ; rdfs:domain :Company ; rdfs:range xsd:boolean .
:motto a owl:DatatypeProperty ; rdfs:domain :Company ; rdfs:range xsd:string .
"""


@pytest.fixture
def ontology(tmp_path: Path) -> Path:
    path = tmp_path / "t.ttl"
    path.write_text(TTL, encoding="utf-8")
    return path


def _value_schema(catalogue: object, tool: str) -> dict:
    return catalogue.tools[tool].input_schema["properties"]["value"]  # type: ignore[attr-defined]


def test_value_schemas_follow_the_datatype(ontology: Path) -> None:
    catalogue = compile_ontology(ontology)
    types = {tool: [t.get("type") for t in _value_schema(catalogue, tool).get("anyOf", [_value_schema(catalogue, tool)])]
             for tool in ("add_employees", "add_revenue", "add_listed", "add_motto")}
    assert types == {"add_employees": ["integer", "string"], "add_revenue": ["number", "string"],
                     "add_listed": ["boolean", "string"], "add_motto": ["string"]}


def test_a_label_must_be_text(ontology: Path) -> None:
    args = compile_ontology(ontology).tools["create_Company"].args
    with pytest.raises(ValidationError, match="valid string"):
        args.model_validate({"label": 42})
    assert args.model_validate({"label": "42"}).model_dump() == {"label": "42"}


@pytest.mark.parametrize("value, datatype, stored", [
    (42, "integer", "42"), (True, "boolean", "true"), (1e-05, "decimal", "0.00001"), (12.5, "double", "12.5"),
    (-3, "nonNegativeInteger", None), ("7", "integer", "7")])
def test_json_values_are_checked_in_lexical_form(value: object, datatype: str, stored: str | None) -> None:
    assert check_literal(f"http://www.w3.org/2001/XMLSchema#{datatype}", lexical(value)) == stored  # type: ignore[arg-type]


def test_an_integer_value_is_written_and_an_integer_label_refused(graph: Graph, ontology: Path) -> None:
    runtime = ToolRuntime(graph, compile_ontology(ontology), abox="literals")
    refused = runtime.call("create_Company", {"label": 7})
    assert not refused.ok and refused.as_dict()["field"] == "label"
    iri = runtime.call("create_Company", {"label": "Acme"}).as_dict()["iri"]
    assert runtime.call("add_employees", {"subject_iri": iri, "value": 120}).ok
    assert runtime.call("add_listed", {"subject_iri": iri, "value": False}).ok
    negative = runtime.call("add_employees", {"subject_iri": iri, "value": -1})
    assert not negative.ok and negative.as_dict()["error_type"] == "datatype_violation"
