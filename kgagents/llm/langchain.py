"""Any LangChain chat model (``BaseChatModel``: ChatOpenAI, ChatOllama, ChatAnthropic, …) as a :class:`ChatModel`.

Why an adapter rather than LangChain everywhere: the agents need one small interface (messages in, text and
token counts out) that the ledger can wrap, and the project's own OpenAI-compatible client works without
LangChain's model packages. A LangChain model keeps its own retries and timeouts; its failures are reported as
:class:`~kgagents.errors.LLMRequestError`. Tokens come from the reply's ``usage_metadata`` when the model
reports it, else from the same word-count estimate the other clients use.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage

from kgagents.errors import LLMRequestError, UnsupportedObjectError
from kgagents.llm.client import ChatModel, ChatResult, Message, approx_tokens

#: Fields through which LangChain chat models take a reply-length cap (ChatOpenAI / ChatAnthropic, ChatOllama).
_MAX_TOKENS_FIELDS = ("max_tokens", "num_predict")


class LangChainChatModel(ChatModel):
    """Wraps one ``BaseChatModel``; every call is one ``invoke`` with the messages as role/content dicts."""

    def __init__(self, model: BaseChatModel) -> None:
        self.model = model

    @property
    def model_name(self) -> str:
        for attr in ("model_name", "model", "model_id"):
            value = getattr(self.model, attr, None)
            if isinstance(value, str) and value:
                return value
        return self.model._llm_type

    def complete(
        self,
        messages: Sequence[Message],
        *,
        purpose: str,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        top_logprobs: int | None = None,
    ) -> ChatResult:
        """``json_schema`` is only a hint (callers parse and validate the text), so it is not sent; nor is
        ``top_logprobs`` (LangChain has no common way to ask for them): callers fall back to the reply's text."""
        model = self.model
        fields = type(model).model_fields
        cap_field = next((f for f in _MAX_TOKENS_FIELDS if f in fields), None)
        if max_tokens is not None and cap_field is not None:
            model = model.model_copy(update={cap_field: max_tokens})
        started = time.perf_counter()
        try:
            reply = model.invoke([dict(m) for m in messages])
        except Exception as exc:  # noqa: BLE001 - any provider error becomes one kgagents error
            raise LLMRequestError(f"The LangChain chat model {self.model_name} failed on a '{purpose}' call: "
                                  f"{type(exc).__name__}: {exc}") from exc
        text = _text(reply.content)
        usage = reply.usage_metadata if isinstance(reply, AIMessage) else None
        return ChatResult(
            text=text,
            prompt_tokens=usage["input_tokens"] if usage else sum(approx_tokens(m["content"]) for m in messages),
            completion_tokens=usage["output_tokens"] if usage else approx_tokens(text),
            seconds=time.perf_counter() - started,
            model=self.model_name,
        )


def _text(content: str | list[Any]) -> str:
    """The text of a reply: a string, or the text blocks of a list of content blocks."""
    if isinstance(content, str):
        return content
    return "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content)


def as_chat_model(chat: Any) -> ChatModel:
    """``chat`` as the interface the agents call: a :class:`ChatModel` as it is, a LangChain ``BaseChatModel``
    wrapped in :class:`LangChainChatModel`; anything else is an :class:`UnsupportedObjectError`."""
    if isinstance(chat, ChatModel):
        return chat
    if isinstance(chat, BaseChatModel):
        return LangChainChatModel(chat)
    raise UnsupportedObjectError(
        f"Cannot use a {type(chat).__module__}.{type(chat).__qualname__} as a chat model: pass a LangChain chat "
        "model (langchain_core BaseChatModel, e.g. ChatOpenAI) or a kgagents ChatModel (e.g. "
        "kgagents.OpenAIChatModel / kgagents.llm.resolve_chat_model())."
    )
