"""Questions as the agent reads them: the topic in brackets or not, the text that is embedded, and coverage.

A question names its topic entity in ``[brackets]`` (MetaQA's convention, kept as an explicit override), or the
dataset gives the topic's KG id, or neither (a plain-text question: the agent links it). What is embedded — for
the path scorer and the path memory — is the question with its topic *masked* as ``X``: "what movies did X act
in" is the same question whoever X is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kgagents.graph.connection import Graph
from kgagents.loaders.qa import Question

_BRACKETS = re.compile(r"\[([^\]]+)\]")
PLACEHOLDER = "X"


def bracketed(text: str) -> list[str]:
    """The names a question puts in brackets, in order."""
    return [m.strip() for m in _BRACKETS.findall(text)]


def plain(text: str) -> str:
    """The question without brackets (as a user would type it)."""
    return " ".join(text.replace("[", " ").replace("]", " ").split())


def masked(text: str, names: Sequence[str] = ()) -> str:
    """``text`` with its bracketed topics, else the first occurrence (case-insensitive) of each of ``names``,
    replaced by ``X``; unchanged when neither is there."""
    if _BRACKETS.search(text):
        return " ".join(_BRACKETS.sub(PLACEHOLDER, text).split())
    out = text
    for name in sorted({n for n in names if n}, key=len, reverse=True):
        for candidate in dict.fromkeys((name, name.replace("_", " "))):
            found = out.lower().find(candidate.lower())
            if found >= 0:
                out = f"{out[:found]}{PLACEHOLDER}{out[found + len(candidate):]}"
                break
    return " ".join(out.split())


def given_topics(question: Question) -> list[str]:
    """The topic entities' KG ids the question record gives (the name where a dataset gives no id: MetaQA,
    PathQuestion); empty for a plain-text question."""
    return [ref.id or ref.name for ref in question.topic_entities]


def presence(graph: Graph, kg: str, questions: Sequence[Question]) -> tuple[dict[str, str], set[str], set[str]]:
    """(given topic id → KG name, gold ids present, gold names present) for the questions' topics and answers."""
    topics = sorted({t for q in questions for t in given_topics(q)})
    names = {r["id"]: r["name"] for r in graph.run("kgqa/entity_names", kg=kg, ids=topics)}
    gold_ids = sorted({a.id for q in questions for a in q.answers if a.id})
    gold_names = sorted({a.name for q in questions for a in q.answers if not a.id})
    row = graph.run("kgqa/present", kg=kg, ids=gold_ids, names=gold_names)[0]
    return names, set(row["ids"]), set(row["names"])
