"""The path memory knows what it does not know (a 187-triple books KG made for these tests, real Neo4j, real
encoders, no LLM): preparing the KG, learning six labelled questions of three kinds, and bootstrapping a memory
from the KG itself never lower Hits@1 on the questions the memory does not cover, while the kinds it learned are
answered from it; every answer says whether the memory voted or abstained."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kgagents.agent.kgqa.pathmemory import PathMemory
from kgagents.agent.kgqa.results import QuestionResult
from kgagents.agent.kgqa.settings import BootstrapSettings, KGQASettings
from kgagents.config import Neo4jSettings
from kgagents.graph.connection import Graph
from kgagents.graph.schema import ensure_schema
from kgagents.jobs.kgqa import learn, prepare_kg, run_questions
from kgagents.jobs.kgqa_bootstrap import bootstrap
from kgagents.loaders.qa import Question, read_questions
from kgagents.loaders.triples import load_triples

KG = "books"


@pytest.fixture(scope="module")
def books(neo4j_settings: Neo4jSettings, fixtures: Path) -> Iterator[tuple[Graph, list[Question]]]:
    """The books KG loaded but NOT prepared (the tests prepare it, in order), and its questions."""
    with Graph(neo4j_settings) as g:
        g.run("admin/wipe")
        ensure_schema(g)
        load_triples(g, fixtures / "kgqa" / "books_kb.txt", kg=KG)
        yield g, read_questions(fixtures / "kgqa" / "books_questions.jsonl")


def _answer(graph: Graph, questions: list[Question]) -> list[QuestionResult]:
    return run_questions(graph, KG, questions, KGQASettings(mode="no_llm"), None, workers=2).output.results


def _hits(results: list[QuestionResult]) -> int:
    return sum(bool(r.correct) for r in results)


def test_preparing_learning_and_bootstrapping_never_lower_hits_on_uncovered_questions(
        books: tuple[Graph, list[Question]]) -> None:
    graph, questions = books
    taught = [q for q in questions if q.extra.get("split") == "train"]
    kinds = {q.extra["kind"] for q in taught}
    covered = [q for q in questions if q.extra.get("split") != "train" and q.extra["kind"] in kinds]
    uncovered = [q for q in questions if q.extra["kind"] not in kinds]
    assert len(taught) == 6 and len(covered) == 5 and len(uncovered) == 36

    zero = _answer(graph, uncovered)
    assert all(r.memory == "" and r.decided_by == "observation" for r in zero)

    prepare_kg(graph, KG)  # answer types from the entity names' vectors
    prepared = _answer(graph, uncovered)
    assert _hits(prepared) >= _hits(zero)

    report = learn(graph, KG, taught, source="test: six labelled questions")
    assert report.learned == 6
    learned = _answer(graph, uncovered)
    # before the memory knew what it did not know, these six questions turned 34 right answers into 7: the
    # memory voted for "published by → located in" on "when was X published" and "who wrote X"
    assert _hits(learned) >= _hits(prepared)
    assert all(r.memory == "abstained" and r.decided_by == "observation" for r in learned)
    answered = _answer(graph, covered)
    assert _hits(answered) == len(covered)
    assert all(r.memory == "labelled" and r.decided_by == "memory" for r in answered)

    made = bootstrap(graph, KG, settings=BootstrapSettings(topics=200))
    assert made.examples > 0 and made.memory["labelled"] == report.memory_examples
    booted = _answer(graph, uncovered)
    assert _hits(booted) >= _hits(learned)
    assert _hits(_answer(graph, covered)) == len(covered)


def test_a_memory_of_unrelated_questions_votes_only_for_its_own_phrasings(
        books: tuple[Graph, list[Question]]) -> None:
    graph, questions = books
    memory = PathMemory(graph, KG)
    memory.forget_other_sources("test: six labelled questions")
    taught = [q for q in questions if q.extra.get("split") == "train"]
    learn(graph, KG, taught, source="test: six labelled questions")
    run = run_questions(graph, KG, [q for q in questions if q.extra.get("kind") == "year"],
                        KGQASettings(mode="no_llm"), None)
    calibration = run.properties["memory_calibration"]
    # three phrasings of three different paths: left out in turn, none is voted for rightly by the others
    assert calibration["threshold"] == 1.0 and calibration["phrasings"] == 3 and calibration["vote_right"] == 0.0
    assert run.output.summary()["memory_votes"] == {"abstained": 4}
