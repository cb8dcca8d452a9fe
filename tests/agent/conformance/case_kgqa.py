"""The KGQA agent's conformance case: the tiny movie KG (tests/fixtures/kgqa/movies_kb.txt, names embedded, linking
index built) and its four questions; in the LLM mode the model answers every question with the best path shown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgagents.agent.kgqa.agent import ODAAgent
from kgagents.graph.connection import Graph
from kgagents.jobs.kgqa import prepare_kg
from kgagents.loaders.qa import read_questions
from kgagents.loaders.triples import load_triples
from tests.agent.conformance.cases import AgentCase

KG = "movies"


def setup(graph: Graph, fixtures: Path) -> dict[str, Any]:
    load_triples(graph, fixtures / "kgqa" / "movies_kb.txt", kg=KG)
    prepare_kg(graph, KG)
    questions = read_questions(fixtures / "kgqa" / "movies_questions.jsonl")
    return {"questions": [q.model_dump(mode="json") for q in questions], "dataset": "movies"}


CASE = AgentCase(
    name="kgqa",
    agent_type=ODAAgent,
    make=lambda graph, chat, settings: ODAAgent(graph, chat, settings, kg=KG),
    setup=setup,
    llm_settings={"mode": "full", "confident": 1000.0},  # never confident enough to skip the model
    llm_replies=['{"action": "answer", "path": 1}'],
    crash_node="answer_batch",
)
