"""`kgagents report` on a KGQA run and an extraction run (every job the library runs has a reader): the numbers
are the run's own, recomputed here from the traces and the graph."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kgagents.agent.extraction.agent import ExtractionAgent
from kgagents.cli import app
from kgagents.config import Neo4jSettings
from kgagents.graph.connection import Graph
from kgagents.jobs.kgqa import prepare_kg, run_questions
from kgagents.loaders.qa import read_questions
from kgagents.loaders.triples import load_triples
from kgagents.report import build_report


def test_a_kgqa_run_reports_confidence_against_the_share_answered_right(graph: Graph, fixtures: Path) -> None:
    load_triples(graph, fixtures / "kgqa" / "movies_kb.txt", kg="movies")
    prepare_kg(graph, "movies")
    questions = read_questions(fixtures / "kgqa" / "movies_questions.jsonl")
    run = run_questions(graph, "movies", questions, None, None, dataset="movies")
    report = build_report(graph, run.run_id)
    assert report.unit == "questions" and len(report.predictions) == len(questions)
    assert not any("no score reader" in n for n in report.notes)
    right = sum(1 for r in run.output.results if r.correct)
    lowest = report.curve()[-1]  # every answer accepted: the run's own Hits@1
    assert lowest.accepted == len(questions) and lowest.true_positives == right
    assert report.scores["hits_at_1"] == run.output.summary()["hits_at_1"]


def test_an_extraction_run_reports_what_it_wrote_and_its_scores(graph: Graph, neo4j_settings: Neo4jSettings,
                                                                shared_data: Path, tmp_path: Path) -> None:
    ontology = (shared_data / "extraction" / "text2kgbench" / "dbpedia_webnlg" / "ontologies"
                / "1_university_ontology.json")
    triples = [["AWH Engineering College", "academicStaffSize", "250"],
               ["AWH Engineering College", "country", "India"]]
    document = {"id": "d1", "text": "The AWH Engineering College in India has 250 academic staff.",
                "expected": triples, "triples": triples}
    run = ExtractionAgent(graph, None, {"mode": "no_llm"}, ontology=ontology, abox="report").run(
        {"documents": [document]})
    report = build_report(graph, run.run_id)
    assert report.scores["f1"] == run.scores["f1"] and "precision" in report.scores
    assertions = graph.run_text("MATCH (s:Instance)-[a:RELATES|HAS_VALUE]->() WHERE s.abox = 'report' "
                                "RETURN count(a) AS n")[0]["n"]
    assert assertions > 0 and any(f"{assertions} assertions in 1 A-Box" in n for n in report.notes)
    env = {"KGAGENTS_NEO4J_URI": neo4j_settings.uri,
           "KGAGENTS_NEO4J_PASSWORD": neo4j_settings.password.get_secret_value()}
    shown = CliRunner().invoke(app, ["report", run.run_id, "--out", str(tmp_path / "x.png")], env=env)
    assert shown.exit_code == 0, shown.output
    assert "no score reader" not in shown.output and f"f1 {run.scores['f1']:.4f}" in shown.output
