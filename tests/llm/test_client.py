"""The real OpenAI client path against a local fake endpoint: retries, timeouts, errors, JSON mode."""

from __future__ import annotations

import socket

import pytest

from kgagents.config import LLMSettings
from kgagents.errors import LLMRequestError, LLMUnavailableError
from kgagents.llm import OpenAIChatModel, resolve_chat_model
from tests.llm.conftest import Answer, FakeEndpoint

HELLO = [{"role": "user", "content": "Say hello"}]


def _chat(endpoint: FakeEndpoint, **overrides: object) -> OpenAIChatModel:
    values: dict[str, object] = {"timeout_s": 5.0, "max_retries": 3, **overrides}
    settings = LLMSettings(base_url=endpoint.base_url, model="fake-model", **values)
    return OpenAIChatModel(settings, backoff_s=0.01)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_rate_limit_is_retried_then_succeeds(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.answers = [Answer(status=429, text="slow down"), Answer(text="hello", usage=(11, 2))]
    result = _chat(fake_endpoint).complete(HELLO, purpose="test")
    assert result.text == "hello"
    assert (result.prompt_tokens, result.completion_tokens) == (11, 2)
    assert result.model == "fake-model"
    assert len(fake_endpoint.requests) == 2


def test_server_errors_are_retried(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.answers = [Answer(status=503), Answer(status=500), Answer(text="fine")]
    assert _chat(fake_endpoint).complete(HELLO, purpose="test").text == "fine"
    assert len(fake_endpoint.requests) == 3


def test_client_errors_are_not_retried(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.answers = [Answer(status=400, text="bad request"), Answer(text="never sent")]
    with pytest.raises(LLMRequestError, match="rejected the request .HTTP 400") as info:
        _chat(fake_endpoint).complete(HELLO, purpose="test")
    assert info.value.status_code == 400
    assert len(fake_endpoint.requests) == 1


def test_bad_api_key_is_not_retried_and_says_which_variable(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.answers = [Answer(status=401, text="invalid key")]
    with pytest.raises(LLMRequestError, match="KGAGENTS_LLM_API_KEY"):
        _chat(fake_endpoint).complete(HELLO, purpose="test")
    assert len(fake_endpoint.requests) == 1


def test_gives_up_after_max_retries(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.answers = [Answer(status=429) for _ in range(5)]
    with pytest.raises(LLMRequestError, match="rate-limiting after 3 attempts"):
        _chat(fake_endpoint, max_retries=2).complete(HELLO, purpose="test")
    assert len(fake_endpoint.requests) == 3


def test_timeout_is_retried_then_succeeds(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.answers = [Answer(text="late", delay_s=1.5), Answer(text="on time")]
    result = _chat(fake_endpoint, timeout_s=0.4).complete(HELLO, purpose="test")
    assert result.text == "on time"
    assert len(fake_endpoint.requests) == 2


def test_timeout_every_time_raises_with_advice(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.answers = [Answer(text="late", delay_s=1.5) for _ in range(2)]
    with pytest.raises(LLMRequestError, match="did not answer within 0.4 s .2 attempts.*KGAGENTS_LLM_TIMEOUT_S"):
        _chat(fake_endpoint, timeout_s=0.4, max_retries=1).complete(HELLO, purpose="test")
    assert len(fake_endpoint.requests) == 2


def test_unreachable_endpoint_raises_unavailable() -> None:
    settings = LLMSettings(base_url=f"http://127.0.0.1:{_free_port()}/v1", model="m", max_retries=1)
    with pytest.raises(LLMUnavailableError, match="Cannot reach the chat model"):
        OpenAIChatModel(settings, backoff_s=0.01).complete(HELLO, purpose="test")


def test_json_mode_falls_back_when_server_rejects_it(fake_endpoint: FakeEndpoint) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    fake_endpoint.answers = [Answer(text='{"a": 1}', reject_response_format="json_schema"),
                             Answer(text='{"a": 2}')]
    chat = _chat(fake_endpoint)
    assert chat.complete(HELLO, purpose="test", json_schema=schema).text == '{"a": 1}'
    formats = [r.get("response_format") for r in fake_endpoint.requests]
    assert formats[0]["type"] == "json_schema"
    assert formats[1] == {"type": "json_object"}
    # the level that worked is remembered; calls without a schema send no response_format
    assert chat.complete(HELLO, purpose="test", json_schema=schema).output_format == "json_object"
    assert fake_endpoint.requests[2]["response_format"]["type"] == "json_object"
    fake_endpoint.answers = [Answer(text="plain")]
    assert chat.complete(HELLO, purpose="test").output_format == "text"
    assert "response_format" not in fake_endpoint.requests[3]


def test_a_server_error_on_the_first_json_schema_request_is_probed_once_not_retried(
        fake_endpoint: FakeEndpoint) -> None:
    """llama-cpp-python's server answers json_schema with HTTP 500: one refused request, then the plainer mode
    for the rest of the client's life (it used to be retried five times, ~21 s, per client)."""
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    fake_endpoint.answers = [Answer(status=500, text="Internal Server Error"), Answer(text='{"a": 1}'),
                             Answer(text='{"a": 2}')]
    chat = _chat(fake_endpoint)
    first = chat.complete(HELLO, purpose="test", json_schema=schema)
    assert (first.text, first.output_format, len(first.failed_requests)) == ('{"a": 1}', "json_object", 1)
    assert chat.json_format == "json_object"
    chat.complete(HELLO, purpose="test", json_schema=schema)
    assert [(r.get("response_format") or {}).get("type") for r in fake_endpoint.requests] == [
        "json_schema", "json_object", "json_object"]


def test_once_json_schema_worked_a_server_error_is_retried_as_usual(fake_endpoint: FakeEndpoint) -> None:
    schema = {"type": "object"}
    fake_endpoint.answers = [Answer(text="{}"), Answer(status=503), Answer(text="{}")]
    chat = _chat(fake_endpoint)
    assert chat.complete(HELLO, purpose="test", json_schema=schema).output_format == "json_schema"
    assert chat.complete(HELLO, purpose="test", json_schema=schema).output_format == "json_schema"
    assert [r["response_format"]["type"] for r in fake_endpoint.requests] == ["json_schema"] * 3


def test_a_schema_the_endpoint_cannot_decode_falls_back_for_that_call_only(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.answers = [Answer(text="{}"), Answer(status=400, text="failed to parse JSON schema"),
                             Answer(text="{}"), Answer(text="{}")]
    chat = _chat(fake_endpoint)
    chat.complete(HELLO, purpose="test", json_schema={"type": "object"})
    assert chat.complete(HELLO, purpose="test", json_schema={"type": "object"}).output_format == "json_object"
    assert chat.json_format == "json_schema"  # other schemas still decode under json_schema
    assert chat.complete(HELLO, purpose="test", json_schema={"type": "object"}).output_format == "json_schema"


def test_extra_body_and_slots_go_where_the_local_server_wants_them(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.answers = [Answer(text="hi")]
    settings = LLMSettings(base_url=fake_endpoint.base_url, model="fake-model", parallel=3)
    chat = OpenAIChatModel(settings, extra_body={"cache_prompt": True})
    chat.complete(HELLO, purpose="test")
    assert fake_endpoint.requests[0]["cache_prompt"] is True
    assert chat.slots == 3 and OpenAIChatModel(settings, slots=2).slots == 2


def test_other_rejections_of_a_json_call_do_not_turn_json_mode_off(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.answers = [Answer(status=400, text="maximum context length exceeded")]
    with pytest.raises(LLMRequestError, match="context length"):
        _chat(fake_endpoint).complete(HELLO, purpose="test", json_schema={"type": "object"})
    assert len(fake_endpoint.requests) == 1


def test_model_name_comes_from_the_endpoint_when_not_configured(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.models = ["served-model", "other"]
    fake_endpoint.answers = [Answer(text="hi")]
    chat = OpenAIChatModel(LLMSettings(base_url=fake_endpoint.base_url), backoff_s=0.01)
    assert chat.model_name == "served-model"
    assert chat.complete(HELLO, purpose="test").model == "served-model"
    assert fake_endpoint.requests[0]["model"] == "served-model"


def test_max_tokens_is_sent_only_when_set(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.answers = [Answer(text="a"), Answer(text="b"), Answer(text="c")]
    chat = _chat(fake_endpoint)
    chat.complete(HELLO, purpose="test")
    chat.complete(HELLO, purpose="test", max_tokens=7)
    capped = OpenAIChatModel(chat.settings, max_tokens=50)
    capped.complete(HELLO, purpose="test")
    assert [r.get("max_tokens") for r in fake_endpoint.requests] == [None, 7, 50]


def test_first_token_log_probabilities_are_asked_for_and_read_back(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.answers = [Answer(text="Yes", top_logprobs={"Yes": -0.2, "No": -1.8}), Answer(text="Yes")]
    chat = _chat(fake_endpoint)
    asked = chat.complete(HELLO, purpose="test", max_tokens=1, top_logprobs=5)
    assert asked.first_token_logprobs == {"Yes": -0.2, "No": -1.8}
    assert (fake_endpoint.requests[0]["logprobs"], fake_endpoint.requests[0]["top_logprobs"]) == (True, 5)
    plain = chat.complete(HELLO, purpose="test")
    assert plain.first_token_logprobs is None and "logprobs" not in fake_endpoint.requests[1]


def test_missing_usage_is_estimated_from_words(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.answers = [Answer(text="one two three", usage=None)]
    result = _chat(fake_endpoint).complete(HELLO, purpose="test")
    assert (result.prompt_tokens, result.completion_tokens) == (2, 3)


def test_resolve_uses_configured_endpoint(fake_endpoint: FakeEndpoint) -> None:
    chat = resolve_chat_model(LLMSettings(base_url=fake_endpoint.base_url, model="fake-model"))
    assert isinstance(chat, OpenAIChatModel) and chat.base_url == fake_endpoint.base_url


def test_resolve_without_endpoint_or_local_server_explains_what_to_do() -> None:
    with pytest.raises(LLMUnavailableError, match="KGAGENTS_LLM_BASE_URL.*kgagents llm start"):
        resolve_chat_model(LLMSettings(base_url=None, local_port=_free_port()))
