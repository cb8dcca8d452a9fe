"""A scripted chat model for the tests only (not part of kgagents): fixed replies in order, no model, no network.

Why it exists: tests of parsing, repair retries and the ledger need exact, known replies. It is never
a stand-in for a real model in anything that reports results (its outputs are labelled "scripted").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kgagents.llm.client import ChatModel, ChatResult, Message, approx_tokens

Reply = str | Callable[[list[Message]], str]


class ScriptExhaustedError(AssertionError):
    """The code under test made more calls than the test scripted."""


class ScriptedChatModel(ChatModel):
    """Returns ``replies`` in order (a callable reply gets the messages); raises when they run out. ``logprobs``
    (given the messages) answers calls that ask for ``top_logprobs``; without it such calls get none."""

    def __init__(self, replies: Sequence[Reply], *, model: str = "scripted",
                 logprobs: Callable[[list[Message]], dict[str, float]] | None = None) -> None:
        self._replies = list(replies)
        self._model = model
        self._logprobs = logprobs
        self.calls: list[dict[str, Any]] = []

    @property
    def model_name(self) -> str:
        return self._model

    @property
    def remaining(self) -> int:
        return len(self._replies) - len(self.calls)

    def complete(
        self,
        messages: Sequence[Message],
        *,
        purpose: str,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        top_logprobs: int | None = None,
    ) -> ChatResult:
        if self.remaining <= 0:
            raise ScriptExhaustedError(
                f"scripted chat model ran out of replies after {len(self._replies)} (call purpose: {purpose})"
            )
        msgs = [dict(m) for m in messages]
        reply = self._replies[len(self.calls)]
        self.calls.append({"messages": msgs, "purpose": purpose, "json_schema": json_schema,
                           "max_tokens": max_tokens})
        text = reply(msgs) if callable(reply) else reply
        return ChatResult(
            text=text,
            prompt_tokens=sum(approx_tokens(m["content"]) for m in msgs),
            completion_tokens=approx_tokens(text),
            seconds=0.0,
            model=self._model,
            first_token_logprobs=self._logprobs(msgs) if top_logprobs and self._logprobs else None,
        )
