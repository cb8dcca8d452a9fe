"""The embedded model end to end: start llama.cpp's server, get a yes/no answer parsed, stop it."""

from __future__ import annotations

import importlib.util
import socket

import pytest

from kgagents.config import LLMSettings
from kgagents.errors import LLMUnavailableError
from kgagents.llm import Ledger, ask_yes_no, resolve_chat_model
from kgagents.llm.local_server import LOCAL_MODELS, LocalLLMServer


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unknown_local_model_is_named_in_the_error() -> None:
    server = LocalLLMServer(LLMSettings(local_model="no-such-model", local_port=_free_port()))
    with pytest.raises(LLMUnavailableError, match="Unknown embedded model 'no-such-model'.*smollm2"):
        server.start()


@pytest.mark.llm
def test_embedded_model_answers_a_yes_no_question() -> None:
    if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("uvicorn") is None:
        pytest.skip("llama-cpp-python[server] is not installed (optional: pip install 'kgagents[llm]')")
    settings = LLMSettings(base_url=None, local_port=_free_port())
    try:
        LOCAL_MODELS[settings.local_model].locate(LocalLLMServer(settings).home)
    except LLMUnavailableError as exc:
        pytest.skip(str(exc))
    server = LocalLLMServer(settings)
    try:
        status = server.start()
        assert status.running and status.model == settings.local_model
        assert server.start().pid == status.pid  # idempotent: the running server is reused
        ledger = Ledger(settings, run_id="embedded-test")
        answer, _reason = ask_yes_no(ledger.wrap(resolve_chat_model(settings)),
                                     "Is 'Paper' the same concept as 'Article'?", purpose="validate")
        assert isinstance(answer, bool)
        assert {r.model for r in ledger.records} == {settings.local_model}  # outputs carry the model name
        assert ledger.totals().completion_tokens > 0
    finally:
        assert server.stop()
    assert not server.status().running
    with pytest.raises(LLMUnavailableError):
        resolve_chat_model(settings)
