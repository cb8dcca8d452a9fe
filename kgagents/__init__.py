"""kgagents: LLM agents that run inside a Neo4j graph.

The public API is what this module exports (``__all__``); everything else is internal and may change. For each
agent: the agent class (``build()`` → the uncompiled LangGraph ``StateGraph``, ``compile(checkpointer)`` → the
runnable graph, ``run(...)`` → a summary), its settings and its state type. Agents take the graph as a
:class:`Graph`, a ``neo4j.Driver`` or a URI, and the LLM as any LangChain ``BaseChatModel`` or a kgagents
:class:`ChatModel`.

Names resolve lazily (PEP 562), so ``import kgagents`` and the CLI do not import LangGraph, the driver or the
embedding model until they are used. To add an agent, add its three or four names below, one per line.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: public name → module that defines it
_EXPORTS: dict[str, str] = {
    # the graph connection
    "Graph": "kgagents.graph.connection",
    "GraphLike": "kgagents.graph.connection",
    "connect": "kgagents.graph.connection",
    "Neo4jSettings": "kgagents.config",
    # the agent contract and the run store every agent writes through
    "Agent": "kgagents.agent.base",
    "AgentSettings": "kgagents.agent.base",
    "RunResult": "kgagents.agent.base",
    "RunStore": "kgagents.graph.runs",
    "Run": "kgagents.graph.runs",
    # ontology matching (Agent-OM)
    "MatchingAgent": "kgagents.agent.matching.graph",
    "MatchSettings": "kgagents.agent.matching.settings",
    "MatchState": "kgagents.agent.matching.graph",
    "match_pair": "kgagents.jobs.matching",
    "PairRun": "kgagents.jobs.matching",
    "export_alignment": "kgagents.agent.matching.store",
    "export_sssom": "kgagents.agent.matching.store",
    # entity alignment (EA-Agent) and its candidate retrieval
    "EAAgent": "kgagents.agent.alignment.agent",
    "EASettings": "kgagents.agent.alignment.settings",
    "EAState": "kgagents.agent.alignment.agent",
    "EARunResult": "kgagents.agent.alignment.agent",
    "RetrievalSettings": "kgagents.agent.alignment.settings",
    "retrieve": "kgagents.agent.alignment.retrieval",
    "load_pair": "kgagents.jobs.alignment",
    "align": "kgagents.jobs.alignment",
    "align_kgs": "kgagents.jobs.alignment",
    "Aligned": "kgagents.jobs.alignment",
    "export_ea_sssom": "kgagents.agent.alignment.sssom_out",
    # KG question answering (ODA)
    "ODAAgent": "kgagents.agent.kgqa.agent",
    "KGQASettings": "kgagents.agent.kgqa.settings",
    "QAState": "kgagents.agent.kgqa.agent",
    "KGQARun": "kgagents.agent.kgqa.results",
    "run_questions": "kgagents.jobs.kgqa",
    # ontology-to-tools: the compiled tools and the extraction agent that writes only through them
    "compile_ontology": "kgagents.tools.compiler",
    "ToolCatalogue": "kgagents.tools.compiler",
    "ToolRuntime": "kgagents.tools.runtime",
    "ToolResult": "kgagents.tools.runtime",
    "export_turtle": "kgagents.tools.export",
    "ExtractionAgent": "kgagents.agent.extraction.agent",
    "ExtractionSettings": "kgagents.agent.extraction.settings",
    "ExtractionState": "kgagents.agent.extraction.agent",
    "DocumentResult": "kgagents.agent.extraction.agent",
    "extract_document": "kgagents.jobs.extraction",
    "feed_document": "kgagents.jobs.extraction",
    # loaders (one transaction each, idempotent)
    "load_ontology": "kgagents.loaders.ontology",
    "load_alignment": "kgagents.loaders.alignment",
    "load_jape_pair": "kgagents.loaders.jape",
    "load_triples": "kgagents.loaders.triples",
    "load_wikidata_nt": "kgagents.loaders.wikidata",
    # chat models and embeddings
    "ChatModel": "kgagents.llm.client",
    "OpenAIChatModel": "kgagents.llm.client",
    "resolve_chat_model": "kgagents.llm.client",
    "LangChainChatModel": "kgagents.llm.langchain",
    "as_chat_model": "kgagents.llm.langchain",
    "Embedder": "kgagents.embeddings.base",
    "get_embedder": "kgagents.embeddings",
    # errors
    "KgAgentsError": "kgagents.errors",
    "UnsupportedObjectError": "kgagents.errors",
    "ChatModelRequiredError": "kgagents.errors",
    "AgentSettingsError": "kgagents.errors",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'kgagents' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


if TYPE_CHECKING:  # what type checkers and IDEs see; the same names __getattr__ resolves
    from kgagents.agent.alignment.agent import EAAgent, EARunResult, EAState
    from kgagents.agent.alignment.retrieval import retrieve
    from kgagents.agent.alignment.settings import EASettings, RetrievalSettings
    from kgagents.agent.alignment.sssom_out import export_ea_sssom
    from kgagents.agent.base import Agent, AgentSettings, RunResult
    from kgagents.agent.extraction.agent import DocumentResult, ExtractionAgent, ExtractionState
    from kgagents.agent.extraction.settings import ExtractionSettings
    from kgagents.agent.kgqa.agent import ODAAgent, QAState
    from kgagents.agent.kgqa.results import KGQARun
    from kgagents.agent.kgqa.settings import KGQASettings
    from kgagents.agent.matching.graph import MatchingAgent, MatchState
    from kgagents.agent.matching.settings import MatchSettings
    from kgagents.agent.matching.store import export_alignment, export_sssom
    from kgagents.config import Neo4jSettings
    from kgagents.embeddings import get_embedder
    from kgagents.embeddings.base import Embedder
    from kgagents.errors import AgentSettingsError, ChatModelRequiredError, KgAgentsError, UnsupportedObjectError
    from kgagents.graph.connection import Graph, GraphLike, connect
    from kgagents.graph.runs import Run, RunStore
    from kgagents.jobs.alignment import Aligned, align, align_kgs, load_pair
    from kgagents.jobs.extraction import extract_document, feed_document
    from kgagents.jobs.kgqa import run_questions
    from kgagents.jobs.matching import PairRun, match_pair
    from kgagents.llm.client import ChatModel, OpenAIChatModel, resolve_chat_model
    from kgagents.llm.langchain import LangChainChatModel, as_chat_model
    from kgagents.loaders.alignment import load_alignment
    from kgagents.loaders.jape import load_jape_pair
    from kgagents.loaders.ontology import load_ontology
    from kgagents.loaders.triples import load_triples
    from kgagents.loaders.wikidata import load_wikidata_nt
    from kgagents.tools.compiler import ToolCatalogue, compile_ontology
    from kgagents.tools.export import export_turtle
    from kgagents.tools.runtime import ToolResult, ToolRuntime
