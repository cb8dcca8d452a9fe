"""The EA-Agent end to end on the tiny JAPE pair (real Neo4j, retrieval via ``retrieve``).

Read off the fixture (see test_retrieval.py): test sources Angela_Merkel, Café_Einstein, Deutschland; every
source's retrieval top-1 is its gold target, and the English candidates are named "Angela Merkel",
"Cafe Einstein", "Germany". Sources are processed in id order (Angela_Merkel, Caf%C3%A9_Einstein,
Deutschland), all planner calls of a batch before the tool calls.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langgraph.checkpoint.memory import MemorySaver
from langgraph.graph import END, START, StateGraph

from kgagents.agent.alignment.agent import EAAgent, EAState
from kgagents.agent.alignment.embedding import embed_names
from kgagents.agent.alignment.retrieval import RetrievalRun, retrieve
from kgagents.agent.alignment.settings import EASettings, RetrievalSettings
from kgagents.embeddings import get_embedder
from kgagents.graph.connection import Graph
from kgagents.loaders.jape import load_jape_pair
from tests.scripted_chat import ScriptedChatModel

DATASET = "jape_tiny_de_en"
KG1, KG2 = f"{DATASET}:de", f"{DATASET}:en"
DE, EN = "http://de.dbpedia.org/resource/", "http://dbpedia.org/resource/"
MERKEL, CAFE, GERMANY = DE + "Angela_Merkel", DE + "Caf%C3%A9_Einstein", DE + "Deutschland"


@pytest.fixture
def retrieved(graph: Graph, fixtures: Path) -> tuple[Graph, RetrievalRun]:
    load_jape_pair(graph, fixtures / "kg" / DATASET)
    embed_names(graph, get_embedder(), (KG1, KG2), RetrievalSettings())
    return graph, retrieve(graph, dataset=DATASET, run_id="ea-ret")


def _alignments(graph: Graph, run_id: str) -> dict[str, dict]:
    return {r["source"]: r for r in graph.run("alignment_ea/agent_alignments", run_id=run_id)}


def test_no_llm_mode_equals_retrieval_top1(retrieved: tuple[Graph, RetrievalRun]) -> None:
    graph, run = retrieved
    with pytest.raises(ValueError, match="needs a chat model"):
        EAAgent(graph, None, EASettings(mode="full"))
    result = EAAgent(graph, None, EASettings(mode="no_llm", batch_size=2, use_gold=True)).run({"dataset": DATASET, "retrieval_run_id": run.run_id, "run_id": "ea-offline"})
    rows = _alignments(graph, "ea-offline")
    assert {s: r["target"] for s, r in rows.items()} == {s: c[0].target for s, c in run.candidates.items()}
    assert all(r["path"] == ["retrieval_top1"] and r["tokens"] == 0 for r in rows.values())
    assert (result.output.sources, result.output.hits_at_1) == (3, 1.0)
    props = graph.run("alignment_ea/run", run_id="ea-offline")[0]["run"]
    assert props["job"] == "ea-agent" and props["mode"] == "no_llm"


def test_embedded_run_with_a_checkpointer_scores_like_run_scripted(retrieved: tuple[Graph, RetrievalRun]) -> None:
    """The compiled graph inside a parent graph: gold links are read by the agent's own nodes, so the stored run
    has Hits@1 (and rewards) as :meth:`EAAgent.run` gives them; a LangChain fake drives the LLM tools."""
    graph, run = retrieved
    model = FakeListChatModel(responses=["1"])  # aligner (and reflector) always pick the top candidate
    agent = EAAgent(graph, model, EASettings(mode="llm_only", batch_size=2, use_gold=True))
    parent = StateGraph(EAState)
    parent.add_node("align", agent.compile())
    parent.add_edge(START, "align")
    parent.add_edge("align", END)
    app = parent.compile(checkpointer=MemorySaver())
    out = app.invoke({"dataset": DATASET, "retrieval_run_id": run.run_id, "run_id": "ea-embedded"},
                     {"configurable": {"thread_id": "t"}, "recursion_limit": agent.steps_for(3)})
    assert out["done"] == 3 and app.get_state({"configurable": {"thread_id": "t"}}).next == ()
    stored = graph.run("alignment_ea/run", run_id="ea-embedded")[0]["run"]
    direct = agent.run({"dataset": DATASET, "retrieval_run_id": run.run_id, "run_id": "ea-direct"})
    # every top-1 is gold in this fixture (module docstring), so both score 1.0 — never None
    assert stored["hits_at_1"] == direct.output.hits_at_1 == 1.0
    assert stored["mean_reward"] == pytest.approx(direct.output.mean_reward) and stored["model"] == "fake-list-chat-model"
    assert stored["llm_calls"] == 3


def test_full_agent_scripted_end_to_end(retrieved: tuple[Graph, RetrievalRun], tmp_path: Path) -> None:
    graph, run = retrieved
    chat = ScriptedChatModel([
        "1. relation_selector\n2. aligner",   # plan Angela_Merkel
        "1. aligner\n2. reflector",            # plan Café_Einstein
        "relation selector, then aligner",     # plan Deutschland: not a numbered list -> rule fallback
        "Paris", "Berlin, I think",            # Merkel aligner: no candidate, repair no candidate -> top-1
        "1",                                   # Café aligner: top candidate (Cafe Einstein, gold)
        "Germany",                             # Café reflector: revises right -> wrong
        "Germany",                             # Deutschland aligner
    ])
    out = tmp_path / "trajectories.jsonl"
    # close_margin 0: the rule fallback never adds a reflector, so the script's length is known
    agent = EAAgent(graph, chat, EASettings(mode="full", close_margin=0.0, use_gold=True), trajectories_path=out)
    result = agent.run({"dataset": DATASET, "retrieval_run_id": run.run_id, "run_id": "ea-full"})
    assert chat.remaining == 0

    rows = _alignments(graph, "ea-full")
    assert rows[MERKEL]["target"] == EN + "Angela_Merkel"
    assert any("top-1 used" in n for n in rows[MERKEL]["notes"])
    assert rows[CAFE]["initial"] == EN + "Cafe_Einstein" and rows[CAFE]["final"] == EN + "Germany"
    assert rows[CAFE]["target"] == EN + "Germany" and rows[CAFE]["path"] == ["aligner", "reflector"]
    assert rows[GERMANY]["plan_source"] == "fallback"
    assert rows[GERMANY]["trace_path"] == ["relation_selector", "aligner"]
    assert all(r["model"] == "scripted" and r["tokens"] > 0 for r in rows.values())
    e2 = math.exp(-0.4)
    assert rows[CAFE]["reward"] == pytest.approx(-0.5 + e2)  # reflector broke a right answer
    assert rows[MERKEL]["reward"] == pytest.approx(1 + e2)
    # the Deutschland aligner saw its selected relation triples (source name is the translated "Germany")
    germany_prompt = chat.calls[-1]["messages"][0]["content"]
    assert "Source: Germany\n -> hauptstadt: Berlin" in germany_prompt
    assert "retrieval score" in germany_prompt and "http" not in germany_prompt

    assert (result.output.aligner_fallbacks, result.output.plan_fallbacks) == (1, 1)
    assert result.output.hits_at_1 == pytest.approx(2 / 3)
    props = graph.run("alignment_ea/run", run_id="ea-full")[0]["run"]
    assert props["job"] == "ea-agent" and props["llm_calls"] == 8

    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 3 and all(set(x) == {"query", "path", "reward", "rewritten_path"} for x in lines)
    cafe = next(x for x in lines if x["query"]["source"] == CAFE)
    assert cafe["rewritten_path"] == ["aligner", "reflector"]  # the reflector changed the answer: kept

    # re-running the run id replaces its decisions
    EAAgent(graph, None, EASettings(mode="no_llm")).run({"dataset": DATASET, "retrieval_run_id": run.run_id, "run_id": "ea-full", "sources": [CAFE]})
    again = _alignments(graph, "ea-full")
    assert list(again) == [CAFE] and again[CAFE]["target"] == EN + "Cafe_Einstein"


@pytest.mark.parametrize("mode", ["no_planning", "llm_only", "no_selectors", "rule_planner"])
def test_ablation_modes_scripted(retrieved: tuple[Graph, RetrievalRun], mode: str) -> None:
    graph, run = retrieved
    # no_selectors asks the planner first (its selectors are then dropped); no_planning runs all four tools;
    # rule_planner with close_margin 0 never adds the reflector. The aligner (and reflector) always answer "1".
    per_source = {"no_planning": 2, "llm_only": 1, "no_selectors": 2, "rule_planner": 1}[mode]
    plans = ["1. relation_selector\n2. aligner\n3. reflector"] * 3 if mode == "no_selectors" else []
    chat = ScriptedChatModel(plans + ["1"] * (3 * per_source))
    EAAgent(graph, chat, EASettings(mode=mode, close_margin=0.0)).run({"dataset": DATASET, "retrieval_run_id": run.run_id, "run_id": f"ea-{mode}"})
    assert chat.remaining == 0
    rows = _alignments(graph, f"ea-{mode}")
    assert {s: r["target"] for s, r in rows.items()} == {s: c[0].target for s, c in run.candidates.items()}
    expected_path = {"no_planning": ["attribute_selector", "relation_selector", "aligner", "reflector"],
                     "llm_only": ["aligner"], "no_selectors": ["aligner", "reflector"]}.get(mode)
    if expected_path is not None:
        assert all(r["path"] == expected_path for r in rows.values())
    germany_aligner = next(c for c in chat.calls if c["purpose"] == "ea-agent:align"
                           and "Source: Germany" in c["messages"][0]["content"])["messages"][0]["content"]
    # Deutschland's triples: (Germany, hauptstadt, Berlin), (Berlin, land, Germany), (Cafe Einstein, land, Germany)
    shown = germany_aligner.count(" -> hauptstadt: Berlin") + germany_aligner.count(" <- land: Berlin")
    assert shown == (0 if mode == "llm_only" else 2)
