"""The path memory on real data (PathQuestion PQ-2H and its KB from the shared data; skipped without it): a path
learned from answered questions answers questions about topics it was never taught, ``learn`` refuses records of a
test split and writes nothing, and examples and traces are queryable in Cypher."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kgagents.agent.kgqa.pathmemory import INDEX, PathMemory, TestSplitError
from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.config import Neo4jSettings
from kgagents.graph.connection import Graph
from kgagents.jobs.kgqa import learn, run_questions
from kgagents.loaders.qa import Question, read_questions
from tests.agent_kgqa.conftest import load_prepared

KG = "pq2h"


@pytest.fixture(scope="module")
def pq(neo4j_settings: Neo4jSettings, shared_data: Path) -> Iterator[tuple[Graph, list[Question]]]:
    """The PQ-2H KB loaded and prepared, and its questions."""
    folder = shared_data / "kgqa" / "pathquestion"
    with Graph(neo4j_settings) as g:
        yield load_prepared(g, folder / "2H-kb.txt", KG), read_questions(folder / "PQ-2H.jsonl")


def _kind(questions: list[Question], path: list[str]) -> tuple[list[Question], list[Question]]:
    """Questions whose dataset path is ``path`` (the agent never sees it), split by topic: the first half of the
    topics are taught, the others are new."""
    kind = [q for q in questions if q.relation_path == path]
    topics = sorted({q.topic_entities[0].id for q in kind})
    taught = set(topics[: len(topics) // 2])
    return ([q.model_copy(update={"extra": {**q.extra, "split": "train"}}) for q in kind
             if q.topic_entities[0].id in taught][:30],
            [q for q in kind if q.topic_entities[0].id not in taught][:15])


def test_a_learned_path_answers_questions_about_topics_it_was_not_taught(
        pq: tuple[Graph, list[Question]]) -> None:
    graph, questions = pq
    taught, new = _kind(questions, ["spouse", "nationality"])
    assert taught and new and not {q.topic_entities[0].id for q in taught} & {q.topic_entities[0].id for q in new}
    # weak supervision only (the records' own paths are not used): it recovers the dataset's path by itself
    report = learn(graph, KG, taught, source="test: spouse's nationality", given_paths=False)
    assert report.learned == len(taught) and report.examples >= len(taught) and report.given_paths == 0
    assert report.agrees_with_dataset_path == len(taught)
    result = run_questions(graph, KG, new, KGQASettings(mode="no_llm"), None, workers=2)
    answered = result.output.results
    assert result.properties["memory_examples"] == report.memory_examples
    assert all(r.decided_by == "memory" and r.path == "spouse → nationality" for r in answered)
    assert all(r.correct for r in answered)
    # asked in plain words, about a topic never taught, the same path answers
    plain = new[0].model_copy(update={"topic_entities": []})
    again = run_questions(graph, KG, [plain], KGQASettings(mode="no_llm"), None).output.results[0]
    assert again.linked and again.path == "spouse → nationality" and again.correct


def test_learn_refuses_records_of_a_test_split_and_writes_nothing(pq: tuple[Graph, list[Question]]) -> None:
    graph, questions = pq
    memory = PathMemory(graph, KG)
    before = memory.count()
    taught, new = _kind(questions, ["parents", "nationality"])
    marked = [*taught[:3], new[0].model_copy(update={"extra": {**new[0].extra, "split": "test"}})]
    with pytest.raises(TestSplitError, match=f"1 record.*{new[0].id}"):
        learn(graph, KG, marked, source="test: mixed")
    assert memory.count() == before
    assert graph.run_text("MATCH (x:PathExample {source: 'test: mixed'}) RETURN count(x) AS n")[0]["n"] == 0


def test_path_examples_and_traces_are_queryable_in_cypher(pq: tuple[Graph, list[Question]]) -> None:
    graph, questions = pq
    taught, new = _kind(questions, ["children", "gender"])
    assert learn(graph, KG, taught, source="test: children's gender").given_paths == len(taught)
    examples = graph.run_text(
        "MATCH (x:PathExample {kg: $kg, source: $source}) RETURN x.path AS path, x.question AS question, "
        "x.split AS split, x.weight AS weight", kg=KG, source="test: children's gender")
    assert len({e["question"] for e in examples}) == len(taught)
    assert ["children", "gender"] in [e["path"] for e in examples] and {e["split"] for e in examples} == {"train"}
    phrasings = graph.run_text(
        "MATCH (x:PathExample {kg: $kg, source: $source})-[:PHRASED_AS]->(q:PathQuestion) "
        "RETURN q.masked AS masked, q.vector AS v, count(DISTINCT x.question_key) AS questions", kg=KG,
        source="test: children's gender")
    assert sum(p["questions"] for p in phrasings) == len(taught)  # each question has its phrasing …
    assert len(phrasings) < len(taught)  # … and a template's questions share one
    assert all("X" in p["masked"] for p in phrasings)
    nearest = graph.run_text(f"CALL db.index.vector.queryNodes('{INDEX}', 1, $v) YIELD node "
                             "RETURN node.kg AS kg, node.masked AS masked", v=phrasings[0]["v"])
    assert nearest == [{"kg": KG, "masked": phrasings[0]["masked"]}]
    result = run_questions(graph, KG, new[:3], KGQASettings(mode="no_llm"), None)
    traces = graph.run_text(
        "MATCH (t:QATrace)-[:IN_RUN]->(r:Run {id: $run}) RETURN t.path_steps AS steps, t.decided_by AS by, "
        "r.status AS status, r.metric AS metric, r.memory_examples AS examples ORDER BY t.question_id",
        run=result.run_id)
    assert [t["steps"] for t in traces] == [["children", "gender"]] * 3
    assert {(t["by"], t["status"], t["metric"]) for t in traces} == {("memory", "finished", "hits_at_1")}
    assert traces[0]["examples"] == PathMemory(graph, KG).count()
