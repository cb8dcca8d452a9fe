"""Chat models: one ABC, one OpenAI-compatible client, and the rule for picking one.

Why an ABC: agents only ever call :meth:`ChatModel.complete`, so the same agent code runs against a
hosted endpoint, the embedded llama.cpp server, a LangChain chat model (:mod:`kgagents.llm.langchain`), or a
scripted fake in the tests. Retries live here (not in the ``openai`` package) so that exactly the transient
failures are retried — rate limits, timeouts, dropped connections and 5xx — and a request the server
rejects (4xx) fails at once.
"""

from __future__ import annotations

import re
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from openai import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    OpenAI,
    RateLimitError,
)
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from kgagents.config import LLMSettings
from kgagents.errors import LLMRequestError, LLMUnavailableError

Message = dict[str, str]

NO_MODEL_MESSAGE = (
    "No chat model configured: set KGAGENTS_LLM_BASE_URL (and KGAGENTS_LLM_API_KEY, KGAGENTS_LLM_MODEL) "
    "to an OpenAI-compatible endpoint, or run `kgagents llm start` for the embedded model."
)


@dataclass(frozen=True)
class FailedRequest:
    """One HTTP request of a chat call that failed: a retried one, or one in a JSON mode the server refused."""

    started_at: str  # ISO 8601, UTC
    seconds: float
    error: str


@dataclass(frozen=True)
class ChatResult:
    """One reply. ``model`` names the model that wrote it, so every output can be labelled with it.
    ``failed_requests`` are the requests the call made before the one that answered (the ledger records
    each of them: a run's request count is what the endpoint saw, not the number of replies). A call that
    fails raises an error carrying every request it made in the same ``failed_requests`` attribute."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    model: str
    failed_requests: tuple[FailedRequest, ...] = ()
    #: what shaped the reply: "json_schema" (decoded under the schema), "json_object" (any JSON) or "text"
    output_format: str = "text"
    #: the ledger entry of this reply (set by :class:`~kgagents.llm.ledger.LedgeredChatModel`)
    call_id: str | None = None
    #: asked with ``top_logprobs``: the reply's first token and its likeliest alternatives, token → log-probability
    #: (``None`` where the endpoint gives none)
    first_token_logprobs: dict[str, float] | None = None


class ChatModel(ABC):
    """Anything that turns a list of chat messages into a reply."""

    @property
    @abstractmethod
    def model_name(self) -> str:
        """The model that answers (stored next to everything it produces)."""

    @abstractmethod
    def complete(
        self,
        messages: Sequence[Message],
        *,
        purpose: str,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        top_logprobs: int | None = None,
    ) -> ChatResult:
        """Reply to ``messages``. ``purpose`` says why (for the ledger). ``json_schema`` is a hint that
        the reply should be one JSON object of that schema; a model may use it to constrain its output
        or ignore it — callers still parse and validate. ``max_tokens`` caps the reply (``None``: the
        model's own limit), so a short answer cannot turn into a long, slow ramble. ``top_logprobs`` asks for
        that many alternatives of the first reply token with their log-probabilities (a model that cannot give
        them leaves :attr:`ChatResult.first_token_logprobs` ``None``)."""

    @property
    def slots(self) -> int:
        """How many calls the endpoint serves at once (:func:`kgagents.llm.parallel.map_on_slots` uses it)."""
        return 1

    def record_outcome(self, result: ChatResult, parsed: bool) -> None:  # noqa: B027 - optional hook
        """Note whether the caller could use ``result`` (structured helpers call it after parsing; a ledger
        records it per purpose). A model without a ledger ignores it."""


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> str:
    """``text`` with lone UTF-16 surrogates replaced by U+FFFD. A model that emits half of an emoji sends it
    as a ``\\ud83d`` JSON escape; the resulting string cannot be encoded as UTF-8, so Neo4j, files and the
    terminal would all reject it far from its source."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def approx_tokens(text: str) -> int:
    """Whitespace word count: the token estimate used where a server reports no usage."""
    return len(text.split())


def _transient(exc: BaseException) -> bool:
    """Worth another try: rate limit, timeout, no connection, or a server error (5xx)."""
    if isinstance(exc, (RateLimitError, APIConnectionError)):  # APITimeoutError is an APIConnectionError
        return True
    return isinstance(exc, APIStatusError) and exc.status_code >= 500


# What to send as ``response_format`` when a JSON schema is hinted, best first: OpenAI's json_schema (OpenAI,
# vLLM, llama-server: the reply is decoded under the schema), plain JSON mode, nothing (the prompt asks for JSON
# and the caller parses and repairs). The first request in a JSON mode is a probe: if the endpoint refuses it,
# the same request is sent once in the next mode, and if that answers, the client stays there — a server
# without json_schema costs one refused request per client, not a round of retries per call.
JSON_FORMATS: tuple[str | None, ...] = ("json_schema", "json_object", None)


def _about_response_format(exc: LLMRequestError) -> bool:
    """A rejection of the JSON mode or schema itself (not, say, of a too-long prompt)."""
    text = str(exc).lower()
    return any(word in text for word in ("response_format", "json", "schema", "grammar"))


def _response_format(kind: str | None, schema: dict[str, Any]) -> dict[str, Any] | None:
    if kind == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema}}
    if kind == "json_object":
        return {"type": "json_object"}
    return None


