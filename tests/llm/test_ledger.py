"""The ledger: every call counted in memory, then written to the real Neo4j and read back."""

from __future__ import annotations

import pytest

from kgagents.config import LLMSettings
from kgagents.graph.connection import Graph
from kgagents.llm import Ledger, ask_yes_no
from tests.scripted_chat import ScriptedChatModel, ScriptExhaustedError

PRICES = LLMSettings(prompt_cost_per_1k=2.0, completion_cost_per_1k=10.0)

# Hand-counted words (the scripted model's token estimate): 4 prompt words each, replies of 2 and 5 words.
CALL_A = [{"role": "user", "content": "is paper an article"}]
CALL_B = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "name two"}]
REPLY_A = "yes indeed"
REPLY_B = "paper and article and review"


def _two_calls(ledger: Ledger) -> None:
    chat = ledger.wrap(ScriptedChatModel([REPLY_A, REPLY_B], model="tiny-test-model"))
    assert chat.model_name == "tiny-test-model"
    assert chat.complete(CALL_A, purpose="validate").text == REPLY_A
    chat.complete(CALL_B, purpose="describe")


def test_ledger_scripted_totals_and_cost() -> None:
    ledger = Ledger(PRICES, run_id="r1")
    _two_calls(ledger)
    totals = ledger.totals()
    assert (totals.calls, totals.failed) == (2, 0)
    assert (totals.prompt_tokens, totals.completion_tokens) == (8, 7)
    assert totals.cost == pytest.approx(8 / 1000 * 2.0 + 7 / 1000 * 10.0)
    assert [r.purpose for r in ledger.records] == ["validate", "describe"]
    assert {r.model for r in ledger.records} == {"tiny-test-model"}
    assert {r.run_id for r in ledger.records} == {"r1"}


def test_ledger_scripted_records_failures_and_reraises() -> None:
    ledger = Ledger(PRICES, run_id="r1")
    chat = ledger.wrap(ScriptedChatModel([]))
    with pytest.raises(ScriptExhaustedError):
        chat.complete(CALL_A, purpose="validate")
    (record,) = ledger.records
    assert not record.ok and "ScriptExhaustedError" in (record.error or "")
    assert (record.prompt_tokens, record.cost) == (0, 0.0)
    assert ledger.totals().failed == 1


def test_ledger_scripted_counts_repair_calls_of_helpers() -> None:
    ledger = Ledger(PRICES, run_id="r1")
    assert ask_yes_no(ledger.wrap(ScriptedChatModel(["hmm", "yes, same"])), "Same?", purpose="validate")[0]
    assert [r.purpose for r in ledger.records] == ["validate", "validate:repair"]


def test_ledger_scripted_flush_writes_run_and_calls(graph: Graph) -> None:
    ledger = Ledger(PRICES, run_id="run-42")
    _two_calls(ledger)
    failing = ledger.wrap(ScriptedChatModel([]))
    with pytest.raises(ScriptExhaustedError):
        failing.complete(CALL_A, purpose="validate")

    totals = ledger.flush(graph, "run-42")
    assert (totals.calls, totals.failed, totals.prompt_tokens, totals.completion_tokens) == (3, 1, 8, 7)

    calls = graph.run("llm/run_calls", run_id="run-42")
    assert [(c["purpose"], c["prompt_tokens"], c["completion_tokens"], c["ok"]) for c in calls] == [
        ("validate", 4, 2, True), ("describe", 4, 5, True), ("validate", 0, 0, False)]
    (run,) = graph.run("llm/run", run_id="run-42")
    assert (run["calls"], run["failed"], run["prompt_tokens"], run["completion_tokens"]) == (3, 1, 8, 7)
    assert run["cost"] == pytest.approx(8 / 1000 * 2.0 + 7 / 1000 * 10.0)
    assert run["model"] == "scripted, tiny-test-model" or run["model"] == "tiny-test-model, scripted"
    assert run["started_at"] is not None

    # Flushing again writes nothing new; a resumed run's second ledger adds its calls to the same totals.
    assert ledger.flush(graph, "run-42").calls == 3
    resumed = Ledger(PRICES)
    resumed.wrap(ScriptedChatModel(["no"])).complete(CALL_A, purpose="validate")
    assert resumed.flush(graph, "run-42").prompt_tokens == 12
    (run,) = graph.run("llm/run", run_id="run-42")
    assert (run["calls"], run["prompt_tokens"], run["completion_tokens"]) == (4, 12, 8)


def test_ledger_flush_without_run_id_is_refused(graph: Graph) -> None:
    with pytest.raises(ValueError, match="run_id"):
        Ledger().flush(graph)


def test_outcomes_count_fallbacks_parse_failures_and_repairs_per_purpose() -> None:
    ledger = Ledger(run_id="r")
    chat = ledger.wrap(ScriptedChatModel(["hmm", '{"answer": "yes"}', '{"answer": "no"}', "plain"]))
    assert ask_yes_no(chat, "Same?", purpose="validate")[0] is True
    assert ask_yes_no(chat, "Same?", purpose="validate")[0] is False
    chat.complete([{"role": "user", "content": "hi"}], purpose="describe")
    by_purpose = {o.purpose: o for o in ledger.outcomes()}
    validate = by_purpose["validate"]
    assert (validate.calls, validate.repairs, validate.parsed, validate.parse_failures) == (3, 1, 2, 1)
    # the scripted model decodes nothing under the schema: every schema call is a fallback
    assert (validate.schema_asked, validate.constrained, validate.fallbacks) == (3, 0, 3)
    assert validate.parse_failure_rate == pytest.approx(1 / 3) and validate.fallback_rate == 1.0
    describe = by_purpose["describe"]
    assert (describe.schema_asked, describe.parse_failure_rate, describe.fallback_rate) == (0, None, None)
