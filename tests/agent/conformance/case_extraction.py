"""The extraction agent's conformance case: a slice of Text2KGBench's university ontology and two of its
sentences with their ground truth (fed through the tools in mode no_llm, extracted by the fake model otherwise)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kgagents.agent.extraction.agent import ExtractionAgent
from kgagents.graph.connection import Graph
from tests.agent.conformance.cases import AgentCase

ONTOLOGY = Path(__file__).resolve().parents[2] / "fixtures" / "tools" / "university_tiny_ontology.json"
SENTENCES = [
    ("s1", "The AWH Engineering College is located in Kuttikkattoor, Kerala and it has 250 academic staff.",
     [("AWH_Engineering_College", "academicStaffSize", "250"), ("AWH_Engineering_College", "state", "Kerala"),
      ("AWH_Engineering_College", "city", "Kuttikkattoor")]),
    ("s2", "The AWH Engineering College in India was established in 2001.",
     [("AWH_Engineering_College", "country", "India"), ("AWH_Engineering_College", "established", "2001")]),
]


def setup(graph: Graph, fixtures: Path) -> dict[str, Any]:
    return {"documents": [{"id": i, "text": text, "triples": truth, "expected": truth}
                          for i, text, truth in SENTENCES]}


CASE = AgentCase(
    name="extraction",
    agent_type=ExtractionAgent,
    make=lambda graph, chat, settings: ExtractionAgent(graph, chat, settings, ontology=ONTOLOGY, abox="conformance"),
    setup=setup,
    llm_settings={"mode": "full"},
    llm_replies=[json.dumps({"entities": [{"name": "AWH Engineering College", "class": "University"}]}),
                 json.dumps({"facts": [{"subject": "E1", "relation": "country", "object": "India"}]})],
    crash_node="finish",
)
