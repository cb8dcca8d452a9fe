"""Wikidata-shaped KGs: the QALD-10 one-hop graph built from its gold triples, question files run against whatever
is loaded with coverage reported, and the CLI commands (real Neo4j, real MiniLM, no LLM)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.cli import app
from kgagents.config import Neo4jSettings
from kgagents.graph.connection import Graph
from kgagents.jobs.kgqa import prepare_kg, run_questions
from kgagents.loaders.kg_common import kg_stats
from kgagents.loaders.qa import read_questions
from kgagents.loaders.qald_graph import load_qald_onehop
from kgagents.loaders.wikidata import load_wikidata_nt

runner = CliRunner()


def _env(settings: Neo4jSettings) -> dict[str, str]:
    return {"KGAGENTS_NEO4J_URI": settings.uri, "KGAGENTS_NEO4J_PASSWORD": settings.password.get_secret_value()}


def test_qald_onehop_graph_holds_the_gold_triples_and_every_question_is_covered(
        graph: Graph, shared_data: Path, tmp_path: Path) -> None:
    path = shared_data / "kgqa" / "wikidata_questions" / "qald_10-en_onehop_gold_triples.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    gold = {tuple(t) for r in raw for t in r["gold_triples"]}
    entities = {x for h, _, t in gold for x in (h, t)}
    load_qald_onehop(graph, path, kg="qald1", nt_path=tmp_path / "qald1.nt")
    stats = kg_stats(graph, "qald1")
    assert (stats["triples"], stats["entities"]) == (len(gold), len(entities))
    labelled = graph.run_text("MATCH (e:Entity {kg: 'qald1'}) WHERE e.name <> e.id RETURN count(e) AS n")[0]["n"]
    assert labelled == len({q for r in raw for q in r["labels"]} & entities)
    prepare_kg(graph, "qald1")
    questions = read_questions(path)
    run = run_questions(graph, "qald1", questions, KGQASettings(), None, workers=2)
    summary = run.output.summary()
    assert summary["questions"] == len(raw) == 72
    assert summary["coverage"]["topic_and_gold_in_kg"] == 72
    assert summary["observation_answer_recall"] == 1.0  # the answers are one hop from the topic, always observed


def test_kgqa_run_reports_coverage_against_whatever_is_loaded(graph: Graph, neo4j_settings: Neo4jSettings,
                                                              fixtures: Path) -> None:
    load_wikidata_nt(graph, fixtures / "kgqa" / "wikidata_small.nt", kg="wd")
    env = _env(neo4j_settings)
    result = runner.invoke(app, ["kgqa", "prepare", "--kg", "wd"], env=env)
    assert result.exit_code == 0, result.output
    # T-REx format: two questions about Q42 (one answer, Cambridge, is an entity of the KG), one about Q7259 (absent)
    trex = fixtures / "kgqa" / "trex_small.json"
    result = runner.invoke(app, ["kgqa", "run", str(trex), "--kg", "wd", "--no-llm"], env=env)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "[no-llm] 3 questions" in text
    assert "topic entity in the KG for 2, a gold answer for 1, both for 1" in text


def test_ask_answers_plain_words_and_learn_refuses_a_test_split(graph: Graph, neo4j_settings: Neo4jSettings,
                                                                 fixtures: Path, tmp_path: Path) -> None:
    env = _env(neo4j_settings)
    path = fixtures / "kgqa" / "movies_kb.txt"
    assert runner.invoke(app, ["load", "kg", str(path), "--format", "triples", "--name", "m"], env=env).exit_code == 0
    assert runner.invoke(app, ["kgqa", "prepare", "--kg", "m"], env=env).exit_code == 0
    result = runner.invoke(app, ["ask", "who directed Kismet", "--kg", "m", "--no-llm"], env=env)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "topic: 'Kismet' → Kismet" in text and "[no-llm] answer: " in text
    assert "path: " in text and "observed paths (best first)" in text and "MATCH (t:QATrace" in text
    nothing = runner.invoke(app, ["ask", "who directed Nobody At All", "--kg", "m", "--no-llm"], env=env)
    assert nothing.exit_code == 0 and "no topic entity of KG 'm' found" in " ".join(nothing.output.split())
    held_out = tmp_path / "held_out.jsonl"
    held_out.write_text((fixtures / "kgqa" / "movies_questions.jsonl").read_text(encoding="utf-8")
                        .replace('"split": "dev"', '"split": "test"'), encoding="utf-8")
    refused = runner.invoke(app, ["kgqa", "learn", str(held_out), "--kg", "m"], env=env)
    assert refused.exit_code == 1 and "marked as a test split" in " ".join(refused.output.split())
    assert "Traceback" not in refused.output
    assert graph.run_text("MATCH (x:PathExample) RETURN count(x) AS n")[0]["n"] == 0
    learned = runner.invoke(app, ["kgqa", "learn", str(fixtures / "kgqa" / "movies_questions.jsonl"), "--kg", "m"],
                            env=env)
    assert learned.exit_code == 0 and "3 of 4 questions learned" in " ".join(learned.output.split())


def test_a_wikidata_subgraph_from_id_tables_to_answers(graph: Graph, neo4j_settings: Neo4jSettings,
                                                        fixtures: Path) -> None:
    """A user's path: id triple tables with label tables loaded, bootstrapped (no labelled question), questions
    naming their topic by QID answered from a TSV file."""
    env = _env(neo4j_settings)
    folder = fixtures / "kgqa" / "wikidata_tables"
    loaded = runner.invoke(app, ["load", "wikidata-tables", str(folder / "triples.txt"), "--name", "wdt",
                                 "--relation-labels", str(folder / "relations.json"), "--entity-types",
                                 str(folder / "types.json"), "--type-labels", str(folder / "type_labels.json")],
                           env=env)
    assert loaded.exit_code == 0, loaded.output
    assert "wdt: 17 entities (0 with a label, 17 with types), 4 relations, 28 triples" in " ".join(
        loaded.output.split())
    booted = runner.invoke(app, ["kgqa", "bootstrap", "--kg", "wdt", "--no-llm", "--set", "topics=17"], env=env)
    text = " ".join(booted.output.split())
    assert booted.exit_code == 0, booted.output
    assert "template questions; templates only (no chat model)" in text and "0 labelled and" in text
    assert "no relation labels" not in text
    run = runner.invoke(app, ["kgqa", "run", str(folder / "questions.tsv"), "--kg", "wdt", "--no-llm"], env=env)
    assert run.exit_code == 0, run.output
    assert "2 questions: Hits@1 1.0" in " ".join(run.output.split())
    bad = runner.invoke(app, ["kgqa", "bootstrap", "--kg", "wdt", "--no-llm", "--set", "topics=0"], env=env)
    assert bad.exit_code != 0 and "Traceback" not in bad.output and "topics" in bad.output


def test_relations_without_labels_are_said_to_have_none(graph: Graph, neo4j_settings: Neo4jSettings,
                                                         fixtures: Path) -> None:
    env = _env(neo4j_settings)
    folder = fixtures / "kgqa" / "wikidata_tables"
    loaded = runner.invoke(app, ["load", "wikidata-tables", str(folder / "triples.txt"), "--name", "bare"], env=env)
    assert loaded.exit_code == 0, loaded.output
    assert "4 relation(s) have no label" in " ".join(loaded.output.split())
    booted = runner.invoke(app, ["kgqa", "bootstrap", "--kg", "bare", "--no-llm", "--set", "topics=17"], env=env)
    assert booted.exit_code == 0 and "has no relation labels" in " ".join(booted.output.split())
