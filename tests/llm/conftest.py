"""Fixtures for the LLM layer: a tiny OpenAI-compatible HTTP server on 127.0.0.1 with scripted answers.

It lets the tests drive the real ``openai`` client and the real retry code — status codes, delays,
response bodies — with no network and no model.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "llm: starts the embedded llama.cpp model server (needs the llm extra)")


@dataclass
class Answer:
    """One scripted HTTP answer: status, reply text (or raw error body), optional delay before answering."""

    status: int = 200
    text: str = "ok"
    delay_s: float = 0.0
    usage: tuple[int, int] | None = (7, 3)
    reject_response_format: str | None = None  # answer 400 if the request uses this response_format type
    top_logprobs: dict[str, float] | None = None  # first-token alternatives, sent when the request asks for them


@dataclass
class FakeEndpoint:
    answers: list[Answer]
    models: list[str] = field(default_factory=lambda: ["fake-model"])
    requests: list[dict[str, Any]] = field(default_factory=list)
    base_url: str = ""

    def next_answer(self, body: dict[str, Any]) -> Answer:
        self.requests.append(body)
        if not self.answers:
            return Answer(status=500, text="fake endpoint ran out of scripted answers")
        answer = self.answers[0]
        fmt = (body.get("response_format") or {}).get("type")
        if answer.reject_response_format is not None and fmt == answer.reject_response_format:
            return Answer(status=400, text=f"response_format {fmt} is not supported")
        return self.answers.pop(0)


def _handler(endpoint: FakeEndpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep pytest output clean
            pass

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
                pass

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            self._send(200, {"object": "list", "data": [{"id": m, "object": "model", "created": 0,
                                                         "owned_by": "test"} for m in endpoint.models]})

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            answer = endpoint.next_answer(body)
            time.sleep(answer.delay_s)
            if answer.status != 200:
                self._send(answer.status, {"error": {"message": answer.text, "type": "test", "code": None}})
                return
            payload: dict[str, Any] = {
                "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": answer.text}}],
            }
            if answer.top_logprobs is not None and body.get("logprobs"):
                alternatives = [{"token": t, "logprob": lp, "bytes": None} for t, lp in answer.top_logprobs.items()]
                payload["choices"][0]["logprobs"] = {"content": [{**alternatives[0], "top_logprobs": alternatives}]}
            if answer.usage is not None:
                payload["usage"] = {"prompt_tokens": answer.usage[0], "completion_tokens": answer.usage[1],
                                    "total_tokens": sum(answer.usage)}
            self._send(200, payload)

    return Handler


@pytest.fixture
def fake_endpoint() -> Iterator[FakeEndpoint]:
    """An OpenAI-compatible server on a free loopback port; set ``.answers`` before calling it."""
    endpoint = FakeEndpoint(answers=[])
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(endpoint))
    server.daemon_threads = True
    endpoint.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield endpoint
    server.shutdown()
    server.server_close()
