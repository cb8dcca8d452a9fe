"""The agent contract, checked the same way for every agent (see cases.py).

Unit checks need no server (a URI connects lazily); the run, failure, subgraph and resume checks run on the real
Neo4j with each agent's smallest real data.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langgraph.checkpoint.memory import MemorySaver
from langgraph.graph import END, START, StateGraph
from neo4j import GraphDatabase

from kgagents.agent.base import NO_LLM, Agent, RunResult
from kgagents.errors import AgentSettingsError, ChatModelRequiredError, UnsupportedObjectError
from kgagents.graph.connection import Graph
from kgagents.graph.runs import RunStatus, RunStore
from kgagents.llm.ledger import LedgeredChatModel
from tests.agent.conformance.cases import AgentCase, cases

CASES = cases()
NOWHERE = "bolt://127.0.0.1:1"  # never contacted: the agents connect lazily


@pytest.fixture(params=CASES, ids=[c.name for c in CASES])
def case(request: pytest.FixtureRequest) -> AgentCase:
    return request.param


def _fake(case: AgentCase) -> FakeListChatModel:
    return FakeListChatModel(responses=case.llm_replies)


# -- construction (no server) ------------------------------------------------------------------------------
def test_the_agent_follows_the_contract(case: AgentCase) -> None:
    assert issubclass(case.agent_type, Agent)
    assert isinstance(case.agent_type.job, str) and case.agent_type.job
    assert "mode" in case.agent_type.settings_type.model_fields
    assert NO_LLM in str(case.agent_type.settings_type.model_fields["mode"].annotation)


def test_graph_as_uri_driver_or_graph(case: AgentCase) -> None:
    driver = GraphDatabase.driver(NOWHERE, auth=("neo4j", "x"))
    try:
        for graph in (NOWHERE, driver, Graph(driver=driver)):
            agent = case.make(graph, None, case.no_llm_settings)
            assert isinstance(agent.graph, Graph)
    finally:
        driver.close()
    with pytest.raises(UnsupportedObjectError):
        case.make(42, None, case.no_llm_settings)


def test_chat_models_langchain_or_ours_else_a_clear_error(case: AgentCase) -> None:
    agent = case.make(NOWHERE, _fake(case), case.llm_settings)
    assert isinstance(agent.chat, LedgeredChatModel) and agent.model_name == "fake-list-chat-model"
    with pytest.raises(UnsupportedObjectError, match="BaseChatModel"):
        case.make(NOWHERE, object(), case.llm_settings)
    with pytest.raises(ChatModelRequiredError, match="needs a chat model"):
        case.make(NOWHERE, None, case.llm_settings)


def test_no_llm_mode_never_holds_a_model(case: AgentCase) -> None:
    agent = case.make(NOWHERE, _fake(case), case.no_llm_settings)
    assert agent.chat is None and agent.settings.mode == NO_LLM and NO_LLM in agent.model_name


def test_settings_are_validated_with_one_error(case: AgentCase) -> None:
    agent = case.make(NOWHERE, None, dict(case.no_llm_settings))
    assert isinstance(agent.settings, case.agent_type.settings_type)
    with pytest.raises(AgentSettingsError, match="no_such_setting"):
        case.make(NOWHERE, None, {**case.no_llm_settings, "no_such_setting": 1})
    with pytest.raises(AgentSettingsError, match="mode"):
        case.make(NOWHERE, None, {"mode": "no-such-mode"})


def test_build_gives_an_uncompiled_state_graph(case: AgentCase) -> None:
    agent = case.make(NOWHERE, None, case.no_llm_settings)
    assert isinstance(agent.build(), StateGraph)
    assert agent.build() is not agent.build()  # nothing cached on the agent


# -- runs (real Neo4j) -------------------------------------------------------------------------------------
@pytest.mark.integration
def test_a_run_is_recorded_finished_with_its_scores(case: AgentCase, graph: Graph, fixtures: Path) -> None:
    inputs = case.setup(graph, fixtures)
    result = case.make(graph, None, case.no_llm_settings).run(inputs)
    assert isinstance(result, RunResult) and result.job == case.agent_type.job and result.mode == NO_LLM
    run = RunStore(graph).get(result.run_id)
    assert run is not None and run.status is RunStatus.FINISHED
    assert run.job == result.job and run.mode == NO_LLM and run.model == result.model
    assert run.started_at is not None and run.finished_at is not None and run.finished_at >= run.started_at
    assert run.metric == result.metric and run.score == pytest.approx(result.score) if result.score is not None \
        else run.score is None


@pytest.mark.integration
def test_an_llm_run_goes_through_the_ledger(case: AgentCase, graph: Graph, fixtures: Path) -> None:
    inputs = case.setup(graph, fixtures)
    agent = case.make(graph, _fake(case), case.llm_settings)
    result = agent.run(inputs)
    run = RunStore(graph).get(result.run_id)
    assert run is not None and run.status is RunStatus.FINISHED and run.model == "fake-list-chat-model"
    assert result.llm.calls == len(agent.ledger.records) > 0
    assert run.get("llm_calls") == result.llm.calls


@pytest.mark.integration
def test_a_failing_run_is_marked_failed(case: AgentCase, graph: Graph, fixtures: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    inputs = case.setup(graph, fixtures)
    agent = case.make(graph, None, case.no_llm_settings)

    def broken(state: Any) -> Any:
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(agent, case.crash_node, broken)
    with pytest.raises(RuntimeError, match="disk is full"):
        agent.run({**inputs, "run_id": "conformance-failed"})
    run = RunStore(graph).get("conformance-failed")
    assert run is not None and run.status is RunStatus.FAILED
    assert run.error == "RuntimeError: the disk is full" and run.finished_at is not None


@pytest.mark.integration
def test_the_compiled_graph_embeds_as_a_subgraph(case: AgentCase, graph: Graph, fixtures: Path) -> None:
    inputs = case.setup(graph, fixtures)
    agent = case.make(graph, None, case.no_llm_settings)
    direct = agent.run({**inputs, "run_id": "conformance-direct"})
    parent = StateGraph(case.agent_type.state_type)
    parent.add_node("agent", agent.compile())
    parent.add_edge(START, "agent")
    parent.add_edge("agent", END)
    state = agent.prepare({**inputs, "run_id": "conformance-embedded"})
    parent.compile().invoke(state, {"recursion_limit": agent.recursion_limit(state)})
    run = RunStore(graph).get("conformance-embedded")
    assert run is not None and run.status is RunStatus.FINISHED
    assert run.score == direct.score and run.metric == direct.metric


@pytest.mark.integration
def test_an_interrupted_run_resumes_from_its_checkpoint(case: AgentCase, graph: Graph, fixtures: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    inputs = case.setup(graph, fixtures)
    clean = case.make(graph, None, case.no_llm_settings).run({**inputs, "run_id": "conformance-clean"})
    agent = case.make(graph, None, case.no_llm_settings)
    node = getattr(agent, case.crash_node)
    crashes = iter([True])

    def crash_once(state: Any) -> Any:
        if next(crashes, False):
            raise KeyboardInterrupt  # what Ctrl-C does to a run
        return node(state)

    monkeypatch.setattr(agent, case.crash_node, crash_once)
    saver = MemorySaver()
    with pytest.raises(KeyboardInterrupt):
        agent.run({**inputs, "run_id": "conformance-resumed"}, checkpointer=saver)
    assert RunStore(graph).get("conformance-resumed").status is RunStatus.FAILED
    snapshot = agent.compile(saver).get_state({"configurable": {"thread_id": "conformance-resumed"}})
    assert snapshot.next, "the interrupted run left no checkpoint to resume from"
    json.dumps(snapshot.values)  # the state is plain JSON: any checkpointer can store it

    resumed = agent.run({"run_id": "conformance-resumed"}, checkpointer=saver)
    assert resumed.run_id == "conformance-resumed"
    assert resumed.scores == clean.scores
    assert RunStore(graph).get("conformance-resumed").status is RunStatus.FINISHED
