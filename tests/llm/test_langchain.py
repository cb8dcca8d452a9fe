"""LangChain chat models behind the ChatModel interface, driven by LangChain's own scripted fakes (no network)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage

from kgagents.errors import LLMRequestError, UnsupportedObjectError
from kgagents.llm import LangChainChatModel, Ledger, as_chat_model, ask_yes_no
from tests.scripted_chat import ScriptedChatModel

MESSAGES = [{"role": "system", "content": "Answer yes or no."}, {"role": "user", "content": "Is a cat an animal?"}]


def test_scripted_reply_with_usage_metadata_gives_its_token_counts() -> None:
    reply = AIMessage(content="yes, it is", usage_metadata={"input_tokens": 17, "output_tokens": 4, "total_tokens": 21})
    chat = LangChainChatModel(GenericFakeChatModel(messages=iter([reply])))
    result = chat.complete(MESSAGES, purpose="test")
    assert (result.text, result.prompt_tokens, result.completion_tokens) == ("yes, it is", 17, 4)
    assert result.model == chat.model_name == "generic-fake-chat-model"  # no model field: the LangChain type


def test_scripted_reply_without_usage_falls_back_to_the_word_estimate() -> None:
    chat = LangChainChatModel(FakeListChatModel(responses=["no it is not"]))
    result = chat.complete(MESSAGES, purpose="test")
    assert result.text == "no it is not"
    assert (result.prompt_tokens, result.completion_tokens) == (4 + 5, 4)  # words of the two messages, the reply


def test_scripted_langchain_model_is_recorded_by_the_ledger_and_parsed_like_any_chat_model() -> None:
    ledger = Ledger(run_id="lc-run")
    chat = ledger.wrap(as_chat_model(FakeListChatModel(responses=["Yes. Cats are animals."])))
    assert ask_yes_no(chat, MESSAGES, purpose="validate")[0] is True
    [record] = ledger.records
    assert (record.purpose, record.model, record.ok, record.run_id) == ("validate", "fake-list-chat-model", True,
                                                                        "lc-run")


def test_a_failing_scripted_langchain_model_raises_llm_request_error_naming_model_and_purpose() -> None:
    chat = as_chat_model(GenericFakeChatModel(messages=iter([])))  # nothing scripted: the fake raises
    with pytest.raises(LLMRequestError, match="generic-fake-chat-model.*'describe'"):
        chat.complete(MESSAGES, purpose="describe")


def test_max_tokens_reaches_a_model_with_that_field_and_the_original_is_left_alone_scripted() -> None:
    seen: list[int | None] = []

    class CappedFake(FakeListChatModel):
        max_tokens: int | None = None

        def _call(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> str:
            seen.append(self.max_tokens)
            return super()._call(messages, stop, run_manager, **kwargs)

    model = CappedFake(responses=["a", "b"])
    chat = as_chat_model(model)
    chat.complete(MESSAGES, purpose="describe", max_tokens=96)
    chat.complete(MESSAGES, purpose="describe")
    assert seen == [96, None] and model.max_tokens is None


def test_kgagents_chat_models_pass_through_and_anything_else_is_a_clear_error() -> None:
    scripted = ScriptedChatModel(["x"])
    assert as_chat_model(scripted) is scripted
    with pytest.raises(UnsupportedObjectError, match="builtins.str.*BaseChatModel"):
        as_chat_model("gpt-4o")
    with pytest.raises(TypeError):  # UnsupportedObjectError is a TypeError too
        as_chat_model(object())
