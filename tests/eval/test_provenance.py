"""What a results file records about the model server that served an LLM run, and how its name is made."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import provenance
from kgagents.llm.models import LOCAL_MODELS
from kgagents.servers.llama import LlamaServer, LlamaStatus


def _status(running: bool) -> LlamaStatus:
    return LlamaStatus(running=running, pid=1 if running else None, port=8765, base_url="http://127.0.0.1:8765/v1",
                       log_path=Path("server.log"), model="qwen2.5-coder-1.5b" if running else None,
                       threads=1 if running else None, parallel=2 if running else None)


def test_a_running_embedded_server_is_recorded_with_threads_slots_and_the_pinned_sha(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(LlamaServer, "status", lambda self: _status(True))
    written = provenance.write_results(tmp_path, "x", {})
    recorded = json.loads(written[0].read_text())["llm_server"]
    assert recorded["threads"] == 1 and recorded["slots"] == 2 and recorded["model"] == "qwen2.5-coder-1.5b"
    assert recorded["gguf_sha256"] == LOCAL_MODELS["qwen2.5-coder-1.5b"].sha256


def test_no_server_is_recorded_as_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(LlamaServer, "status", lambda self: _status(False))
    assert provenance.provenance()["llm_server"] is None


def test_file_slug_keeps_a_negative_number_apart_from_a_positive_one() -> None:
    assert provenance.file_slug("validator_min_log_odds=-1.085") == "validator-min-log-odds-minus1.085"
    assert provenance.file_slug("validator_min_log_odds=1.085") == "validator-min-log-odds-1.085"
    assert provenance.file_slug("Qwen2.5-Coder-1.5B") == "qwen2.5-coder-1.5b"  # hyphens between words stay hyphens
