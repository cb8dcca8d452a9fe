"""Background knowledge files: what each kind says, the identity rule, and the load into Neo4j (one transaction)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kgagents.errors import InputFileError, MappingFileError, ParseError
from kgagents.graph.connection import Graph
from kgagents.loaders.background import Statement, load_background, read_background
from kgagents.loaders.ontology import load_ontology
from kgagents.loaders.prefixes import converter, local_key, read_prefix_map

OBO = "http://purl.obolibrary.org/obo/"
M = "http://example.org/mediator/"


@pytest.fixture
def bg(fixtures: Path) -> Path:
    return fixtures / "matching" / "background"


def test_a_bridge_ontology_gives_equivalences_and_subclasses(bg: Path) -> None:
    mouse = read_background(bg / "bridge-to-mouse.owl")
    got = {(s.a, s.b, s.relation) for s in mouse.statements}
    assert mouse.kind == "ontology"
    # an equivalence to (mediator ⊓ restriction) is read as the class below the mediator; plain equivalence is exact
    assert {(OBO + "MA_0000001", M + "M_0000001", "narrow"), (OBO + "MA_0000005", M + "M_0000005", "exact"),
            (M + "M_0000006", M + "M_0000005", "narrow")} <= got
    assert not any(s.b.startswith(OBO + "NCBITaxon") for s in mouse.statements)  # the restriction's filler is not
    human = read_background(bg / "bridge-to-human.ttl")
    assert (OBO + "NCIT_C001", M + "M_0000001", "narrow") in {(s.a, s.b, s.relation) for s in human.statements}


def test_sssom_obo_and_alignment_files_give_statements(bg: Path, fixtures: Path) -> None:
    [direct] = read_background(bg / "direct.sssom.tsv").statements
    assert direct == Statement(OBO + "MA_0000003", OBO + "NCIT_C003", "exact",
                               "http://www.w3.org/2004/02/skos/core#exactMatch", 0.9)
    xrefs = read_background(bg / "xrefs.obo")
    assert xrefs.kind == "obo" and xrefs.names == {OBO + "X_0000004": ["forebrain"]}
    assert {(s.a, s.b, s.relation) for s in xrefs.statements} == {
        (OBO + "X_0000004", OBO + "MA_0000004", "close"), (OBO + "X_0000004", OBO + "NCIT_C004", "close")}
    alignment = read_background(fixtures / "matching" / "ref_ab.rdf")
    assert alignment.kind == "alignment" and alignment.statements
    assert {s.relation for s in alignment.statements} <= {"exact", "narrow"}


def test_a_thesaurus_gives_its_own_mapping_links(tmp_path: Path) -> None:
    """A SKOS file (no OWL) is background too: its concepts' exactMatch / closeMatch links and their labels."""
    path = tmp_path / "thesaurus.ttl"
    path.write_text("""@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
<http://x.org/t#gold> a skos:Concept ; skos:prefLabel "Gold" ; skos:exactMatch <http://x.org/elements#Au> .
<http://x.org/t#lead> a skos:Concept ; skos:closeMatch <http://x.org/elements#Pb> .
""", encoding="utf-8")
    found = read_background(path)
    assert {(s.a, s.b, s.relation) for s in found.statements} == {
        ("http://x.org/t#gold", "http://x.org/elements#Au", "exact"),
        ("http://x.org/t#lead", "http://x.org/elements#Pb", "close")}
    assert found.names == {"http://x.org/t#gold": ["Gold"]}


def test_files_that_are_no_background_are_refused_with_where(bg: Path, tmp_path: Path) -> None:
    text = tmp_path / "notes.owl"
    text.write_text("this is not RDF\n", encoding="utf-8")
    with pytest.raises(ParseError, match="notes.owl"):
        read_background(text)
    data_only = tmp_path / "data.ttl"
    data_only.write_text("<http://x.org/a> <http://x.org/p> <http://x.org/b> .\n", encoding="utf-8")
    with pytest.raises(ParseError, match="not an ontology"):
        read_background(data_only)
    with pytest.raises(InputFileError, match="not a background file"):
        read_background(bg / "prefixes.json")
    bad = tmp_path / "bad.sssom.tsv"
    bad.write_text("subject_id\tpredicate_id\tobject_id\tmapping_justification\n"
                   "MA:1\tskos:exactMatch\tNOPE:2\tsemapv:LexicalMatching\n", encoding="utf-8")
    with pytest.raises(MappingFileError, match=r"bad\.sssom\.tsv:2: column subject_id: unknown prefix 'MA'"):
        read_background(bad)


