"""A matching run's LLM totals come from the ledger in the graph: a run killed half-way and resumed through
``MatchingAgent.run`` on the same checkpoint thread reports every request both processes made, under one run that
the run store marks failed, then finished."""

from __future__ import annotations

import pytest
from langgraph.checkpoint.memory import MemorySaver

from kgagents.agent.matching.graph import MatchingAgent
from kgagents.agent.matching.settings import MatchSettings
from kgagents.graph.connection import Graph
from tests.agent.test_matching_agent import _scripted_reply, conf  # noqa: F401 - conf is a fixture
from tests.scripted_chat import ScriptedChatModel, ScriptExhaustedError

SETTINGS = MatchSettings(threshold=0.3, structural=False, batch_size=2)
INPUTS = {"run_id": "killed-run", "source": "confa", "target": "confb"}


def _run_node(graph: Graph) -> dict:
    return graph.run_text("MATCH (r:Run {id: 'killed-run'}) RETURN r.status AS status, r.llm_calls AS calls, "
                          "r.llm_failed_calls AS failed, COUNT { (r)-[:MADE_CALL]->() } AS entries, "
                          "r.started_at < r.finished_at AS ordered")[0]


def test_scripted_run_killed_then_resumed_counts_every_request_of_both_processes(conf: Graph) -> None:  # noqa: F811
    saver = MemorySaver()
    first_chat = ScriptedChatModel([_scripted_reply] * 12)  # the 13th call "crashes" the process
    with pytest.raises(ScriptExhaustedError):
        MatchingAgent(conf, first_chat, SETTINGS).run(INPUTS, checkpointer=saver, thread_id="killed")
    assert _run_node(conf)["status"] == "failed"

    second_chat = ScriptedChatModel([_scripted_reply] * 500)
    result = MatchingAgent(conf, second_chat, SETTINGS).run({"source": "confa", "target": "confb"},
                                                            checkpointer=saver, thread_id="killed")
    assert result.run_id == "killed-run"  # the resumed run is the run the thread started

    made = len(first_chat.calls) + 1 + len(second_chat.calls)  # + the call that failed
    run = _run_node(conf)
    assert (run["status"], run["calls"], run["entries"], run["failed"]) == ("finished", made, made, 1)
    assert run["ordered"] and result.llm.calls == made


def test_no_llm_run_records_a_start_before_its_finish(conf: Graph) -> None:  # noqa: F811
    result = MatchingAgent(conf, None, MatchSettings(mode="no_llm")).run({**INPUTS, "run_id": "timed-run"})
    run = conf.run_text("MATCH (r:Run {id: $id}) RETURN r.started_at < r.finished_at AS ordered, "
                        "r.status AS status, COUNT { (r)-[:MADE_CALL]->() } AS calls", id=result.run_id)[0]
    assert run == {"ordered": True, "status": "finished", "calls": 0} and result.llm.calls == 0
