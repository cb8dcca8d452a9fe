"""What the conformance suite needs to know about each agent (one :class:`AgentCase` per agent, in its own
``case_<job>.py`` module, listed in :data:`CASES`).

Why a registry: every agent runs the same checks (tests/agent/conformance/test_conformance.py), the way
langgraph runs one conformance suite over every checkpoint saver; an agent joins by adding its case.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgagents.agent.base import Agent
from kgagents.graph.connection import Graph, GraphLike


@dataclass(frozen=True)
class AgentCase:
    """One agent under the conformance suite.

    ``make(graph, chat, settings)`` builds the agent with its job-specific arguments; ``setup(graph, fixtures)``
    loads the smallest real data the agent runs on and returns the run's inputs (without ``run_id``);
    ``llm_settings`` / ``llm_replies`` run an LLM mode on a LangChain fake model that answers the replies in turn;
    ``crash_node`` names a node after the graph's first checkpoint (the resume check makes it fail once)."""

    name: str
    agent_type: type[Agent[Any]]
    make: Callable[[GraphLike, Any, Any], Agent[Any]]
    setup: Callable[[Graph, Path], dict[str, Any]]
    llm_settings: Mapping[str, Any]
    llm_replies: list[str]
    crash_node: str
    no_llm_settings: Mapping[str, Any] = field(default_factory=lambda: {"mode": "no_llm"})


def cases() -> list[AgentCase]:
    """Every agent's case (imported here so a new agent is one line)."""
    from tests.agent.conformance import case_alignment, case_extraction, case_kgqa, case_matching

    return [case_alignment.CASE, case_matching.CASE, case_extraction.CASE, case_kgqa.CASE]
