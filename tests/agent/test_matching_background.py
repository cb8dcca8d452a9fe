"""Matching with background knowledge on the real Neo4j: pairs through mediators, one confidence per pair the same
in the graph, the Alignment API file and SSSOM (validated by the ``sssom`` package), and the CLI's --background."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgagents.agent.matching.background import background_matches, best_paths, path_kind
from kgagents.agent.matching.confidence import default_calibration
from kgagents.agent.matching.settings import MatchSettings
from kgagents.agent.matching.store import export_alignment, export_sssom, justification
from kgagents.cli import app
from kgagents.config import Neo4jSettings
from kgagents.embeddings.index import drop_vector_index, vector_indexes
from kgagents.graph.connection import Graph
from kgagents.jobs.matching import match_pair
from kgagents.loaders.alignment import read_alignment
from kgagents.loaders.ontology import load_ontology
from kgagents.loaders.prefixes import read_prefix_map
from kgagents.loaders.sssom import read_sssom

MOUSE, HUMAN = "http://mouse.test#", "http://human.test#"
FILES = ("bridge-to-mouse.owl", "bridge-to-human.ttl", "direct.sssom.tsv", "xrefs.obo")


def test_a_paths_kind_follows_its_edges() -> None:
    assert path_kind(["exact", "exact"], [True, False]) == "exact"
    assert path_kind(["exact", "close"], [True, True]) == "close"
    assert path_kind(["exact", "narrow"], [True, False]) == "narrow"  # s ≡ m ⊒ t
    assert path_kind(["narrow", "narrow"], [True, False]) == "shared"  # s ⊑ m ⊒ t
    assert path_kind(["narrow", "narrow"], [True, True]) == "narrow"  # s ⊑ m ⊑ t
    assert path_kind(["exact", "narrow", "exact"], [True, True, True]) == "hierarchy"


def test_the_strictest_path_decides_and_an_ambiguous_mediator_decides_nothing() -> None:
    rows = [{"source": "s1", "target": "t1", "via": "m1", "relations": ["narrow", "narrow"], "along": [True, False],
             "confidences": [1.0, 1.0]},
            {"source": "s1", "target": "t1", "via": None, "relations": ["exact"], "along": [True],
             "confidences": [0.8]},
            {"source": "s2", "target": "t2", "via": "m2", "relations": ["narrow", "narrow"], "along": [True, False],
             "confidences": [1.0, 1.0]},
            {"source": "s2", "target": "t3", "via": "m2", "relations": ["narrow", "narrow"], "along": [True, False],
             "confidences": [1.0, 1.0]},
            {"source": "s4", "target": "t4", "via": "m4 m5", "relations": ["exact", "narrow", "exact"],
             "along": [True, True, False], "confidences": [1.0, 0.5, 1.0]}]
    best = best_paths(rows)
    assert (best[("s1", "t1")].kind, best[("s1", "t1")].confidence) == ("exact", 0.8)
    assert (best[("s4", "t4")].kind, best[("s4", "t4")].confidence) == ("hierarchy", 0.5)
    kept = {(m.source, m.target, m.kind) for m in background_matches(best)}
    assert kept == {("s1", "t1", "exact"), ("s4", "t4", "hierarchy")}  # s2's mediator has two targets below it
    assert background_matches(best, exclude=["t1"]) == [best[("s4", "t4")]]


def test_a_pairs_justification_names_its_evidence() -> None:
    semapv = "https://w3id.org/semapv/vocab/"
    assert justification(["lexical:exact"], False) == semapv + "LexicalMatching"
    assert justification(["syntactic", "lexical"], False) == semapv + "SemanticSimilarityThresholdMatching"
    assert justification(["background:shared"], False) == semapv + "BackgroundKnowledgeBasedMatching"
    assert justification(["lexical:exact", "background:exact"], False) == semapv + "CompositeMatching"
    assert justification(["structural"], True) == semapv + "MappingReview"


def fresh_pair(graph: Graph, folder: Path, **files: str) -> Path:
    """``folder`` after loading its ontology files as ``name=file`` on a graph without vector indexes (each test
    embeds its own pair)."""
    for index in vector_indexes(graph):
        drop_vector_index(graph, index.name)
    for name, file in files.items():
        load_ontology(graph, folder / file, name=name)
    return folder


@pytest.fixture
def anatomy_like(graph: Graph, fixtures: Path) -> Path:
    return fresh_pair(graph, fixtures / "matching" / "background", mouse="mouse.ttl", human="human.ttl")


def _by_pair(run: object) -> dict[tuple[str, str], dict]:
    return {(m["source"], m["target"]): m for m in run.result.output}  # type: ignore[attr-defined]


def test_background_pairs_are_found_through_mediators_and_carry_one_confidence(
        graph: Graph, anatomy_like: Path, tmp_path: Path) -> None:
    bg = anatomy_like
    run = match_pair(graph, "mouse", "human", MatchSettings(mode="no_llm"), background=[bg / f for f in FILES],
                     prefixes=read_prefix_map(bg / "prefixes.json"))
    found = _by_pair(run)
    first = {pair: m["channels"][0] for pair, m in found.items()}
    assert first[(MOUSE + "MA_0000001", HUMAN + "NCI_C001")] == "background:shared"  # hand digit / Finger
    assert first[(MOUSE + "MA_0000002", HUMAN + "NCI_C002")] == "background:shared"  # upper leg / Thigh
    assert first[(MOUSE + "MA_0000003", HUMAN + "NCI_C003")] == "background:exact"  # the SSSOM file
    sssom_pair = found[(MOUSE + "MA_0000003", HUMAN + "NCI_C003")]  # the file states confidence 0.9
    assert sssom_pair["confidence"] == pytest.approx(
        0.9 * default_calibration().precision("background:exact"), abs=1e-4)
    assert "stated confidence 0.9" in sssom_pair["reason"]
    assert first[(MOUSE + "MA_0000004", HUMAN + "NCI_C004")] == "background:close"  # the OBO file's xrefs
    assert first[(MOUSE + "MA_0000006", HUMAN + "NCI_C007")] == "background:narrow"
    assert first[(MOUSE + "MA_0000007", HUMAN + "NCI_C008")] == "lexical:exact"  # heart / Heart
    # limb's mediator has two human classes below it: the background decides neither
    assert not any(m.startswith("background:") for (s, _), c in first.items() if s == MOUSE + "MA_0000005"
                   for m in [c])
    assert run.background is not None and [f.classes_tied for f in run.background.files][:2] == [
        {"mouse": 4}, {"human": 5}]
    # one confidence per pair in [0, 1]: the same in the output, the graph, the Alignment API file and SSSOM
    confidence = {pair: m["confidence"] for pair, m in found.items()}
    assert all(0.0 <= c <= 1.0 for c in confidence.values())
    stored = {(r["s"], r["t"]): r["c"] for r in graph.run_text(
        "MATCH (s)-[m:MATCHES {run_id: $run}]->(t) RETURN s.uri AS s, t.uri AS t, m.confidence AS c", run=run.run_id)}
    assert stored == confidence
    rdf = export_alignment(graph, run.run_id, "mouse", "human", tmp_path / "out.rdf")
    assert {(c.entity1, c.entity2): c.measure for c in read_alignment(tmp_path / "out.rdf").cells} == confidence
    assert len(rdf.cells) == len(found)
    export_sssom(graph, run.run_id, "mouse", "human", tmp_path / "out.sssom.tsv")
    written = read_sssom(tmp_path / "out.sssom.tsv").mappings
    assert {(m.subject_id, m.object_id): m.confidence for m in written} == pytest.approx(confidence, abs=1e-4)
    assert {m.mapping_justification.rsplit("/", 1)[1] for m in written} >= {"BackgroundKnowledgeBasedMatching",
                                                                             "LexicalMatching"}


def test_a_background_file_that_ties_no_class_changes_nothing(graph: Graph, anatomy_like: Path) -> None:
    settings = MatchSettings(mode="no_llm")
    plain = match_pair(graph, "mouse", "human", settings)
    with_unrelated = match_pair(graph, "mouse", "human", settings, background=[anatomy_like / "unrelated.sssom.tsv"])
    assert with_unrelated.background is not None
    assert with_unrelated.background.files[0].ties_nothing(["mouse", "human"]) == ["mouse", "human"]
    assert {p: (m["channels"], m["confidence"]) for p, m in _by_pair(with_unrelated).items()} == {
        p: (m["channels"], m["confidence"]) for p, m in _by_pair(plain).items()}


def test_match_command_with_background_writes_sssom_the_sssom_library_validates(
        graph: Graph, neo4j_settings: Neo4jSettings, anatomy_like: Path, tmp_path: Path) -> None:
    from sssom.constants import SchemaValidationType  # a dev dependency: the reference implementation
    from sssom.parsers import parse_sssom_table
    from sssom.validators import validate

    bg = anatomy_like
    out = tmp_path / "mouse-human.sssom.tsv"
    env = {"KGAGENTS_NEO4J_URI": neo4j_settings.uri,
           "KGAGENTS_NEO4J_PASSWORD": neo4j_settings.password.get_secret_value(), "COLUMNS": "200"}
    args = ["match", "mouse", "human", "--no-llm", "--out", str(out), "--format", "sssom",
            *[a for f in FILES for a in ("--background", str(bg / f))]]
    no_map = CliRunner().invoke(app, args, env=env)
    assert no_map.exit_code == 0, no_map.output
    warning = " ".join(no_map.output.split())
    assert "the background ties no class of 'human', so it adds nothing" in warning
    assert "NCIT (7)" in warning and "'human' names its classes NCI_… (8)" in warning
    result = CliRunner().invoke(app, [*args, "--prefix-map", str(bg / "prefixes.json")], env=env)
    assert result.exit_code == 0, result.output
    assert "ties 0 of mouse, 5 of human" in " ".join(result.output.split()), result.output  # wrapped or not
    msdf = parse_sssom_table(str(out))
    reports = validate(msdf, [SchemaValidationType.JsonSchema, SchemaValidationType.PrefixMapCompleteness,
                              SchemaValidationType.StrictCurieFormat], fail_on_error=False)
    assert all(not report.results for report in reports.values()), reports
    assert len(msdf.df) == graph.run_text("MATCH (r:Run {job: 'matching'}) WITH r ORDER BY r.started_at DESC LIMIT 1 "
                                          "MATCH ()-[m:MATCHES {run_id: r.id}]->() RETURN count(m) AS n")[0]["n"]


def test_a_malformed_background_file_stops_the_command_before_anything_is_written(
        graph: Graph, neo4j_settings: Neo4jSettings, anatomy_like: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.sssom.tsv"
    bad.write_text("#curie_map:\n#  MA: http://purl.obolibrary.org/obo/MA_\n"
                   "subject_id\tpredicate_id\tobject_id\n MA:1\tskos:exactMatch\tMA:2\n", encoding="utf-8")
    before = graph.run_text("MATCH (n) RETURN count(n) AS n")[0]["n"]
    env = {"KGAGENTS_NEO4J_URI": neo4j_settings.uri,
           "KGAGENTS_NEO4J_PASSWORD": neo4j_settings.password.get_secret_value(), "COLUMNS": "200"}
    result = CliRunner().invoke(app, ["match", "mouse", "human", "--no-llm", "--background", str(bad)], env=env)
    assert result.exit_code != 0
    assert f"{bad}:3: column mapping_justification: required column(s) mapping_justification missing" in " ".join(
        result.output.split())
    assert graph.run_text("MATCH (n) RETURN count(n) AS n")[0]["n"] == before


def test_every_label_and_alternative_label_is_a_matching_key(graph: Graph, fixtures: Path) -> None:
    """Our general-vocabulary pair: classes whose only shared name is an alternative label on one side or both
    (Bus "Coach" / Omnibus "Coach", Engine "Motor" / Power unit "Motor", Car "Automobile" / Motor car) are matched by
    the lexical pre-match, whatever the embeddings say."""
    d = fixtures / "matching" / "vehicles"
    a, b = (load_ontology(graph, d / f).name for f in ("vehicles_a.ttl", "vehicles_b.ttl"))
    run = match_pair(graph, a, b, MatchSettings(mode="no_llm"), reference=d / "reference.rdf")
    va, vb = "http://example.org/vehicles-a#", "http://example.org/vehicles-b#"
    first = {pair: m["channels"][0] for pair, m in _by_pair(run).items()}
    for s, t in (("Bus", "Omnibus"), ("Engine", "PowerUnit"), ("Car", "MotorCar"), ("Motorcycle", "Motorbike"),
                 ("Driver", "Motorist"), ("carries", "transports")):
        assert first.get((va + s, vb + t), "").startswith("lexical:"), (s, t)


NAMES_BRIDGE = """@prefix obo: <http://purl.obolibrary.org/obo/> .
@prefix m: <http://example.org/mediator/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<http://example.org/names.owl> a owl:Ontology .
obo:MA_0000002 a owl:Class ; rdfs:subClassOf m:M_0000099 ; obo:IAO_0000589 "thigh (post-embryonic mouse)" .
m:M_0000099 a owl:Class ; rdfs:label "Lumbar Region" .
"""


def test_the_names_a_bridge_gives_a_class_it_ties_are_more_names_to_match_by(
        graph: Graph, anatomy_like: Path, tmp_path: Path) -> None:
    bridge = tmp_path / "names.ttl"
    bridge.write_text(NAMES_BRIDGE, encoding="utf-8")
    pair, mediated = (MOUSE + "MA_0000002", HUMAN + "NCI_C002"), (MOUSE + "MA_0000003", HUMAN + "NCI_C003")
    named = match_pair(graph, "mouse", "human", MatchSettings(mode="no_llm"), background=[bridge])
    unnamed = match_pair(graph, "mouse", "human", MatchSettings(mode="no_llm", background_names=False),
                         background=[bridge])
    # the bridge calls "upper leg" Uberon-style "thigh (post-embryonic mouse)": its qualifier dropped, a lexical key
    assert any(c.startswith("lexical") for c in _by_pair(named)[pair]["channels"])
    assert pair not in _by_pair(unnamed) or not any(c.startswith("lexical") for c in _by_pair(unnamed)[pair]["channels"])
    # the mediator's own label names no class: "lower back" is not made "Lumbar Region" by it
    assert mediated not in _by_pair(named) or _by_pair(named)[mediated]["channels"] == _by_pair(unnamed).get(
        mediated, {}).get("channels")
    edges = graph.run_text("MATCH (a)-[b:BACKGROUND {file: $file}]->(m) RETURN a.uri AS a, b.a_names AS a_names, "
                           "b.b_names AS b_names", file=str(bridge.resolve()))
    assert edges == [{"a": pair[0], "a_names": ["thigh"], "b_names": None}]
