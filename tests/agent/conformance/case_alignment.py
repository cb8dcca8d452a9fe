"""The EA-Agent's conformance case: the tiny JAPE pair (tests/fixtures/kg/jape_tiny_de_en), names embedded and
candidates retrieved; the agent aligns the three test sources."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgagents.agent.alignment.agent import EAAgent
from kgagents.agent.alignment.embedding import embed_names
from kgagents.agent.alignment.retrieval import retrieve
from kgagents.agent.alignment.settings import RetrievalSettings
from kgagents.embeddings import get_embedder
from kgagents.graph.connection import Graph
from kgagents.loaders.jape import load_jape_pair
from tests.agent.conformance.cases import AgentCase

DATASET = "jape_tiny_de_en"


def setup(graph: Graph, fixtures: Path) -> dict[str, Any]:
    load_jape_pair(graph, fixtures / "kg" / DATASET)
    embed_names(graph, get_embedder(), (f"{DATASET}:de", f"{DATASET}:en"), RetrievalSettings())
    run = retrieve(graph, dataset=DATASET, settings=RetrievalSettings(candidate_space="test"))
    return {"dataset": DATASET, "retrieval_run_id": run.run_id}


CASE = AgentCase(
    name="alignment",
    agent_type=EAAgent,
    make=lambda graph, chat, settings: EAAgent(graph, chat, settings),
    setup=setup,
    llm_settings={"mode": "llm_only", "batch_size": 2, "use_gold": True},  # scored on the pair's test links
    no_llm_settings={"mode": "no_llm", "use_gold": True},
    llm_replies=["1"],  # the aligner picks the first candidate
    crash_node="record",
)
