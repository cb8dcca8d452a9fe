"""The extraction agent's control flow with the scripted chat model (no real LLM), on the real Neo4j.

The scripted replies stand in for a model's answers; what is checked is the three steps (entities, facts,
repairs), the handle mapping, the concrete repair step built from the tools' structured feedback, the feedback
ablation, the budget, the run record, and that only valid instances reach the graph. Nothing here measures
extraction quality.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import rdflib
from typer.testing import CliRunner

from kgagents.agent.extraction.agent import ExtractionAgent
from kgagents.cli import app
from kgagents.config import Neo4jSettings
from kgagents.graph.connection import Graph
from kgagents.graph.runs import RunStore
from kgagents.jobs.extraction import extract_document, feed_document
from kgagents.loaders.triples import load_triples
from kgagents.tools.compiler import compile_ontology
from kgagents.tools.export import export_turtle, label_triples
from tests.scripted_chat import ScriptedChatModel

pytestmark = pytest.mark.integration
TEXT = "The AWH Engineering College is located in Kuttikkattoor, India and it has 250 academic staff."


def entities(*pairs: tuple[str, str]) -> str:
    return json.dumps({"entities": [{"name": n, "class": c} for n, c in pairs]})


def facts(*triples: tuple[str, str, str]) -> str:
    return json.dumps({"facts": [{"subject": s, "relation": r, "object": o} for s, r, o in triples]})


def fact(subject: str, relation: str, obj: str, **classes: str) -> str:
    return json.dumps({"subject": subject, "relation": relation, "object": obj, **classes})


DROP = json.dumps({"drop": True})
YES, NO = json.dumps({"answer": "yes"}), json.dumps({"answer": "no"})


@pytest.fixture(scope="module")
def university(shared_data: Path):  # noqa: ANN201
    return compile_ontology(shared_data / "extraction" / "text2kgbench" / "dbpedia_webnlg" / "ontologies"
                            / "1_university_ontology.json")


def test_entities_then_facts_with_handles(graph: Graph, university) -> None:  # noqa: ANN001
    chat = ScriptedChatModel([
        entities(("AWH Engineering College", "University"), ("India", "Country"), ("Kuttikkattoor", "City")),
        facts(("E1", "country", "E2"), ("E1", "city", "E3"), ("E1", "academicStaffSize", "250")),
    ])
    run = extract_document(graph, university, TEXT, chat=chat, abox="doc1")
    [doc] = run.output
    assert chat.remaining == 0 and not doc.rejected and doc.repairs == 0
    assert [c["step"] for c in doc.calls] == ["entities"] * 3 + ["facts"] * 3
    assert doc.triples == label_triples(graph, "doc1") == [
        ("AWH Engineering College", "academicStaffSize", "250"), ("AWH Engineering College", "city", "Kuttikkattoor"),
        ("AWH Engineering College", "country", "India")]
    assert [v["ok"] for v in doc.validation] == [True, True, True]
    typing_prompt, facts_prompt = (c["messages"][0]["content"] for c in chat.calls)
    assert TEXT in typing_prompt and "- city: University -> City" in typing_prompt
    assert "- academicStaffSize: University -> number" in typing_prompt
    entity_schema = chat.calls[0]["json_schema"]["properties"]["entities"]["items"]
    assert "University" in entity_schema["properties"]["class"]["enum"]
    assert "E1 = AWH Engineering College (University)" in facts_prompt
    assert "country" in chat.calls[1]["json_schema"]["properties"]["facts"]["items"]["properties"]["relation"]["enum"]
    # every prompt of a document starts with the same block (the server's prompt cache reuses it)
    block = typing_prompt.split("\n\nStep 1")[0]
    assert facts_prompt.startswith(block)


def test_the_run_is_recorded_with_its_ledger(graph: Graph, university) -> None:  # noqa: ANN001
    chat = ScriptedChatModel([entities(("AWH Engineering College", "University")),
                              facts(("E1", "academicStaffSize", "250"))], model="scripted-model")
    run = extract_document(graph, university, TEXT, chat=chat, abox="ledger")
    stored = RunStore(graph).get(run.run_id)
    assert stored is not None and stored.job == "extraction" and stored.status.value == "finished"
    assert stored.model == "scripted-model" and stored.mode == "full"
    assert stored.get("triples_written") == 1 and stored.get("ontology") == "ont_1_university"
    assert run.llm.calls == 2 and stored.get("llm_calls") == 2


def test_objects_are_typed_by_the_relation_signature(graph: Graph, university) -> None:  # noqa: ANN001
    chat = ScriptedChatModel([entities(("AWH Engineering College", "University")),
                              facts(("E1", "state", "Kerala"), ("AWH Engineering College", "country", "India"))])
    [doc] = extract_document(graph, university, TEXT, chat=chat, abox="typed").output
    assert [(e["label"], e["class_label"]) for e in doc.entities] == [
        ("AWH Engineering College", "University"), ("Kerala", "State"), ("India", "Country")]
    assert ("AWH Engineering College", "state", "Kerala") in doc.triples


def test_a_refused_fact_gets_one_concrete_repair_for_the_model_to_confirm(graph: Graph, university) -> None:  # noqa: ANN001
    chat = ScriptedChatModel([
        entities(("AWH Engineering College", "University"), ("Kuttikkattoor", "Place")),
        facts(("E1", "city", "E2"), ("E1", "established", "June 5, 2001"), ("E1", "academicStaffSize", "many")),
        YES,  # city → the same fact with Kuttikkattoor re-typed as a City
        NO,  # established → 2001-06-05
        fact("E1", "academicStaffSize", "250"),  # no number in "many": the model repairs from the hint
    ])
    [doc] = extract_document(graph, university, TEXT, chat=chat, abox="repair").output
    assert [c["result"].get("error_type") for c in doc.calls if c["step"] == "facts"] == [
        "range_violation", "datatype_violation", "datatype_violation"]
    city, date, staff = (c["messages"][0]["content"] for c in chat.calls[2:])
    assert "range_violation: city of a University must be of class City" in city
    assert ("Repaired fact: {subject: AWH Engineering College, relation: city, object: Kuttikkattoor (as a City)}"
            in city)
    assert chat.calls[2]["json_schema"]["properties"]["answer"]["enum"] == ["yes", "no"]
    assert "Repaired fact: {subject: AWH Engineering College, relation: established, object: 2001-06-05}" in date
    assert "Repair: write the object as number" in staff and '{"drop": true}' in staff
    assert doc.repairs == 3 and set(doc.triples) == {("AWH Engineering College", "academicStaffSize", "250"),
                                                    ("AWH Engineering College", "city", "Kuttikkattoor")}
    assert {(e["label"], e["class_label"]) for e in doc.entities} >= {("Kuttikkattoor", "Place"),
                                                                      ("Kuttikkattoor", "City")}


def test_the_repair_prefers_a_swap_then_the_relation_named_after_the_class(graph: Graph, university) -> None:  # noqa: ANN001
    chat = ScriptedChatModel([
        entities(("AWH Engineering College", "University"), ("India", "Country"), ("Kerala", "City")),
        facts(("E2", "country", "E1"), ("E1", "state", "E3")), NO, NO])
    extract_document(graph, university, TEXT, chat=chat, abox="repair2")
    swap, named = (c["messages"][0]["content"] for c in chat.calls[2:])
    assert "Repaired fact: {subject: AWH Engineering College, relation: country, object: India}" in swap
    assert "Repaired fact: {subject: AWH Engineering College, relation: city, object: Kerala}" in named


def test_without_relation_repair_the_entity_is_re_typed_and_the_models_relation_kept(  # noqa: ANN001
        graph: Graph, university) -> None:
    chat = ScriptedChatModel([
        entities(("AWH Engineering College", "University"), ("Kerala", "City")), facts(("E1", "state", "E2")), YES])
    [doc] = extract_document(graph, university, TEXT, chat=chat, settings={"relation_repair": False},
                             abox="retype").output
    retyped = chat.calls[2]["messages"][0]["content"]
    assert "Repaired fact: {subject: AWH Engineering College, relation: state, object: Kerala (as a State)}" in retyped
    assert set(doc.triples) == {("AWH Engineering College", "state", "Kerala")}


def test_without_object_re_typing_a_range_violation_is_left_out_without_spending_a_turn(  # noqa: ANN001
        graph: Graph, university) -> None:
    chat = ScriptedChatModel([
        entities(("AWH Engineering College", "University"), ("Kerala", "City")),
        facts(("E1", "state", "E2"), ("E1", "established", "June 5, 2001")), YES])
    [doc] = extract_document(graph, university, TEXT, chat=chat, abox="noretype",
                             settings={"relation_repair": False, "retype_objects": False, "max_repairs": 1}).output
    assert [c["result"].get("error_type") for c in doc.calls if c["step"] == "facts"] == [
        "range_violation", "datatype_violation"]
    assert chat.remaining == 0 and doc.repairs == 1  # the one turn went to the datatype, the only other refusal
    assert "established" in chat.calls[2]["messages"][0]["content"]
    assert [r for _, r, _ in doc.triples] == ["established"]


def test_names_that_share_no_word_with_the_text_are_left_out(graph: Graph, university) -> None:  # noqa: ANN001
    chat = ScriptedChatModel([
        entities(("AWH Engineering College", "University"), ("Thurleigh", "City"), ("India", "Country")),
        facts(("E1", "country", "E2"), ("E1", "academicStaffSize", "16800"), ("E1", "city", "Bedford"))])
    [doc] = extract_document(graph, university, TEXT, chat=chat, settings={"require_in_text": True},
                             abox="intext").output
    assert [e["label"] for e in doc.entities] == ["AWH Engineering College", "India"]
    assert doc.triples == [("AWH Engineering College", "country", "India")]
    assert doc.not_in_text == [
        "Thurleigh", "{subject: AWH Engineering College, relation: academicStaffSize, object: 16800}",
        "{subject: AWH Engineering College, relation: city, object: Bedford}"]
    assert [c["step"] for c in doc.calls] == ["entities", "entities", "facts"]  # nothing else reached a tool


def test_feedback_off_shows_only_that_a_fact_was_refused(graph: Graph, university) -> None:  # noqa: ANN001
    chat = ScriptedChatModel([entities(("AWH", "University")), facts(("E1", "established", "in 2001")), DROP])
    run = extract_document(graph, university, TEXT, chat=chat, settings={"feedback": False}, abox="nofeedback")
    [doc] = run.output
    assert doc.rejected[0]["result"]["error_type"] == "datatype_violation"  # the run still records why
    prompt = chat.calls[2]["messages"][0]["content"]
    assert "rejected your fact {subject: E1, relation: established, object: in 2001}." in prompt
    assert "datatype_violation" not in prompt and "Repair:" not in prompt
    assert doc.triples == [] and doc.repairs == 1


def test_violations_never_reach_the_graph_and_the_budget_holds(graph: Graph, university) -> None:  # noqa: ANN001
    chat = ScriptedChatModel([
        entities(("India", "Country"), ("AWH", "University")),  # the University becomes E1: most relations apply to it
        facts(("E2", "country", "E1"), ("E1", "founder", "E2"), ("E1", "established", "soon")),
        "I think the college is in India.",  # unusable repair reply
        NO,  # the concrete repair (country, named after the class) is not what the text says
    ])
    run = extract_document(graph, university, TEXT, chat=chat, settings={"max_repairs": 2}, abox="bad")
    [doc] = run.output
    assert [c["result"].get("error_type") for c in doc.calls if c["step"] == "facts"] == [
        "domain_violation", "range_violation", "datatype_violation"]
    assert chat.remaining == 0 and doc.repairs == 2 and doc.unparsed_replies == ["repair"]
    assert label_triples(graph, "bad") == [] and [e["label"] for e in doc.entities] == ["AWH", "India"]


def test_an_unusable_reply_writes_nothing_and_is_counted(graph: Graph, university) -> None:  # noqa: ANN001
    chat = ScriptedChatModel(["no JSON here", json.dumps({"facts": "none"})])
    [doc] = extract_document(graph, university, TEXT, chat=chat, abox="unusable").output
    assert doc.unparsed_replies == ["entities", "facts"] and doc.calls == [] and doc.triples == []


def test_several_documents_each_in_its_own_abox_and_scored(graph: Graph, university) -> None:  # noqa: ANN001
    chat = ScriptedChatModel([entities(("AWH", "University")), facts(("E1", "academicStaffSize", "250")),
                              entities(("MIT", "University")), facts(("E1", "country", "United States"))])
    agent = ExtractionAgent(graph, chat, ontology=university, abox="corpus")
    run = agent.run({"documents": [
        {"id": "a", "text": "AWH has 250 academic staff.", "expected": [("AWH", "academicStaffSize", "250")]},
        {"id": "b", "text": "MIT is in the United States.", "expected": [("MIT", "country", "United_States"),
                                                                        ("MIT", "city", "Cambridge")]}]})
    assert [d.abox for d in run.output] == ["corpus:a", "corpus:b"]
    assert run.output[0].scores["f1"] == 1.0 and run.output[1].scores["precision"] == 1.0
    assert run.output[1].scores["recall"] == 0.5
    assert run.metric == "f1" and run.score == pytest.approx((1.0 + 2 / 3) / 2)
    assert RunStore(graph).get(run.run_id).score == pytest.approx(run.score)


def test_grounding_adds_owl_same_as(graph: Graph, shared_data: Path, fixtures: Path) -> None:
    load_triples(graph, fixtures / "kg" / "triples_small.txt", kg="movies")
    film = compile_ontology(shared_data / "extraction" / "text2kgbench" / "dbpedia_webnlg" / "ontologies"
                            / "19_film_ontology.json")
    chat = ScriptedChatModel([entities(("Kismet", "Film"), ("William Dieterle", "Person"), ("Nobody Known", "Person")),
                              facts(("E1", "director", "E2"))])
    run = extract_document(graph, film, "Kismet was directed by William Dieterle.", chat=chat,
                           settings={"ground_kg": "movies"}, abox="doc7")
    assert sorted((g["label"], g["id"], g["score"]) for g in run.output[0].grounded) == [
        ("Kismet", "Kismet", 1.0), ("William Dieterle", "William Dieterle", 1.0)]
    turtle = rdflib.Graph().parse(data=export_turtle(graph, "doc7"), format="turtle")
    same = {str(o) for o in turtle.objects(None, rdflib.OWL.sameAs)}
    assert same == {"urn:kgagents:kg:movies:Kismet", "urn:kgagents:kg:movies:William%20Dieterle"}


def test_no_llm_feed_document_reports_accepted_and_rejected(graph: Graph, university) -> None:  # noqa: ANN001
    run = feed_document(graph, university, [("AWH_Engineering_College", "academicStaffSize", "250"),
                                            ("AWH_Engineering_College", "established", "2001"),
                                            ("AWH_Engineering_College", "colour", "blue")], abox="feed")
    [doc] = run.output
    assert run.mode == "no_llm" and run.model.startswith("none (no_llm")
    assert doc.triples == [("AWH_Engineering_College", "academicStaffSize", "250")]
    assert [(c["args"]["triple"][1], c["result"]["error_type"]) for c in doc.rejected] == [
        ("established", "datatype_violation"), ("colour", "unknown_tool")]
    assert RunStore(graph).get(run.run_id).mode == "no_llm"


def test_cli_extract_without_llm_writes_a_run(graph: Graph, neo4j_settings: Neo4jSettings, shared_data: Path,
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
                              "--turtle", str(out), "--no-retype-objects", "--require-in-text"], env=env)
    assert fed.exit_code == 0, fed.output
    flat = " ".join(fed.output.split())
    assert "1 triples" in flat and "1 rejected" in flat and "datatype_violation" in flat
    assert len(rdflib.Graph().parse(out, format="turtle")) > 0
    [run] = RunStore(graph).latest(job="extraction")
    assert run.status.value == "finished" and run.mode == "no_llm" and run.get("triples_written") == 1
    assert run.get("retype_objects") is False and run.get("require_in_text") is True  # the options' settings
    assert run.get("relation_repair") is True  # not given: the setting's default
    bad = tmp_path / "bad.tsv"
    bad.write_text("AWH\tcountry\n")
    failed = runner.invoke(app, ["extract", "--ontology", str(onto), "--triples", str(bad)], env=env)
    assert failed.exit_code == 1 and "bad.tsv:1" in failed.output
    nowhere = runner.invoke(app, ["extract", "--ontology", str(onto), "--triples", str(triples), "--turtle",
                                  str(tmp_path / "missing" / "x.ttl")], env=env)
    assert nowhere.exit_code == 1 and "does not exist" in " ".join(nowhere.output.split())
    assert len(RunStore(graph).latest(job="extraction")) == 1  # checked before the first write


def test_a_subject_of_the_wrong_class_is_replaced_by_the_texts_entity_the_relation_applies_to(
        graph: Graph, shared_data: Path) -> None:
    film = compile_ontology(shared_data / "extraction" / "text2kgbench" / "dbpedia_webnlg" / "ontologies"
                            / "19_film_ontology.json")
    chat = ScriptedChatModel([entities(("Harold French", "Person"), ("English Without Tears", "Film")),
                              facts(("E2", "director", "Harold French")), YES])
    [doc] = extract_document(graph, film, "English Without Tears was directed by Harold French.", chat=chat,
                             abox="film").output
    assert [e["label"] for e in doc.entities] == ["English Without Tears", "Harold French"]  # the Film is E1
    assert ("Repaired fact: {subject: English Without Tears, relation: director, object: Harold French}"
            in chat.calls[2]["messages"][0]["content"])
    assert doc.triples == [("English Without Tears", "director", "Harold French")]


def test_the_demo_job_extracts_with_a_solved_example(graph: Graph, shared_data: Path, tmp_path: Path) -> None:
    from kgagents.jobs.demo import DemoSettings, extraction_job

    chat = ScriptedChatModel([entities(("AWH Engineering College", "University")),
                              facts(("E1", "academicStaffSize", "250"))])
    job = extraction_job(graph, chat, shared_data, tmp_path, DemoSettings(extraction_sentences=1, seed=3))
    prompt = chat.calls[0]["messages"][0]["content"]
    assert "Example text:" in prompt and "Its facts:" in prompt and "extracted through the tools" in job.data
    assert RunStore(graph).get(job.run_id).get("llm_calls") == 2


def test_the_check_keeps_confirmed_facts_and_adds_confirmed_proposals(graph: Graph, university) -> None:  # noqa: ANN001
    confirmed = ("relation: city, object: Kuttikkattoor", "relation: headquarter, object: Kuttikkattoor")

    def lean(messages: list[dict[str, str]]) -> dict[str, float]:
        asked = messages[-1]["content"].split("Check:")[-1]
        yes = any(c in asked for c in confirmed)
        return {"yes": -0.05 if yes else -3.0, "no": -3.0 if yes else -0.05}

    chat = ScriptedChatModel([
        entities(("AWH Engineering College", "University"), ("India", "Country"), ("Kuttikkattoor", "City")),
        facts(("E1", "country", "E2"), ("E1", "city", "E3")), *["yes"] * 40], logprobs=lean)
    settings = {"check_min_log_odds": 0.0, "propose_min_log_odds": 0.0}
    [doc] = extract_document(graph, university, TEXT, chat=chat, settings=settings, abox="checked").output
    assert doc.triples == label_triples(graph, "checked") == [  # "country" was stated but not confirmed
        ("AWH Engineering College", "city", "Kuttikkattoor"), ("AWH Engineering College", "headquarter", "Kuttikkattoor")]
    stated = [c for c in doc.checks if c["source"] == "stated"]
    proposed = [c for c in doc.checks if c["source"] == "proposed"]
    assert [(c["relation"], c["kept"]) for c in stated] == [("country", False), ("city", True)]
    assert {c["relation"] for c in proposed if c["kept"]} == {"headquarter"}
    assert all((c["subject"], c["relation"]) != ("AWH Engineering College", "city") for c in proposed)  # stated
    assert all(c["subject"] != c["object"] for c in proposed) and {"capital", "legislature"} <= {
        c["relation"] for c in proposed}  # every relation whose signature fits two of the text's entities
    off = ScriptedChatModel([entities(("AWH Engineering College", "University"), ("India", "Country")),
                             facts(("E1", "country", "E2"))])
    [plain] = extract_document(graph, university, TEXT, chat=off, abox="unchecked").output
    assert not plain.checks and plain.triples == [("AWH Engineering College", "country", "India")]  # no floor: no call
