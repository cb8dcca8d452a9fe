"""The two extraction jobs a caller (CLI, demo, API) runs on one document.

* :func:`extract_document` — with a chat model: the agent reads the text and writes through the tools.
* :func:`feed_document` — the no-LLM path: no extraction happens; triples the caller already has are fed
  through the same tools, and the report says which the ontology accepts and why the others are
  rejected (labelled ``no-llm``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from kgagents.agent.extraction.agent import ExtractionAgent, ExtractionResult
from kgagents.agent.extraction.grounding import ground_instances
from kgagents.agent.extraction.settings import ExtractionSettings
from kgagents.graph.connection import Graph
from kgagents.llm.client import ChatModel
from kgagents.tools.compiler import ToolCatalogue, compile_ontology
from kgagents.tools.feed import Triple, feed_triples
from kgagents.tools.runtime import ToolRuntime

NO_LLM_LABEL = "no-llm (given triples fed through the tools; nothing extracted)"


class FeedResult(BaseModel):
    """The no-LLM job's report."""

    abox: str
    label: str = NO_LLM_LABEL
    accepted: list[Triple]
    rejected: list[dict[str, Any]]
    created: int


def _runtime(graph: Graph, ontology: str | Path | ToolCatalogue, abox: str | None) -> ToolRuntime:
    catalogue = ontology if isinstance(ontology, ToolCatalogue) else compile_ontology(ontology)
    return ToolRuntime(graph, catalogue, abox=abox)


def extract_document(graph: Graph, ontology: str | Path | ToolCatalogue, text: str,
                     settings: ExtractionSettings | None, chat: ChatModel, *, abox: str | None = None) -> ExtractionResult:
    """Run the extraction agent on ``text``; instances land in ``abox`` (default: the ontology's name)."""
    settings = settings or ExtractionSettings()
    runtime = _runtime(graph, ontology, abox)
    ground = None
    if settings.ground_kg:
        kg, floor = settings.ground_kg, settings.ground_min_score
        ground = lambda rt: ground_instances(rt, kg, floor)  # noqa: E731
    return ExtractionAgent(runtime, chat, settings, ground=ground).run(text)


def feed_document(graph: Graph, ontology: str | Path | ToolCatalogue, triples: Sequence[Triple], *,
                  abox: str | None = None) -> FeedResult:
    """Feed given ``(subject, relation, object)`` triples through the compiled tools (no LLM)."""
    runtime = _runtime(graph, ontology, abox)
    report = feed_triples(runtime, triples)
    return FeedResult(
        abox=runtime.abox, accepted=report.accepted,
        rejected=[{"triple": list(o.triple), "tool": o.tool, **o.result.as_dict()} for o in report.rejected],
        created=sum(bool(o.result.created) for o in report.creations),
    )
