"""The tool runtime against the real Neo4j: each constraint kind rejects and accepts, nothing invalid is written.

Domain, range (with subclass reasoning), datatypes and OM-2 units are exercised on the real T-Boxes
(OntoSyn, Text2KGBench); the shared T-Boxes contain no cardinality, functional-property,
enumeration or narrowing ``allValuesFrom`` axioms, so those kinds use tests/fixtures/tools/constraints.ttl.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import rdflib

from kgagents.graph.connection import Graph
from kgagents.tools.compiler import compile_ontology
from kgagents.tools.export import export_turtle, label_triples
from kgagents.tools.runtime import ToolRuntime

pytestmark = pytest.mark.integration
SYN = "https://www.theworldavatar.com/kg/OntoSyn/"


def _count(graph: Graph) -> int:
    return graph.run_text("MATCH (n) WHERE n:Instance OR n:LiteralValue RETURN count(n) AS n")[0]["n"]


@pytest.fixture(scope="module")
def ontosyn(shared_data: Path):  # noqa: ANN201
    return compile_ontology(shared_data / "extraction" / "twa_mops" / "ontologies" / "ontosyn-ogm.ttl")


@pytest.fixture(scope="module")
def university(shared_data: Path):  # noqa: ANN201
    return compile_ontology(shared_data / "extraction" / "text2kgbench" / "dbpedia_webnlg" / "ontologies"
                            / "1_university_ontology.json")


@pytest.fixture(scope="module")
def lab(fixtures: Path):  # noqa: ANN201
    return compile_ontology(fixtures / "tools" / "constraints.ttl")


def test_create_is_deterministic_and_reuses_the_same_key(graph: Graph, ontosyn) -> None:  # noqa: ANN001
    rt = ToolRuntime(graph, ontosyn, abox="t")
    first = rt.call("create_HeatChill", {"label": "Heat to 120 °C"})
    assert first.ok and first.created and first.validated
    assert first.iri == "http://kgagents.local/abox/t/HeatChill/heat_to_120_%C2%B0c"
    again = rt.call("create_HeatChill", {"label": '"heat  TO 120 °C"'})
    assert again.ok and again.iri == first.iri and again.created is False
    assert rt.call("check_existing_SynthesisStep", {"label": "Heat to 120 °C"}).iri == first.iri  # subclass
    assert rt.call("check_existing_Add", {"label": "Heat to 120 °C"}).iri is None
    assert _count(graph) == 1


def test_domain_with_subclass_reasoning(graph: Graph, ontosyn) -> None:  # noqa: ANN001
    rt = ToolRuntime(graph, ontosyn, abox="t")
    step = rt.call("create_Add", {"label": "add ligand"}).iri
    chem = rt.call("create_ChemicalInput", {"label": "BDC"}).iri
    vessel = rt.call("create_Vessel", {"label": "vial 1"}).iri
    assert rt.call("add_hasVessel", {"subject_iri": step, "object_iri": vessel}).ok
    before = _count(graph)
    bad = rt.call("add_hasVessel", {"subject_iri": chem, "object_iri": vessel})
    assert not bad.ok and bad.error_type == "domain_violation" and bad.field == "subject_iri" and bad.retryable
    assert "SynthesisStep" in (bad.allowed_values or []) and "ChemicalInput" in (bad.message or "")
    assert _count(graph) == before


def test_range_with_subclass_reasoning(graph: Graph, ontosyn) -> None:  # noqa: ANN001
    rt = ToolRuntime(graph, ontosyn, abox="t")
    synthesis = rt.call("create_ChemicalSynthesis", {"label": "synthesis of MOP-1"}).iri
    vessel = rt.call("create_Vessel", {"label": "Teflon-lined autoclave"}).iri  # Vessel ⊑ OntoLab LabEquipment
    chem = rt.call("create_ChemicalInput", {"label": "pyridine"}).iri
    assert rt.call("add_hasEquipment", {"subject_iri": synthesis, "object_iri": vessel}).ok
    bad = rt.call("add_hasEquipment", {"subject_iri": synthesis, "object_iri": chem})
    assert bad.error_type == "range_violation" and bad.allowed_values == ["LabEquipment"]
    missing = rt.call("add_hasEquipment", {"subject_iri": synthesis, "object_iri": "autoclave"})
    assert missing.error_type == "unknown_instance" and "create_LabEquipment" in (missing.message or "")
    assert rt.call("add_hasEquipment", {"subject_iri": "nope", "object_iri": vessel}).error_type == "unknown_instance"


def test_datatypes(graph: Graph, ontosyn, university) -> None:  # noqa: ANN001
    rt = ToolRuntime(graph, ontosyn, abox="t")
    step = rt.call("create_Filter", {"label": "filter"}).iri
    assert rt.call("add_hasOrder", {"subject_iri": step, "value": 3}).ok
    bad = rt.call("add_hasOrder", {"subject_iri": step, "value": "third"})
    assert bad.error_type == "datatype_violation" and "xsd:integer" in (bad.message or "")
    assert rt.call("add_isVacuumFiltration", {"subject_iri": step, "value": "True"}).ok
    assert rt.call("add_isVacuumFiltration", {"subject_iri": step, "value": "yes"}).error_type == "datatype_violation"
    uni = ToolRuntime(graph, university, abox="u")
    college = uni.call("create_University", {"label": "AWH_Engineering_College"}).iri
    assert uni.call("add_academicStaffSize", {"subject_iri": college, "value": '"250"'}).ok
    assert uni.call("add_academicStaffSize", {"subject_iri": college, "value": "250 (people)"}).error_type \
        == "datatype_violation"
    assert uni.call("add_established", {"subject_iri": college, "value": "2001-06-01"}).ok
    assert uni.call("add_established", {"subject_iri": college, "value": "2001"}).error_type == "datatype_violation"
    assert uni.call("add_established", {"subject_iri": college, "value": "2001-02-30"}).error_type == "datatype_violation"
    assert ("AWH_Engineering_College", "academicStaffSize", "250") in label_triples(graph, "u")


def test_quantities_with_allowed_units(graph: Graph, ontosyn) -> None:  # noqa: ANN001
    rt = ToolRuntime(graph, ontosyn, abox="t")
    step = rt.call("create_HeatChill", {"label": "heat"}).iri
    ok = rt.call("add_hasTargetTemperature", {"subject_iri": step, "value": 120, "unit": "°C"})
    assert ok.ok and ok.created and "Temperature" in (ok.iri or "")
    again = rt.call("add_hasTargetTemperature", {"subject_iri": step, "value": 120.0, "unit": "degreeCelsius"})
    assert again.iri == ok.iri and again.created is False
    bad = rt.call("add_hasTargetTemperature", {"subject_iri": step, "value": 120, "unit": "bar"})
    assert bad.error_type == "invalid_unit" and "kelvin" in (bad.allowed_values or [])
    assert rt.call("add_hasStepDuration", {"subject_iri": step, "value": 2, "unit": "d"}).ok
    turtle = rdflib.Graph().parse(data=export_turtle(graph, "t"), format="turtle")
    om = "http://www.ontology-of-units-of-measure.org/resource/om-2/"
    units = {str(o) for o in turtle.objects(None, rdflib.URIRef(om + "hasUnit"))}
    assert units == {om + "degreeCelsius", om + "day"}
    values = {float(o) for o in turtle.objects(None, rdflib.URIRef(om + "hasNumericalValue"))}
    assert values == {120.0, 2.0}


def test_max_cardinality_and_functional(graph: Graph, lab) -> None:  # noqa: ANN001
    rt = ToolRuntime(graph, lab, abox="lab")
    sample = rt.call("create_Sample", {"label": "S1"}).iri
    ada, bob = (rt.call("create_Person", {"label": n}).iri for n in ("Ada", "Bob"))
    assert rt.call("add_hasSupervisor", {"subject_iri": sample, "object_iri": ada}).ok
    assert rt.call("add_hasSupervisor", {"subject_iri": sample, "object_iri": ada}).ok  # same again: no-op
    second = rt.call("add_hasSupervisor", {"subject_iri": sample, "object_iri": bob})
    assert second.error_type == "already_attached" and second.retryable is False
    assert rt.call("add_hasBatchNumber", {"subject_iri": sample, "value": "B-7"}).ok
    assert rt.call("add_hasBatchNumber", {"subject_iri": sample, "value": "B-8"}).error_type == "already_attached"
    assert rt.call("add_storedIn", {"subject_iri": sample, "object_iri": rt.call("create_Box", {"label": "b"}).iri}).ok
    assert rt.call("add_storedIn", {"subject_iri": sample, "object_iri": rt.call("create_Bottle", {"label": "c"}).iri}).ok


def test_allowed_values_and_enumerated_classes(graph: Graph, lab) -> None:  # noqa: ANN001
    rt = ToolRuntime(graph, lab, abox="lab")
    sample = rt.call("create_Sample", {"label": "S2"}).iri
    assert rt.call("add_hasState", {"subject_iri": sample, "value": "liquid"}).ok
    bad = rt.call("add_hasState", {"subject_iri": sample, "value": "plasma"})
    assert bad.error_type == "invalid_arguments" and bad.field == "value"  # the schema's enum rejects it first
    assert bad.allowed_values == ["solid", "liquid", "gas"]
    red = rt.call("create_Colour", {"label": "Red"})
    assert red.ok and red.iri == "http://example.org/lab#Red"  # the individual itself, not a minted IRI
    blue = rt.call("create_Colour", {"label": "blue"})
    assert blue.error_type == "not_allowed_value" and blue.allowed_values == ["Green", "Red"]
    assert rt.call("add_hasColour", {"subject_iri": sample, "object_iri": red.iri}).ok


def test_class_local_range(graph: Graph, lab) -> None:  # noqa: ANN001
    rt = ToolRuntime(graph, lab, abox="lab")
    liquid = rt.call("create_LiquidSample", {"label": "L1"}).iri
    box = rt.call("create_Box", {"label": "box 1"}).iri
    bad = rt.call("add_storedIn", {"subject_iri": liquid, "object_iri": box})  # LiquidSample ⊑ storedIn only Bottle
    assert bad.error_type == "range_violation" and bad.allowed_values == ["Bottle"]
    assert rt.call("add_storedIn", {"subject_iri": liquid, "object_iri": rt.call("create_Bottle", {"label": "b1"}).iri}).ok


def test_validate_reports_missing_required(graph: Graph, lab) -> None:  # noqa: ANN001
    rt = ToolRuntime(graph, lab, abox="lab")
    sample = rt.call("create_LiquidSample", {"label": "L2"}).iri
    missing = rt.call("validate", {"instance_iri": sample})
    assert missing.error_type == "missing_required" and missing.allowed_values == ["hasName"]
    assert rt.call("add_hasName", {"subject_iri": sample, "value": "liquid two"}).ok
    assert rt.call("validate", {"instance_iri": sample}).validated
    assert "hasName" in lab["create_Sample"].description  # the create tool says what is required


def test_unknown_tools_and_bad_arguments(graph: Graph, ontosyn) -> None:  # noqa: ANN001
    rt = ToolRuntime(graph, ontosyn, abox="t")
    unknown = rt.call("create_Heatchill", {"label": "x"})
    assert unknown.error_type == "unknown_tool" and "create_HeatChill" in (unknown.allowed_values or [])
    assert rt.call("create_HeatChill", {}).error_type == "invalid_arguments"
    assert rt.call("create_HeatChill", {"label": "x", "colour": "red"}).field == "colour"
    assert rt.call("create_HeatChill", {"label": '""'}).error_type == "invalid_arguments"
    assert _count(graph) == 0


def test_lookups_and_turtle_export(graph: Graph, university) -> None:  # noqa: ANN001
    rt = ToolRuntime(graph, university, abox="u")
    college = rt.call("create_University", {"label": "AWH Engineering College"}).iri
    india = rt.call("create_Country", {"label": "India"}).iri
    assert rt.call("add_country", {"subject_iri": college, "object_iri": india}).ok
    found = rt.call("search_by_label", {"text": "engineering", "class_name": "University"})
    assert [r["iri"] for r in found.data] == [college]
    assert rt.call("search_by_label", {"text": "x", "class_name": "Galaxy"}).error_type == "invalid_arguments"
    near = rt.call("neighbours", {"iri": india}).data
    assert near["incoming"] == [{"direction": "in", "property": "country", "iri": college,
                                 "label": "AWH Engineering College"}]
    g = rdflib.Graph().parse(data=export_turtle(graph, "u"), format="turtle")
    country = rdflib.URIRef("https://cenguix.github.io/Text2KGBench/ont_1_university/relations#country")
    assert list(g.triples((rdflib.URIRef(college), country, None))) == [
        (rdflib.URIRef(college), country, rdflib.URIRef(india))]
    rt.delete_abox()
    assert _count(graph) == 0


def test_feeding_given_triples_with_quantities(graph: Graph, ontosyn) -> None:  # noqa: ANN001
    from kgagents.tools.feed import feed_triples

    rt = ToolRuntime(graph, ontosyn, abox="feed")
    report = feed_triples(rt, [("heat step", "hasTargetTemperature", "120 °C"),
                               ("heat step", "hasStepDuration", "12 fortnights"),
                               ("heat step", "hasVessel", "autoclave")])
    assert report.accepted == [("heat step", "hasTargetTemperature", "120 °C"), ("heat step", "hasVessel", "autoclave")]
    assert [o.result.error_type for o in report.rejected] == ["invalid_unit"]
    # one instance per (entity, class needed): the domain of each relation (first member of a union), then ranges
    assert [o.tool for o in report.creations] == ["create_HeatChill", "create_Add", "create_Vessel"]


def test_an_open_range_takes_an_instance_or_a_literal(graph: Graph, tmp_path: Path) -> None:
    path = tmp_path / "space_ontology.json"
    path.write_text('{"id": "space", "concepts": [{"qid": "Q40218", "label": "spacecraft"}, {"qid": "Q5", "label": '
                    '"human"}], "relations": [{"pid": "P622", "label": "docking date", "domain": "Q40218", '
                    '"range": ""}]}')
    rt = ToolRuntime(graph, compile_ontology(path), abox="open")
    craft = rt.call("create_spacecraft", {"label": "Soyuz TMA-1"}).iri
    person = rt.call("create_human", {"label": "Yuri Lonchakov"}).iri
    assert rt.call("add_docking_date", {"subject_iri": craft, "object": "2002-11-01"}).ok
    assert rt.call("add_docking_date", {"subject_iri": craft, "object": person}).ok
    assert rt.call("add_docking_date", {"subject_iri": person, "object": "x"}).error_type == "domain_violation"
    assert label_triples(graph, "open") == [("Soyuz TMA-1", "docking_date", "2002-11-01"),
                                            ("Soyuz TMA-1", "docking_date", "Yuri Lonchakov")]
