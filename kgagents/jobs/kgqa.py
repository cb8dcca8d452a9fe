"""KG question answering as a job: ODA (or its offline baseline) over questions against a KG in Neo4j.

:func:`run_questions` is what ``kgagents ask``, ``kgagents kgqa``, the benchmarks and the demo call: it builds the
agent (:class:`~kgagents.agent.kgqa.agent.ODAAgent`) and runs it (:meth:`~ODAAgent.run`): the KG's triple
readings are checked, the questions embedded once, each answered and scored, the traces stored in Neo4j, and every
result carries the coverage of its question in the loaded KG (is a topic entity there, is a gold answer there),
so a score is never read without it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kgagents.agent.kgqa.agent import ODAAgent
from kgagents.agent.kgqa.results import KGQARun, QuestionResult
from kgagents.agent.kgqa.settings import KGQASettings
from kgagents.embeddings.base import Embedder
from kgagents.graph.connection import GraphLike, connect
from kgagents.loaders.qa import Question, read_questions


def run_questions(graph: GraphLike, kg: str, questions: Sequence[Question], settings: KGQASettings | None = None,
                  chat: Any = None, *, run_id: str | None = None, workers: int = 1, embedder: Embedder | None = None,
                  dataset: str | None = None,
                  on_question: Callable[[QuestionResult], None] | None = None) -> KGQARun:
    """Answer ``questions`` against KG ``kg``; ``chat`` None runs the offline baseline (mode ``no_llm``);
    ``workers`` questions at once in that mode."""
    settings = settings or KGQASettings()
    if chat is None:
        settings = settings.model_copy(update={"mode": "no_llm"})
    agent = ODAAgent(connect(graph), chat, settings, kg=kg)
    return agent.run(questions, run_id=run_id, workers=workers, embedder=embedder, dataset=dataset,
                     on_question=on_question)


def seeded_sample(questions: Sequence[Question], n: int | None, seed: int) -> list[Question]:
    """``random.Random(seed).sample`` of ``n`` questions in file order (all of them without ``n``)."""
    if not n or n >= len(questions):
        return list(questions)
    return sorted(random.Random(seed).sample(list(questions), n), key=lambda q: q.id)


def questions_for(paths: Sequence[Path], *, format: str | None = None, sample: int | None = None,
                  seed: int = 7) -> list[Question]:
    """Questions of one or more files for ``kgagents kgqa`` (a seeded sample of ``sample`` per file)."""
    out: list[Question] = []
    for path in paths:
        out.extend(seeded_sample(read_questions(path, format=format), sample, seed))
    return out
