"""The embedded llama-server: thread choice and status without a server (unit), and the real server end to end
(``llm`` marker: only where `make install-llm` has built the server and fetched a model)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgagents.cli import app
from kgagents.config import LLMSettings
from kgagents.errors import LLMUnavailableError
from kgagents.llm import Ledger, ask_yes_no, map_on_slots, resolve_chat_model
from kgagents.llm.models import LOCAL_MODELS, is_installed
from kgagents.servers.llama import LlamaServer, free_cores, llm_home, server_binary


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_threads_follow_the_free_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1})
    for load, expected in ((0.2, 2), (0.7, 1), (1.4, 1), (9.0, 1)):
        monkeypatch.setattr(os, "getloadavg", lambda load=load: (load, load, load))
        assert free_cores() == expected


def test_status_of_a_server_that_never_started(tmp_path: Path) -> None:
    status = LlamaServer(LLMSettings(local_port=_free_port()), home=tmp_path).status()
    assert not status.running and status.pid is None and status.model is None
    assert status.describe() == f"not running (port {status.port})"
    assert not LlamaServer(LLMSettings(local_port=status.port), home=tmp_path).stop()


def test_an_unknown_model_is_named_before_anything_is_fetched(tmp_path: Path) -> None:
    server = LlamaServer(LLMSettings(local_port=_free_port()), home=tmp_path)
    with pytest.raises(LLMUnavailableError, match="Unknown embedded model 'no-such-model'.*smollm2-135m"):
        server.start(model="no-such-model")
    assert list(tmp_path.iterdir()) == []


def test_cli_status_and_an_unknown_model(tmp_path: Path) -> None:
    env = {"KGAGENTS_LLM_LOCAL_PORT": str(_free_port()), "KGAGENTS_SERVER_HOME": str(tmp_path)}
    status = CliRunner().invoke(app, ["llm", "status"], env=env)
    assert status.exit_code == 0 and f"not running (port {env['KGAGENTS_LLM_LOCAL_PORT']})" in status.output
    bad = CliRunner().invoke(app, ["llm", "start", "--model", "gpt-9"], env=env)
    assert bad.exit_code == 1 and "Unknown embedded model 'gpt-9'" in bad.output and "Traceback" not in bad.output
    assert list(tmp_path.iterdir()) == []  # nothing fetched or built for a name that is not in the catalogue


def _installed_model() -> str:
    home = llm_home()
    if not server_binary(home).is_file():
        pytest.skip("llama-server is not built (make install-llm)")
    for name in ("smollm2-135m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"):  # smallest first
        if is_installed(LOCAL_MODELS[name], home):
            return name
    pytest.skip("no embedded model is installed (make install-llm)")


@pytest.mark.llm
def test_embedded_server_answers_constrained_on_two_slots() -> None:
    name = _installed_model()
    settings = LLMSettings(base_url=None, local_port=_free_port(), local_ctx=1024)
    server = LlamaServer(settings)
    try:
        status = server.start(model=name, threads=1, parallel=2)
        assert status.running and (status.model, status.threads, status.parallel) == (name, 1, 2)
        assert server.start(model=name, threads=1, parallel=2).pid == status.pid  # same settings: reused
        ledger = Ledger(settings, run_id="embedded-test")
        chat = ledger.wrap(resolve_chat_model(settings))
        assert chat.slots == 2
        answers = map_on_slots(chat, lambda q: ask_yes_no(chat, q, purpose="validate"),
                               ["Is 'Paper' the same concept as 'Article'?", "Is 'Heart' the same concept as 'Lung'?"])
        assert all(isinstance(a, bool) for a, _ in answers)
        records = [r for r in ledger.records if r.ok]
        assert {r.model for r in records} == {name}  # outputs carry the model name
        assert all(r.output_format == "json_schema" and r.parsed for r in records)  # decoded under the schema
        assert ledger.outcomes()[0].parse_failures == 0
    finally:
        assert server.stop()
    assert not server.status().running
    with pytest.raises(LLMUnavailableError):
        resolve_chat_model(settings)
