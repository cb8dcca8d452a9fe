"""The extraction jobs a caller (CLI, demo, API) runs on one document; each is one run of
:class:`~kgagents.agent.extraction.agent.ExtractionAgent` and writes a ``(:Run {job: 'extraction'})``.

* :func:`extract_document` — with a chat model: the agent reads the text and writes through the tools.
* :func:`feed_document` — the no-LLM mode: nothing is extracted; triples the caller already has are fed
  through the same tools, and the result says which the ontology accepts and why the others are refused.
* :func:`extract` — what ``kgagents extract`` asks for: given triples are fed, text is extracted (with a model).

``graph`` is a :class:`~kgagents.graph.Graph`, a ``neo4j.Driver`` or a URI; ``chat`` any LangChain chat model or a
kgagents :class:`~kgagents.llm.ChatModel`. ``output[0]`` of the returned run is the document's
:class:`~kgagents.agent.extraction.agent.DocumentResult`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kgagents.agent.base import RunResult
from kgagents.agent.extraction.agent import ExtractionAgent
from kgagents.agent.extraction.settings import ExtractionSettings
from kgagents.errors import ChatModelRequiredError, InputFileError
from kgagents.graph.connection import GraphLike
from kgagents.tools.compiler import ToolCatalogue
from kgagents.tools.feed import Triple

Settings = ExtractionSettings | Mapping[str, Any] | None


def _values(settings: Settings) -> dict[str, Any]:
    return settings.model_dump() if isinstance(settings, ExtractionSettings) else dict(settings or {})


def extract_document(graph: GraphLike, ontology: str | Path | ToolCatalogue, text: str, *, chat: Any,
                     settings: Settings = None, abox: str | None = None) -> RunResult:
    """Extract ``text`` into A-Box ``abox`` (default: the ontology's name)."""
    agent = ExtractionAgent(graph, chat, settings, ontology=ontology, abox=abox)
    return agent.run({"text": text})


def feed_document(graph: GraphLike, ontology: str | Path | ToolCatalogue, triples: Sequence[Triple], *,
                  settings: Settings = None, abox: str | None = None) -> RunResult:
    """Feed given ``(subject, relation, object)`` triples through the compiled tools (mode ``no_llm``)."""
    agent = ExtractionAgent(graph, None, {**_values(settings), "mode": "no_llm"}, ontology=ontology, abox=abox)
    return agent.run({"triples": [list(t) for t in triples]})


def extract(graph: GraphLike, ontology: str | Path | ToolCatalogue, *, text: str | None = None,
            triples: Sequence[Triple] | None = None, chat: Any = None, settings: Settings = None,
            abox: str | None = None) -> RunResult:
    """Given ``triples`` are fed through the tools (no model is used); ``text`` is extracted with ``chat``.
    Text without a chat model is refused: nothing is extracted without one."""
    if (text is None) == (triples is None):
        raise InputFileError("give the document's text (to extract) or its triples (to feed through the tools), "
                             "not both and not neither")
    if triples is not None:
        return feed_document(graph, ontology, triples, settings=settings, abox=abox)
    if chat is None:
        raise ChatModelRequiredError("no_llm: without a chat model nothing is extracted from text; give triples to "
                                     "feed through the tools (the documented no-LLM mode), or a chat model")
    return extract_document(graph, ontology, text or "", chat=chat, settings={**_values(settings), "mode": "full"},
                            abox=abox)
