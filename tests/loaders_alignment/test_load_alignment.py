"""Loading alignments into the real Neo4j: links between existing resources, missing cells reported,
raw cells kept, reloads idempotent, bad files write nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kgagents.errors import KgAgentsError, ParseError
from kgagents.graph.connection import Graph
from kgagents.loaders.alignment import (
    Alignment,
    Cell,
    load_alignment,
    read_alignment,
    stored_alignment,
    write_alignment,
)
from tests.eval import ontology_terms

A = "http://a.example.org/onto#"
B = "http://b.example.org/onto#"
# Every entity of small.rdf except b#Missing.
SMALL_RESOURCES = [A + "Alpha", B + "Alpha", A + "Beta", B + "Bravo", A + "Gamma", B + "Golf", A + "Delta",
                   A + "Echo", B + "Echo_Point"]


def fixture_query(fixtures: Path, name: str) -> str:
    return (fixtures / "alignment" / f"{name}.cypher").read_text(encoding="utf-8")


def create_resources(graph: Graph, fixtures: Path, uris: list[str]) -> None:
    graph.run_text(fixture_query(fixtures, "resources"), uris=uris)


def aligned(graph: Graph, fixtures: Path) -> list[dict[str, Any]]:
    return graph.run_text(fixture_query(fixtures, "aligned"))


def snapshot(graph: Graph, fixtures: Path) -> list[str]:
    """The whole graph as sorted JSON rows, without the load timing (which differs on every load)."""
    rows = []
    for row in graph.run_text(fixture_query(fixtures, "snapshot")):
        if "Load" in row["labels"]:
            row["props"] = {k: v for k, v in row["props"].items() if k not in ("loaded_at", "seconds")}
        rows.append(json.dumps(row, sort_keys=True, default=str))
    return sorted(rows)


def test_load_links_existing_resources_and_reports_the_rest(graph: Graph, fixtures: Path) -> None:
    create_resources(graph, fixtures, SMALL_RESOURCES)
    path = fixtures / "alignment" / "small.rdf"
    steps: list[int] = []
    result = load_alignment(graph, path, name="toy", progress=steps.append)

    assert (result.name, result.cells, result.linked) == ("toy", 6, 5)
    assert result.missing == [Cell(entity1=A + "Delta", entity2=B + "Missing", relation="=", measure=1.0)]
    assert sum(steps) == 6
    # The duplicated Alpha cell (0.4, then 0.9) is one link with the higher measure.
    assert aligned(graph, fixtures) == [
        {"entity1": A + "Alpha", "entity2": B + "Alpha", "alignment": "toy", "relation": "=", "measure": 0.9},
        {"entity1": A + "Beta", "entity2": B + "Bravo", "alignment": "toy", "relation": "=", "measure": 0.75},
        {"entity1": A + "Echo", "entity2": B + "Echo_Point", "alignment": "toy", "relation": "=", "measure": 0.6},
        {"entity1": A + "Gamma", "entity2": B + "Golf", "alignment": "toy", "relation": "<", "measure": 0.5},
    ]
    node = graph.run("alignment/stored", alignment="toy")[0]["alignment"]
    assert node["file"] == str(path.resolve())
    assert (node["onto1"], node["onto2"], node["uri1"]) == ("http://a.example.org/onto", "http://b.example.org/onto",
                                                          "file:///tmp/a.owl")
    assert "uri2" not in node
    assert (node["cells"], node["linked"], node["missing"]) == (6, 5, 1)
    load = graph.run_text(fixture_query(fixtures, "loads"))[0]["load"]
    assert (load["kind"], load["target"]) == ("alignment", "toy")
    assert (load["count_cells"], load["count_linked"], load["count_missing"]) == (6, 5, 1)


def test_stored_cells_give_back_the_file_exactly(graph: Graph, fixtures: Path) -> None:
    path = fixtures / "alignment" / "small.rdf"
    create_resources(graph, fixtures, SMALL_RESOURCES[:2])  # most cells are missing; none may be lost
    load_alignment(graph, path)
    assert stored_alignment(graph, "small") == read_alignment(path)
    with pytest.raises(KgAgentsError, match="No alignment named 'nope'"):
        stored_alignment(graph, "nope")


def test_loading_twice_leaves_an_identical_graph(graph: Graph, fixtures: Path) -> None:
    create_resources(graph, fixtures, SMALL_RESOURCES)
    path = fixtures / "alignment" / "small.rdf"
    load_alignment(graph, path, name="toy")
    first = snapshot(graph, fixtures)
    load_alignment(graph, path, name="toy")
    assert snapshot(graph, fixtures) == first


def test_reloading_a_changed_file_replaces_only_that_alignment(graph: Graph, fixtures: Path, tmp_path: Path) -> None:
    create_resources(graph, fixtures, SMALL_RESOURCES)
    small = fixtures / "alignment" / "small.rdf"
    load_alignment(graph, small, name="toy")
    load_alignment(graph, small, name="other")
    changed = tmp_path / "changed.rdf"
    write_alignment(Alignment(onto1="http://a.example.org/onto", onto2="http://b.example.org/onto",
                              cells=[Cell(entity1=A + "Beta", entity2=B + "Bravo", measure=0.3)]), changed)
    load_alignment(graph, changed, name="toy")
    links = aligned(graph, fixtures)
    assert [(r["entity1"], r["measure"]) for r in links if r["alignment"] == "toy"] == [(A + "Beta", 0.3)]
    assert len([r for r in links if r["alignment"] == "other"]) == 4


def test_malformed_file_writes_nothing(graph: Graph, fixtures: Path) -> None:
    create_resources(graph, fixtures, SMALL_RESOURCES)
    before = snapshot(graph, fixtures)
    with pytest.raises(ParseError):
        load_alignment(graph, fixtures / "alignment" / "bad_measure.rdf")
    assert snapshot(graph, fixtures) == before


def test_real_conference_reference(graph: Graph, fixtures: Path, shared_data: Path) -> None:
    conf = shared_data / "om" / "conference"
    onto = ontology_terms.parse([conf / "ontologies" / "cmt.owl", conf / "ontologies" / "conference.owl"])
    entities = sorted(ontology_terms.classes(onto) | ontology_terms.properties(onto))
    create_resources(graph, fixtures, entities)
    path = conf / "reference" / "cmt-conference.rdf"
    expected_cells = path.read_text().count("<Cell")
    result = load_alignment(graph, path)
    assert (result.name, result.cells, result.linked, result.missing) == ("cmt-conference", expected_cells,
                                                                          expected_cells, [])
    links = aligned(graph, fixtures)
    assert len(links) == expected_cells
    assert all(r["entity1"].startswith("http://cmt#") and r["entity2"].startswith("http://conference#")
               for r in links)


def test_an_sssom_mapping_set_loads_as_the_same_links(graph: Graph, fixtures: Path) -> None:
    create_resources(graph, fixtures, SMALL_RESOURCES)
    rdf = load_alignment(graph, fixtures / "alignment" / "small.rdf", name="same")
    from_rdf = aligned(graph, fixtures)
    sssom = load_alignment(graph, fixtures / "alignment" / "small.sssom.tsv")
    assert sssom.name == "small"  # the stem less ".sssom"
    assert (sssom.cells, sssom.linked, sssom.missing) == (rdf.cells, rdf.linked, rdf.missing)
    links = aligned(graph, fixtures)
    assert [{**r, "alignment": "same"} for r in links if r["alignment"] == "small"] == from_rdf


def test_a_malformed_sssom_file_writes_nothing(graph: Graph, fixtures: Path, tmp_path: Path) -> None:
    create_resources(graph, fixtures, SMALL_RESOURCES)
    before = snapshot(graph, fixtures)
    text = (fixtures / "alignment" / "small.sssom.tsv").read_text(encoding="utf-8")
    bad = tmp_path / "bad.sssom.tsv"
    bad.write_text(text.replace("b:Golf", "zz:Golf"), encoding="utf-8")
    with pytest.raises(KgAgentsError, match=r"bad\.sssom\.tsv:12: column object_id: unknown prefix 'zz'"):
        load_alignment(graph, bad)
    assert snapshot(graph, fixtures) == before
