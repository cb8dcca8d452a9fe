"""T-Box readers and the compiler on the real T-Boxes (TWA OntoSyn / OntoMOPs / OntoSpecies, Text2KGBench)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgagents.errors import InputFileError, ParseError
from kgagents.tools.compiler import ToolGroup, ToolKind, compile_ontology, compile_tbox, load_tbox
from kgagents.tools.tbox import PropertyKind

SYN = "https://www.theworldavatar.com/kg/OntoSyn/"
OM2 = "http://www.ontology-of-units-of-measure.org/resource/om-2/"


@pytest.fixture(scope="module")
def twa(shared_data: Path) -> Path:
    return shared_data / "extraction" / "twa_mops" / "ontologies"


@pytest.fixture(scope="module")
def webnlg(shared_data: Path) -> Path:
    return shared_data / "extraction" / "text2kgbench" / "dbpedia_webnlg" / "ontologies"


def test_ontosyn_unions_subclasses_datatypes_and_referenced_classes(twa: Path) -> None:
    tbox = load_tbox(twa / "ontosyn-ogm.ttl")
    vessel = tbox.properties[SYN + "hasVessel"]
    assert vessel.kind is PropertyKind.OBJECT and len(vessel.domain) == 12  # owl:unionOf of the step classes
    assert tbox.is_subclass(SYN + "Add", SYN + "SynthesisStep") and not tbox.is_subclass(SYN + "SynthesisStep", SYN + "Add")
    assert tbox.properties[SYN + "hasOrder"].range == ("http://www.w3.org/2001/XMLSchema#integer",)
    # om-2:Temperature is only referenced as a range: a class all the same, not declared here
    assert not tbox.classes[OM2 + "Temperature"].declared
    assert tbox.quantity_class(tbox.properties[SYN + "hasTargetTemperature"]) == OM2 + "Temperature"
    assert tbox.comment and "Metal-Organic Polyhedra" in tbox.comment


def test_ontospecies_comments_and_all_values_from(twa: Path) -> None:
    tbox = load_tbox(twa / "OntoSpecies_v2.owl")
    atom = "http://purl.org/gc/Atom"
    assert "smallest component" in (tbox.classes[atom].comment or "")
    species = "http://www.theworldavatar.com/ontology/ontospecies/OntoSpecies.owl#"
    assert tbox.local_range(atom, species + "hasXCoordinate") == (species + "XCoordinate",)


def test_text2kgbench_json_and_ttl_compile_to_the_same_tool_names(webnlg: Path) -> None:
    from_json = compile_ontology(webnlg / "1_university_ontology.json")
    from_ttl = compile_ontology(webnlg / "owl" / "ont_1_university.ttl")
    add = {n for n in from_json.tools if n.startswith("add_")}
    assert add == {n for n in from_ttl.tools if n.startswith("add_")} and len(add) == 46
    # JSON primitives become datatype properties; the TTL states them as undeclared classes
    assert from_json["add_academicStaffSize"].kind is ToolKind.ADD_VALUE
    assert from_ttl["add_academicStaffSize"].kind is ToolKind.ADD_RELATION
    assert from_json["add_country"].kind is ToolKind.ADD_RELATION


WIKIDATA_STYLE = {
    "title": "Space Ontology", "id": "ont_7_space",
    "concepts": [{"qid": "Q5", "label": "human"}, {"qid": "Q40218", "label": "spacecraft"},
                 {"qid": "Q5916", "label": "spaceflight"}, {"qid": "Q82794", "label": "geographic region"}],
    "relations": [
        {"pid": "P450", "label": "astronaut mission", "domain": "Q5", "range": "Q5916"},
        {"pid": "P622", "label": "spacecraft docking/undocking date", "domain": "Q40218", "range": ""},
        {"pid": "P1158", "label": "location of landing", "domain": "spacecraft", "range": "Q82794"},
        {"pid": "P2", "label": "crew", "domain": "Q5916", "range": "Q5"},
        {"pid": "P3", "label": "crew", "domain": "Q40218", "range": "Q5"},
    ],
}


def test_text2kgbench_ids_and_labels_name_tools_by_label_and_keep_ids(tmp_path: Path) -> None:
    path = tmp_path / "7_space_ontology.json"
    path.write_text(json.dumps(WIKIDATA_STYLE))
    catalogue = compile_ontology(path)
    base = "https://cenguix.github.io/Text2KGBench/ont_7_space/"
    mission = catalogue["add_astronaut_mission"]
    assert mission.kind is ToolKind.ADD_RELATION and mission.target == base + "relations#P450"
    prop = catalogue.tbox.properties[base + "relations#P450"]
    assert (prop.name, prop.label) == ("astronaut_mission", "astronaut mission")
    assert prop.domain == (base + "concepts#Q5",) and prop.range == (base + "concepts#Q5916",)
    assert "create_human" in catalogue and catalogue["create_human"].target == base + "concepts#Q5"
    assert "create_geographic_region" in catalogue
    # a domain may name its concept by label too; an empty range allows an instance or a literal
    assert catalogue.tbox.properties[base + "relations#P1158"].domain == (base + "concepts#Q40218",)
    docking = catalogue["add_spacecraft_docking_undocking_date"]
    assert docking.kind is ToolKind.ADD_ANY and set(docking.input_schema["properties"]) == {"subject_iri", "object"}
    assert "object: any instance or literal" in docking.description
    assert catalogue.tbox.properties[docking.target or ""].kind is PropertyKind.ANY
    # two relations with one label: both kept, told apart by their ids
    assert {"add_crew_P2", "add_crew_P3"} <= set(catalogue.tools)
    assert not any(name.startswith(("add_P", "create_Q")) for name in catalogue.tools)


def test_catalogue_groups_schemas_and_descriptions(twa: Path) -> None:
    catalogue = compile_ontology(twa / "ontosyn-ogm.ttl")
    groups = catalogue.by_group()
    assert {t.name for t in groups[ToolGroup.VALIDATE]} == {"validate"}
    assert {"search_by_label", "neighbours", "check_existing_HeatChill"} <= {t.name for t in groups[ToolGroup.LOOKUP]}
    temperature = catalogue["add_hasTargetTemperature"]
    assert temperature.group is ToolGroup.QUANTITY
    assert temperature.input_schema["required"] == ["subject_iri", "value", "unit"]
    assert temperature.input_schema["properties"]["value"]["type"] == "number"
    assert "degreeCelsius" in temperature.description and "HeatChill" in temperature.description
    assert catalogue["create_HeatChill"].input_schema["properties"]["label"]["minLength"] == 1
    assert all(len(name) <= 64 for name in catalogue.tools)
    json.dumps(catalogue.as_json())  # every schema is plain JSON


def test_name_clashes_are_prefixed_deterministically(twa: Path) -> None:
    # ontomops-ogm declares ontomops/Volume; no other Volume there, so it keeps the plain name
    mops = compile_ontology(twa / "ontomops-ogm.ttl")
    assert "create_Volume" in mops
    tbox = load_tbox(twa / "ontomops-ogm.ttl")
    from kgagents.tools.tbox import ClassDef

    clash = OM2 + "Volume"
    tbox.classes[clash] = ClassDef(iri=clash, name="Volume", label="Volume", declared=False)
    names = set(compile_tbox(tbox).tools)
    assert {"create_ontomops_Volume", "create_om_2_Volume"} <= names and "create_Volume" not in names


def test_constraint_fixture_axioms(fixtures: Path) -> None:
    tbox = load_tbox(fixtures / "tools" / "constraints.ttl")
    lab = "http://example.org/lab#"
    assert tbox.required(lab + "LiquidSample") == {lab + "hasName": 1}  # inherited from Sample
    assert tbox.max_cardinality(lab + "Sample", lab + "hasSupervisor") == 1
    assert tbox.max_cardinality(lab + "Sample", lab + "hasBatchNumber") == 1  # owl:FunctionalProperty
    assert tbox.max_cardinality(lab + "Sample", lab + "storedIn") is None
    assert tbox.properties[lab + "hasState"].allowed_values == ("solid", "liquid", "gas")
    assert tbox.classes[lab + "Colour"].one_of == (lab + "Red", lab + "Green")
    schema = compile_tbox(tbox)["add_hasState"].input_schema
    assert schema["properties"]["value"]["enum"] == ["solid", "liquid", "gas"]


def test_bad_inputs_name_file_and_field(tmp_path: Path, fixtures: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"id": "x", "concepts": [{"qid": "A"}], "relations": [{"label": "p", "domain": "A"}, {"domain": "A"}]}')
    with pytest.raises(InputFileError, match=r"bad.json: relations\[1\].label is missing"):
        load_tbox(bad)
    broken = tmp_path / "broken.json"
    broken.write_text('{"id": "x",\n "concepts": [}')
    with pytest.raises(ParseError, match="broken.json:2"):
        load_tbox(broken)
    with pytest.raises(ParseError, match="malformed.ttl"):
        load_tbox(fixtures / "ontology" / "malformed.ttl")
    empty = tmp_path / "empty.ttl"
    empty.write_text("<http://a> <http://b> <http://c> .\n")
    with pytest.raises(InputFileError, match="no OWL/RDFS classes"):
        load_tbox(empty)
