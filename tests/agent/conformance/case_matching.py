"""The matching agent's conformance case: the two small conference-like fixture ontologies (tests/fixtures/matching)
and their reference alignment, so a run has an F1."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgagents.agent.matching.graph import MatchingAgent
from kgagents.embeddings.index import drop_vector_index, vector_indexes
from kgagents.graph.connection import Graph
from kgagents.loaders.ontology import load_ontology
from tests.agent.conformance.cases import AgentCase


def setup(graph: Graph, fixtures: Path) -> dict[str, Any]:
    for index in vector_indexes(graph):
        drop_vector_index(graph, index.name)
    load_ontology(graph, fixtures / "matching" / "conf_a.ttl", name="confa")
    load_ontology(graph, fixtures / "matching" / "conf_b.ttl", name="confb")
    return {"source": "confa", "target": "confb", "reference": str(fixtures / "matching" / "ref_ab.rdf")}


CASE = AgentCase(
    name="matching",
    agent_type=MatchingAgent,
    make=lambda graph, chat, settings: MatchingAgent(graph, chat, settings),
    setup=setup,
    llm_settings={"threshold": 0.3, "structural": False},
    llm_replies=["yes"],  # descriptions and verbalisations are "yes" too; the validator accepts every candidate
    crash_node="merge",
)
