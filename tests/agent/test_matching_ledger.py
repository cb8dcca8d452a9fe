"""A matching run's LLM totals come from the ledger in the graph: a run killed half-way and resumed
reports every request both processes made, and its (:Run) records when it really started."""

from __future__ import annotations

import pytest
from langgraph.checkpoint.memory import MemorySaver

from kgagents.agent.matching.graph import MatchingAgent
from kgagents.agent.matching.settings import MatchSettings
from kgagents.graph.connection import Graph
from tests.agent.test_matching_agent import _scripted_reply, conf  # noqa: F401 - conf is a fixture
from tests.scripted_chat import ScriptedChatModel, ScriptExhaustedError

SETTINGS = MatchSettings(threshold=0.3, structural=False, batch_size=2)


def test_scripted_run_killed_then_resumed_counts_every_request_of_both_processes(conf: Graph) -> None:  # noqa: F811
    saver, config = MemorySaver(), {"configurable": {"thread_id": "killed"}, "recursion_limit": 1000}
    first_chat = ScriptedChatModel([_scripted_reply] * 12)  # the 13th call "crashes" the process
    first = MatchingAgent(conf, first_chat, SETTINGS).compile(saver)
    with pytest.raises(ScriptExhaustedError):
        first.invoke({"run_id": "killed-run", "source": "confa", "target": "confb"}, config)

    second_chat = ScriptedChatModel([_scripted_reply] * 500)
    second = MatchingAgent(conf, second_chat, SETTINGS).compile(saver)
    second.invoke(None, config)

    made = len(first_chat.calls) + 1 + len(second_chat.calls)  # + the call that failed
    run = conf.run_text("MATCH (r:Run {id: 'killed-run'}) RETURN r.llm_calls AS calls, r.llm_failed_calls AS failed, "
                        "COUNT { (r)-[:MADE_CALL]->() } AS entries, r.started_at < r.finished_at AS ordered")[0]
    assert (run["calls"], run["entries"], run["failed"]) == (made, made, 1)
    assert run["ordered"]


def test_no_llm_run_records_a_start_before_its_finish(conf: Graph) -> None:  # noqa: F811
    out = MatchingAgent(conf, None, MatchSettings(no_llm=True)).compile().invoke(
        {"run_id": "timed-run", "source": "confa", "target": "confb"}, {"recursion_limit": 1000})
    run = conf.run_text("MATCH (r:Run {id: $id}) RETURN r.started_at < r.finished_at AS ordered, "
                        "r.llm_calls AS calls", id=out["run_id"])[0]
    assert run == {"ordered": True, "calls": 0}
