"""The OpenAI-compatible client path, against a tiny real HTTP server on 127.0.0.1 (no network)."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest
from pydantic import SecretStr

from kgagents.config import EmbeddingSettings
from kgagents.embeddings import get_embedder, register
from kgagents.embeddings.base import Embedder
from kgagents.embeddings.openai_compat import OpenAICompatEmbedder
from kgagents.errors import EmbeddingError

DIM = 6


def fake_vector(text: str) -> list[float]:
    """Deterministic, deliberately unnormalised vector derived from the text's hash."""
    digest = hashlib.sha256(text.encode()).digest()
    return [float(b) - 100.0 for b in digest[:DIM]]


class Server:
    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.auth: list[str | None] = []
        self.fail_with: int | None = None
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server API)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                outer.auth.append(self.headers.get("Authorization"))
                if self.path != "/v1/embeddings" or outer.fail_with:
                    status = outer.fail_with or 404
                    payload = {"error": {"message": "model not loaded", "type": "invalid_request_error"}}
                else:
                    status = 200
                    items = [{"object": "embedding", "index": i, "embedding": fake_vector(t)}
                             for i, t in enumerate(body["input"])]
                    # Answer out of order: the client must put vectors back by index.
                    payload = {"object": "list", "data": items[::-1], "model": body["model"],
                               "usage": {"prompt_tokens": 1, "total_tokens": 1}}
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server()
    thread = threading.Thread(target=s.httpd.serve_forever, daemon=True)
    thread.start()
    yield s
    s.httpd.shutdown()
    s.httpd.server_close()


def settings(server: Server, **kw: object) -> EmbeddingSettings:
    return EmbeddingSettings(provider="openai", model="test-embed", base_url=server.url,
                             api_key=SecretStr("sk-test"), **kw)


def test_vectors_batches_order_and_auth(server: Server) -> None:
    embedder = get_embedder(settings(server, batch_size=3))
    assert isinstance(embedder, OpenAICompatEmbedder)
    texts = [f"label {i}" for i in range(7)]
    v = embedder.embed(texts)
    assert [len(r["input"]) for r in server.requests] == [3, 3, 1]
    assert all(r["model"] == "test-embed" and r["encoding_format"] == "float" for r in server.requests)
    assert server.auth == ["Bearer sk-test"] * 3
    expected = np.array([fake_vector(t) for t in texts], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert v.dtype == np.float32 and v.shape == (7, DIM)
    assert np.allclose(v, expected, atol=1e-6)
    assert embedder.dimensions == DIM and embedder.name == "test-embed"
    assert len(server.requests) == 3  # dimension known from the answers, no extra probe


def test_dimension_probe_before_first_embed(server: Server) -> None:
    embedder = get_embedder(settings(server))
    assert embedder.dimensions == DIM
    assert len(server.requests) == 1


def test_http_error_is_actionable(server: Server) -> None:
    server.fail_with = 400
    with pytest.raises(EmbeddingError, match="HTTP 400.*KGAGENTS_EMBED_MODEL"):
        get_embedder(settings(server)).embed(["x"])


def test_unreachable_endpoint_is_actionable() -> None:
    embedder = OpenAICompatEmbedder(model="m", base_url="http://127.0.0.1:1/v1", api_key=None)
    with pytest.raises(EmbeddingError, match="KGAGENTS_EMBED_BASE_URL"):
        embedder.embed(["x"])


def test_register_custom_provider() -> None:
    class Constant(Embedder):
        name = "constant"
        dimensions = 2

        def embed(self, texts):  # type: ignore[override]
            return np.ones((len(texts), 2), dtype=np.float32) / np.sqrt(2)

    register("constant-test", lambda s: Constant())
    assert get_embedder(EmbeddingSettings(provider="constant-test")).name == "constant"
