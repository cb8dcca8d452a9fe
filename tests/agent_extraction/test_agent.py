"""The extraction agent's control flow with the scripted chat model (no real LLM), on the real Neo4j.

The scripted replies stand in for a model's tool choices; what is checked is the agent's plan, the
handle mapping, the repair loop on structured feedback, the feedback ablation, the budget, and that
only valid instances reach the graph. Nothing here measures extraction quality.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import rdflib
from typer.testing import CliRunner

from kgagents.agent.extraction.jobs import extract_document, feed_document
from kgagents.agent.extraction.settings import ExtractionSettings
from kgagents.cli import app
from kgagents.config import Neo4jSettings
from kgagents.graph.connection import Graph
from tests.scripted_chat import ScriptedChatModel
from kgagents.loaders.triples import load_triples
from kgagents.tools.compiler import compile_ontology
from kgagents.tools.export import export_turtle, label_triples

pytestmark = pytest.mark.integration
TEXT = "The AWH Engineering College is located in Kuttikkattoor, India and it has 250 academic staff."


def call(tool: str, **args: object) -> str:
    return json.dumps({"tool": tool, "args": args})


DONE = json.dumps({"tool": "done"})


@pytest.fixture(scope="module")
def university(shared_data: Path):  # noqa: ANN201
    return compile_ontology(shared_data / "extraction" / "text2kgbench" / "dbpedia_webnlg" / "ontologies"
                            / "1_university_ontology.json")


def test_scripted_plan_entities_then_relations_with_handles(graph: Graph, university) -> None:  # noqa: ANN001
    chat = ScriptedChatModel([
        call("create_University", label="AWH Engineering College"),
        call("create_Country", label="India"),
        call("create_City", label="Kuttikkattoor"),
        DONE,
        call("add_country", subject_iri="E1", object_iri="E2"),
        call("add_city", subject_iri="E1", object_iri="E3"),
        call("add_academicStaffSize", subject_iri="E1", value="250"),
        DONE,
    ])
    result = extract_document(graph, university, TEXT, None, chat, abox="doc1")
    assert chat.remaining == 0 and result.rejected == 0 and not result.budget_exhausted
    assert [c.step for c in result.calls] == ["entities"] * 3 + ["attributes and relations"] * 3
    assert label_triples(graph, "doc1") == [("AWH Engineering College", "academicStaffSize", "250"),
                                           ("AWH Engineering College", "city", "Kuttikkattoor"),
                                           ("AWH Engineering College", "country", "India")]
    assert [v["ok"] for v in result.validation] == [True, True, True]
    first_prompt = chat.calls[0]["messages"][0]["content"]
    assert TEXT in first_prompt and "create_University(label)" in first_prompt and "add_country" not in first_prompt
    assert "create_University" in chat.calls[0]["json_schema"]["properties"]["tool"]["enum"]
    second_step_prompt = chat.calls[4]["messages"][0]["content"]
    assert 'E1 = University "AWH Engineering College"' in second_step_prompt
    assert "add_country(subject_iri, object_iri): subject: University; object: Country" \
        in second_step_prompt


def test_scripted_repair_after_structured_feedback(graph: Graph, university) -> None:  # noqa: ANN001
    chat = ScriptedChatModel([
        call("create_University", label="AWH Engineering College"), DONE,
        call("add_academicStaffSize", subject_iri="E1", value="250 academic staff"),
        call("add_academicStaffSize", subject_iri="E1", value="250"), DONE,
    ])
    result = extract_document(graph, university, TEXT, None, chat, abox="doc2")
    assert [c.result.get("error_type") for c in result.calls] == [None, "datatype_violation", None]
    repair_prompt = chat.calls[3]["messages"][0]["content"]
    assert "datatype_violation" in repair_prompt and "xsd:decimal" in repair_prompt
    assert label_triples(graph, "doc2") == [("AWH Engineering College", "academicStaffSize", "250")]


def test_scripted_feedback_off_shows_only_failure(graph: Graph, university) -> None:  # noqa: ANN001
    chat = ScriptedChatModel([
        call("create_University", label="AWH"), DONE,
        call("add_academicStaffSize", subject_iri="E1", value="many"), DONE,
    ])
    result = extract_document(graph, university, TEXT, ExtractionSettings(feedback=False), chat, abox="doc3")
    assert result.calls[1].result["error_type"] == "datatype_violation"  # the run still records why
    prompt = chat.calls[3]["messages"][0]["content"]
    assert 'Result of your last call: {"ok": false}' in prompt and "datatype_violation" not in prompt


def test_scripted_violations_never_reach_the_graph(graph: Graph, university) -> None:  # noqa: ANN001
    chat = ScriptedChatModel([
        call("create_Country", label="India"), call("create_University", label="AWH"), DONE,
        call("add_country", subject_iri="E1", object_iri="E2"),  # a Country cannot have a country
        call("add_founder", subject_iri="E2", object_iri="E1"),  # founder must be a Person
        call("add_country", subject_iri="E2", object_iri="India"),  # not an IRI
        "I think the college is in India.",
        DONE,
    ])
    result = extract_document(graph, university, TEXT, None, chat, abox="doc4")
    assert [c.result.get("error_type") for c in result.calls[2:]] == [
        "domain_violation", "range_violation", "unknown_instance"]
    assert result.unparsed_replies == 1
    assert label_triples(graph, "doc4") == []


def test_scripted_budget_and_repeated_calls(graph: Graph, university) -> None:  # noqa: ANN001
    looping = ScriptedChatModel([call("create_Country", label=f"C{i}") for i in range(10)])
    result = extract_document(graph, university, TEXT, ExtractionSettings(max_steps=4), looping, abox="doc5")
    assert result.budget_exhausted and len(result.calls) == 4 and looping.remaining == 6
    stuck = ScriptedChatModel([call("create_Country", label="India")] * 3 + [call("add_country", subject_iri="x",
                                                                                 object_iri="y")] * 3)
    result = extract_document(graph, university, TEXT, ExtractionSettings(max_repeats=2), stuck, abox="doc6")
    assert len(result.calls) == 6 and not result.budget_exhausted  # each step ends after two repeats


def test_scripted_grounding_adds_owl_same_as(graph: Graph, shared_data: Path, fixtures: Path) -> None:
    load_triples(graph, fixtures / "kg" / "triples_small.txt", kg="movies")
    film = compile_ontology(shared_data / "extraction" / "text2kgbench" / "dbpedia_webnlg" / "ontologies"
                            / "19_film_ontology.json")
    chat = ScriptedChatModel([call("create_Film", label="Kismet"), call("create_Person", label="William Dieterle"),
                              call("create_Person", label="Nobody Known"), DONE,
                              call("add_director", subject_iri="E1", object_iri="E2"), DONE])
    settings = ExtractionSettings(ground_kg="movies")
    result = extract_document(graph, film, "Kismet was directed by William Dieterle.", settings, chat, abox="doc7")
    assert sorted((g["label"], g["id"], g["score"]) for g in result.grounded) == [
        ("Kismet", "Kismet", 1.0), ("William Dieterle", "William Dieterle", 1.0)]
    turtle = rdflib.Graph().parse(data=export_turtle(graph, "doc7"), format="turtle")
    same = {str(o) for o in turtle.objects(None, rdflib.OWL.sameAs)}
    assert same == {"urn:kgagents:kg:movies:Kismet", "urn:kgagents:kg:movies:William%20Dieterle"}


def test_no_llm_feed_document_reports_accepted_and_rejected(graph: Graph, university) -> None:  # noqa: ANN001
    result = feed_document(graph, university, [("AWH_Engineering_College", "academicStaffSize", "250"),
                                               ("AWH_Engineering_College", "established", "2001"),
                                               ("AWH_Engineering_College", "colour", "blue")], abox="feed")
    assert result.label.startswith("no-llm")
    assert result.accepted == [("AWH_Engineering_College", "academicStaffSize", "250")]
    assert [(r["triple"][1], r["error_type"]) for r in result.rejected] == [
        ("established", "datatype_violation"), ("colour", "unknown_tool")]


def test_cli_extract_without_llm(graph: Graph, neo4j_settings: Neo4jSettings, shared_data: Path,
                                 tmp_path: Path) -> None:
    onto = shared_data / "extraction" / "text2kgbench" / "dbpedia_webnlg" / "ontologies" / "1_university_ontology.json"
    env = {"KGAGENTS_NEO4J_URI": neo4j_settings.uri,
           "KGAGENTS_NEO4J_PASSWORD": neo4j_settings.password.get_secret_value()}
    runner = CliRunner()
    nothing = runner.invoke(app, ["extract", "--ontology", str(onto), "--text", TEXT, "--no-llm"], env=env)
    assert nothing.exit_code == 1 and "--triples" in nothing.output and "Traceback" not in nothing.output
    triples = tmp_path / "t.tsv"
    triples.write_text("AWH\tcountry\tIndia\nAWH\tacademicStaffSize\tmany\n")
    out = tmp_path / "abox.ttl"
    fed = runner.invoke(app, ["extract", "--ontology", str(onto), "--triples", str(triples), "--abox", "cli",
                              "--turtle", str(out)], env=env)
    assert fed.exit_code == 0, fed.output
    flat = " ".join(fed.output.split())
    assert "1 accepted, 1 rejected" in flat and "datatype_violation" in flat
    assert len(rdflib.Graph().parse(out, format="turtle")) > 0
    bad = tmp_path / "bad.tsv"
    bad.write_text("AWH\tcountry\n")
    failed = runner.invoke(app, ["extract", "--ontology", str(onto), "--triples", str(bad)], env=env)
    assert failed.exit_code == 1 and "bad.tsv:1" in failed.output