class OpenAIChatModel(ChatModel):
    """Any OpenAI-compatible ``/v1/chat/completions`` endpoint (OpenAI, vLLM, llama.cpp, Ollama, …)."""

    def __init__(
        self,
        settings: LLMSettings,
        *,
        base_url: str | None = None,
        model: str | None = None,
        backoff_s: float = 1.0,
        max_tokens: int | None = None,
        json_format: str | None = "json_schema",
        slots: int | None = None,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        """``base_url``/``model`` override the settings (the embedded server passes its own);
        ``backoff_s`` is the first retry wait, doubled per attempt up to 30 s, plus jitter;
        ``max_tokens`` caps replies whose caller sets no cap; ``json_format`` is the first
        ``response_format`` kind to try when a schema is hinted (see ``JSON_FORMATS``); ``slots``: calls the
        endpoint serves at once (default ``settings.parallel``); ``extra_body``: fields the endpoint takes
        beyond OpenAI's (llama-server: ``cache_prompt``)."""
        self.settings = settings
        self.base_url = base_url or settings.base_url
        if not self.base_url:
            raise LLMUnavailableError(NO_MODEL_MESSAGE)
        self.backoff_s = backoff_s
        self.max_tokens = max_tokens
        self.extra_body = extra_body
        self._slots = slots or settings.parallel
        self._model = model or settings.model
        self._format_level = JSON_FORMATS.index(json_format)
        self._format_confirmed = False
        self._client = OpenAI(
            base_url=self.base_url,
            api_key=settings.api_key.get_secret_value(),
            timeout=settings.timeout_s,
            max_retries=0,
        )

    # -- model name ------------------------------------------------------------------------------
    @property
    def model_name(self) -> str:
        if self._model is None:
            models = self._with_retries(lambda: self._client.models.list(timeout=self.settings.timeout_s))
            ids = [m.id for m in models.data]
            if not ids:
                raise LLMUnavailableError(
                    f"The chat endpoint {self.base_url} lists no models; set KGAGENTS_LLM_MODEL."
                )
            self._model = ids[0]
        return self._model

    @property
    def slots(self) -> int:
        return self._slots

    @property
    def json_format(self) -> str | None:
        """The ``response_format`` kind this client sends with a schema now (after any fallback)."""
        return JSON_FORMATS[self._format_level]

    # -- calls -----------------------------------------------------------------------------------
    def complete(
        self,
        messages: Sequence[Message],
        *,
        purpose: str,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        top_logprobs: int | None = None,
    ) -> ChatResult:
        model = self.model_name
        cap = max_tokens or self.max_tokens
        start = time.perf_counter()
        failed: list[FailedRequest] = []
        level = self._format_level if json_schema is not None else len(JSON_FORMATS) - 1
        probed: int | None = None  # the level whose probe the endpoint refused in this call
        while True:
            kind = JSON_FORMATS[level]
            probing = kind is not None and not self._format_confirmed
            extra: dict[str, Any] = {} if cap is None else {"max_tokens": cap}
            if kind is not None and json_schema is not None:
                extra["response_format"] = _response_format(kind, json_schema)
            if top_logprobs:
                extra.update(logprobs=True, top_logprobs=top_logprobs)
            if self.extra_body:
                extra["extra_body"] = self.extra_body
            try:
                response = self._with_retries(
                    lambda extra=extra: self._client.chat.completions.create(
                        model=model,
                        messages=list(messages),  # type: ignore[arg-type]
                        temperature=self.settings.temperature,
                        timeout=self.settings.timeout_s,
                        **extra,
                    ),
                    failed,
                    retry_server_errors=not probing,
                )
                break
            except LLMRequestError as exc:
                # A probe the endpoint refused, or a schema it cannot decode under: the next, plainer mode.
                status = exc.status_code or 0
                refused = (probing and status >= 500) or (400 <= status < 500 and status != 429
                                                          and _about_response_format(exc))
                if kind is not None and refused:
                    probed = level if probing else probed
                    level += 1
                    continue
                exc.failed_requests = tuple(failed)  # type: ignore[attr-defined]  # read by the ledger
                raise
            except LLMUnavailableError as exc:
                exc.failed_requests = tuple(failed)  # type: ignore[attr-defined]
                raise
        if probed is not None:  # the refused mode is unsupported: this client stays at the one that answered
            self._format_level = max(self._format_level, level)
        if JSON_FORMATS[level] is not None and level == self._format_level:
            self._format_confirmed = True
        text = valid_text((response.choices[0].message.content or "") if response.choices else "")
        usage = response.usage
        prompt_tokens = usage.prompt_tokens if usage else sum(approx_tokens(m["content"]) for m in messages)
        completion_tokens = usage.completion_tokens if usage else approx_tokens(text)
        return ChatResult(
            text=text,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            seconds=time.perf_counter() - start,
            model=response.model or model,
            failed_requests=tuple(failed),
            output_format=JSON_FORMATS[level] or "text",
            first_token_logprobs=_first_token_logprobs(response) if top_logprobs else None,
        )

    def _with_retries(self, call: Any, failed: list[FailedRequest] | None = None,
                      retry_server_errors: bool = True) -> Any:
        """Run ``call`` with exponential backoff on transient errors (a probe of a JSON mode does not retry a
        5xx: it may be the mode's refusal); translate what remains. Every request that raises is appended to
        ``failed``."""
        attempts = self.settings.max_retries + 1

        def request() -> Any:
            started, clock = datetime.now(timezone.utc), time.perf_counter()
            try:
                return call()
            except Exception as exc:
                if failed is not None:
                    failed.append(FailedRequest(started.isoformat(), time.perf_counter() - clock,
                                                f"{type(exc).__name__}: {exc}"[:500]))
                raise

        def worth_retrying(exc: BaseException) -> bool:
            return _transient(exc) and (retry_server_errors or not isinstance(exc, APIStatusError)
                                        or isinstance(exc, RateLimitError))

        retrying = Retrying(
            retry=retry_if_exception(worth_retrying),
            stop=stop_after_attempt(attempts),
            wait=wait_exponential_jitter(multiplier=self.backoff_s, max=30.0, jitter=self.backoff_s),
            reraise=True,
        )
        try:
            return retrying(request)
        except APITimeoutError as exc:
            raise LLMRequestError(
                f"The chat model at {self.base_url} did not answer within {self.settings.timeout_s:g} s "
                f"({attempts} attempts). Raise KGAGENTS_LLM_TIMEOUT_S or use a faster model."
            ) from exc
        except APIConnectionError as exc:
            raise LLMUnavailableError(
                f"Cannot reach the chat model at {self.base_url} ({exc.__cause__ or exc}). Check "
                "KGAGENTS_LLM_BASE_URL, or unset it and run `kgagents llm start` for the embedded model."
            ) from exc
        except AuthenticationError as exc:
            raise _status_error(exc, f"The chat model at {self.base_url} rejected the API key; "
                                     "set KGAGENTS_LLM_API_KEY.") from exc
        except RateLimitError as exc:
            raise _status_error(exc, f"The chat model at {self.base_url} is still rate-limiting after "
                                     f"{attempts} attempts; wait, or raise KGAGENTS_LLM_MAX_RETRIES.") from exc
        except APIStatusError as exc:
            what = "failed" if exc.status_code >= 500 else "rejected the request"
            tail = f" after {attempts} attempts" if exc.status_code >= 500 else ""
            raise _status_error(
                exc, f"The chat model at {self.base_url} {what} (HTTP {exc.status_code}{tail}): {exc.message}"
            ) from exc


def _first_token_logprobs(response: Any) -> dict[str, float] | None:
    """token → log-probability for the first reply token's alternatives, or ``None`` if the reply has none."""
    choice = response.choices[0] if response.choices else None
    content = getattr(getattr(choice, "logprobs", None), "content", None)
    if not content:
        return None
    return {alt.token: alt.logprob for alt in content[0].top_logprobs or []} or {content[0].token: content[0].logprob}


def _status_error(exc: APIStatusError, message: str) -> LLMRequestError:
    return LLMRequestError(message, status_code=exc.status_code)


def resolve_chat_model(settings: LLMSettings | None = None) -> ChatModel:
    """The configured endpoint if ``base_url`` is set; else the embedded server if it runs; else an error."""
    from kgagents.servers.llama import LOCAL_MAX_TOKENS, LlamaServer

    settings = settings or LLMSettings()
    if settings.base_url:
        return OpenAIChatModel(settings)
    status = LlamaServer(settings).status()
    if status.running:
        return OpenAIChatModel(settings, base_url=status.base_url, model=status.model, max_tokens=LOCAL_MAX_TOKENS,
                               slots=status.parallel, extra_body={"cache_prompt": True})
    raise LLMUnavailableError(NO_MODEL_MESSAGE)
