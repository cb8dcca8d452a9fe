"""The ledger counts what the endpoint saw: one entry per HTTP request — retried, refused and repair
requests included — against the real OpenAI client and a local fake endpoint."""

from __future__ import annotations

import pytest

from kgagents.config import LLMSettings
from kgagents.errors import LLMRequestError
from kgagents.llm import Ledger, OpenAIChatModel, ask_yes_no, structured
from tests.llm.conftest import Answer, FakeEndpoint
from tests.llm.test_structured import Match

HELLO = [{"role": "user", "content": "Say hello"}]


def _ledgered(endpoint: FakeEndpoint, ledger: Ledger, **settings: object) -> object:
    values: dict[str, object] = {"timeout_s": 5.0, "max_retries": 3, **settings}
    return ledger.wrap(OpenAIChatModel(LLMSettings(base_url=endpoint.base_url, model="fake-model", **values),
                                       backoff_s=0.01))


def test_retried_requests_are_entries_of_their_own(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.answers = [Answer(status=503), Answer(status=500), Answer(text="hello", usage=(5, 1))]
    ledger = Ledger(run_id="r")
    assert _ledgered(fake_endpoint, ledger).complete(HELLO, purpose="greet").text == "hello"
    assert len(ledger.records) == len(fake_endpoint.requests) == 3
    assert [r.ok for r in ledger.records] == [False, False, True]
    assert all("InternalServerError" in (r.error or "") for r in ledger.records[:2])
    assert ledger.totals().calls == 3 and ledger.totals().failed == 2 and ledger.totals().prompt_tokens == 5


def test_a_call_that_fails_after_its_retries_records_every_attempt(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.answers = [Answer(status=500) for _ in range(4)]
    ledger = Ledger(run_id="r")
    with pytest.raises(LLMRequestError):
        _ledgered(fake_endpoint, ledger, max_retries=3).complete(HELLO, purpose="greet")
    assert len(fake_endpoint.requests) == 4 and [r.ok for r in ledger.records] == [False] * 4


def test_a_json_mode_the_server_refuses_is_a_request_too(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.answers = [Answer(text='{"same": true, "confidence": 0.9, "reason": "both papers"}',
                                    reject_response_format="json_schema")]
    ledger = Ledger(run_id="r")
    verdict = structured(_ledgered(fake_endpoint, ledger), HELLO, Match, purpose="judge")
    assert verdict.same
    assert len(ledger.records) == len(fake_endpoint.requests) == 2


def test_a_garbage_answering_endpoint_costs_the_ask_and_the_repair(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.answers = [Answer(text="banana"), Answer(text="kiwi")]
    ledger = Ledger(run_id="r")
    with pytest.raises(Exception, match="did not answer yes or no"):
        ask_yes_no(_ledgered(fake_endpoint, ledger), "Same?", purpose="validate")
    assert [r.purpose for r in ledger.records] == ["validate", "validate:repair"]
    assert len(ledger.records) == len(fake_endpoint.requests) == 2
