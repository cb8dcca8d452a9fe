"""The questions a KGQA run takes (:class:`~kgagents.loaders.qa.Question`): what is embedded, which KG ids are
their topic entities, and which topics and gold answers the loaded KG contains (coverage)."""

from __future__ import annotations

from collections.abc import Sequence

from kgagents.graph.connection import Graph
from kgagents.loaders.qa import Question


def question_text(question: str) -> str:
    """What is embedded: the question without MetaQA's topic brackets (the entity name stays)."""
    return " ".join(question.replace("[", " ").replace("]", " ").split())


def topic_ids(question: Question) -> list[str]:
    """The topic entities' KG ids (the name where a dataset gives no id: MetaQA, PathQuestion)."""
    return [ref.id or ref.name for ref in question.topic_entities]


def presence(graph: Graph, kg: str, questions: Sequence[Question]) -> tuple[dict[str, str], set[str], set[str]]:
    """(topic id → KG name, gold ids present, gold names present) for the questions' topics and answers."""
    topics = sorted({t for q in questions for t in topic_ids(q)})
    names = {r["id"]: r["name"] for r in graph.run("kgqa/entity_names", kg=kg, ids=topics)}
    gold_ids = sorted({a.id for q in questions for a in q.answers if a.id})
    gold_names = sorted({a.name for q in questions for a in q.answers if not a.id})
    row = graph.run("kgqa/present", kg=kg, ids=gold_ids, names=gold_names)[0]
    return names, set(row["ids"]), set(row["names"])
