"""The two extraction jobs a caller (CLI, demo, API) runs on one document; both are runs of
:class:`~kgagents.agent.extraction.agent.ExtractionAgent` and write a ``(:Run {job: 'extraction'})``.

* :func:`extract_document` — with a chat model: the agent reads the text and writes through the tools.
* :func:`feed_document` — the no-LLM mode: nothing is extracted; triples the caller already has are fed
  through the same tools, and the result says which the ontology accepts and why the others are refused.

``graph`` is a :class:`~kgagents.graph.Graph`, a ``neo4j.Driver`` or a URI; ``chat`` any LangChain chat model or a
kgagents :class:`~kgagents.llm.ChatModel`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kgagents.agent.base import RunResult
from kgagents.agent.extraction.agent import ExtractionAgent
from kgagents.agent.extraction.settings import ExtractionSettings
from kgagents.graph.connection import GraphLike
from kgagents.tools.compiler import ToolCatalogue
from kgagents.tools.feed import Triple


def extract_document(graph: GraphLike, ontology: str | Path | ToolCatalogue, text: str, *, chat: Any,
                     settings: ExtractionSettings | Mapping[str, Any] | None = None,
                     abox: str | None = None) -> RunResult:
    """Extract ``text`` into A-Box ``abox`` (default: the ontology's name); ``output[0]`` is its
    :class:`~kgagents.agent.extraction.agent.DocumentResult`."""
    agent = ExtractionAgent(graph, chat, settings, ontology=ontology, abox=abox)
    return agent.run({"text": text})


def feed_document(graph: GraphLike, ontology: str | Path | ToolCatalogue, triples: Sequence[Triple], *,
                  settings: ExtractionSettings | Mapping[str, Any] | None = None,
                  abox: str | None = None) -> RunResult:
    """Feed given ``(subject, relation, object)`` triples through the compiled tools (mode ``no_llm``)."""
    values = settings.model_dump() if isinstance(settings, ExtractionSettings) else dict(settings or {})
    agent = ExtractionAgent(graph, None, {**values, "mode": "no_llm"}, ontology=ontology, abox=abox)
    return agent.run({"triples": [list(t) for t in triples]})