def test_the_identity_rule_compares_accession_ids_through_the_prefix_maps_synonyms(bg: Path) -> None:
    plain = converter()
    assert local_key("http://mouse.owl#MA_0000001", plain) == local_key(OBO + "MA_0000001", plain)
    assert local_key("http://human.owl#NCI_C12", plain) != local_key(OBO + "NCIT_C12", plain)
    mapped = converter(read_prefix_map(bg / "prefixes.json"))
    assert local_key("http://human.owl#NCI_C12", mapped) == local_key(OBO + "NCIT_C12", mapped) == "NCIT_C12"


def _load_pair(graph: Graph, bg: Path) -> None:
    load_ontology(graph, bg / "mouse.ttl", name="mouse")
    load_ontology(graph, bg / "human.ttl", name="human")


BRIDGES = ("bridge-to-mouse.owl", "bridge-to-human.ttl")


def test_a_load_reports_what_the_identity_rule_tied(graph: Graph, bg: Path) -> None:
    _load_pair(graph, bg)
    without_map = load_background(graph, [bg / f for f in BRIDGES])
    mouse, human = without_map.files
    assert mouse.classes_tied == {"mouse": 4} and mouse.by_rule == {"accession": 4}
    assert human.classes_tied == {} and human.ties_nothing(["mouse", "human"]) == ["mouse", "human"]
    assert human.prefixes_untied["NCIT"] == 5  # the hint a user gets: these ids are NCIT_…, the ontology's NCI_…
    with_map = load_background(graph, [bg / f for f in BRIDGES], read_prefix_map(bg / "prefixes.json"))
    assert with_map.files[1].classes_tied == {"human": 5}
    edges = graph.run_text("MATCH (a)-[b:BACKGROUND]->(m) RETURN a.uri AS a, m.uri AS m, b.relation AS relation, "
                           "labels(m) AS labels, b.file AS file")
    assert ("http://human.test#NCI_C001", M + "M_0000001", "narrow") in {(e["a"], e["m"], e["relation"])
                                                                          for e in edges}
    assert len(edges) == 4 + 1 + 5  # the mouse bridge (4 ties, 1 between mediators), the human one (5): no doubles
    assert all("Mediator" in e["labels"] or "Resource" in e["labels"] for e in edges)


def test_a_background_load_stopped_inside_its_transaction_writes_nothing(graph: Graph, bg: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    _load_pair(graph, bg)
    load_background(graph, [bg / BRIDGES[0]])
    before = graph.run_text("MATCH ()-[b:BACKGROUND]->() RETURN count(b) AS n, "
                            "COUNT { MATCH (m:Mediator) } AS mediators")[0]
    original = Graph.write_rows

    def stop_after_linking(self: Graph, tx: Any, name: str, rows: Any, **kwargs: Any) -> int:
        written = original(self, tx, name, rows, **kwargs)
        if name == "background/link":  # the first file's edges are sent to the server, then the load stops
            raise RuntimeError("stopped inside the write transaction")
        return written

    monkeypatch.setattr(Graph, "write_rows", stop_after_linking)
    with pytest.raises(RuntimeError, match="inside the write transaction"):
        load_background(graph, [bg / f for f in BRIDGES], read_prefix_map(bg / "prefixes.json"))
    monkeypatch.undo()
    after = graph.run_text("MATCH ()-[b:BACKGROUND]->() RETURN count(b) AS n, "
                           "COUNT { MATCH (m:Mediator) } AS mediators")[0]
    assert after == before


def test_an_iri_an_sssom_curie_had_to_escape_is_the_loaded_class() -> None:
    from kgagents.loaders.background import ClassIndex

    conv = converter()
    index = ClassIndex.of([{"uri": "http://x.org/onto#Part:Whole", "ontologies": ["a"]}], conv)
    assert index.resolve("http://x.org/onto#Part%3AWhole", conv) == (["http://x.org/onto#Part:Whole"], "iri")
    assert index.resolve("http://x.org/onto#Other", conv) == ([], None)
