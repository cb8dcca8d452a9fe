"""The MCP server as a separate process, driven by the MCP SDK's own client over stdio and streamable HTTP."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from kgagents.config import Neo4jSettings
from kgagents.errors import Neo4jUnavailableError
from kgagents.graph.connection import Graph
from kgagents.tools.compiler import compile_ontology
from kgagents.tools.export import label_triples
from kgagents.tools.mcp_server import build_server
from kgagents.tools.runtime import ToolRuntime

pytestmark = pytest.mark.integration
TOKEN = "test-token-of-this-session"


def _env(settings: Neo4jSettings) -> dict[str, str]:
    return {**os.environ, "KGAGENTS_NEO4J_URI": settings.uri,
            "KGAGENTS_NEO4J_PASSWORD": settings.password.get_secret_value()}


def _ontology(shared_data: Path) -> Path:
    return shared_data / "extraction" / "text2kgbench" / "dbpedia_webnlg" / "ontologies" / "7_company_ontology.json"


async def _session(server: Any) -> dict[str, Any]:
    """List the tools, create two entities, relate them, and make one call the ontology rejects."""
    async with Client(server, read_timeout_seconds=120) as client:
        listed = (await client.list_tools()).tools
        acme = await client.call_tool("create_Company", {"label": "Acme Corp"})
        usa = await client.call_tool("create_Country", {"label": "United States"})
        ok = await client.call_tool("add_country", {"subject_iri": acme.structured_content["iri"],
                                                    "object_iri": usa.structured_content["iri"]})
        bad = await client.call_tool("add_numberOfEmployees", {"subject_iri": acme.structured_content["iri"],
                                                               "value": "many"})
        return {"tools": {t.name: t for t in listed}, "ok": ok, "bad": bad}


def _check(outcome: dict[str, Any]) -> None:
    tools = outcome["tools"]
    assert {"create_Company", "add_country", "validate", "search_by_label", "neighbours"} <= set(tools)
    assert tools["add_country"].input_schema["required"] == ["subject_iri", "object_iri"]
    assert tools["add_country"].meta["kgagents/group"] == "add relations"
    assert tools["search_by_label"].annotations.read_only_hint is True
    assert outcome["ok"].is_error is False and outcome["ok"].structured_content["ok"] is True
    bad = outcome["bad"]
    assert bad.is_error is True
    assert bad.structured_content["error_type"] == "datatype_violation"
    assert bad.structured_content["field"] == "value" and bad.structured_content["retryable"] is True


def test_stdio_session_with_the_sdk_client(graph: Graph, neo4j_settings: Neo4jSettings, shared_data: Path) -> None:
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "kgagents.cli", "serve-tools", str(_ontology(shared_data)),
                                         "--abox", "mcp-stdio"], env=_env(neo4j_settings))
    _check(anyio.run(_session, params))
    assert label_triples(graph, "mcp-stdio") == [("Acme Corp", "country", "United States")]


@pytest.fixture
def http_server(neo4j_settings: Neo4jSettings, shared_data: Path) -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "kgagents.cli", "serve-tools", str(_ontology(shared_data)),
                             "--http", str(port), "--abox", "mcp-http"], env={**_env(neo4j_settings),
                                                                               "KGAGENTS_MCP_TOKEN": TOKEN},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(f"serve-tools exited: {proc.stderr.read().decode() if proc.stderr else ''}")
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _with_token(url: str, token: str | None = TOKEN) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers))


def test_streamable_http_session_with_the_sdk_client(graph: Graph, http_server: str) -> None:
    _check(anyio.run(_session, _with_token(http_server)))
    assert label_triples(graph, "mcp-http") == [("Acme Corp", "country", "United States")]


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer wrong-token"}, {"Authorization": TOKEN}])
def test_http_without_the_token_is_refused(graph: Graph, http_server: str, headers: dict[str, str]) -> None:
    request = urllib.request.Request(http_server, method="POST", data=json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "create_Company",
                                                                      "arguments": {"label": "Intruder"}}}).encode(),
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    assert refused.value.code == 401 and refused.value.headers["WWW-Authenticate"].startswith("Bearer")
    assert label_triples(graph, "mcp-http") == []


def test_a_call_failing_on_the_server_is_a_tool_error_saying_why(graph: Graph, shared_data: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a bare JSON-RPC -32603: the client reads what went wrong (here the graph went away) as tool feedback."""
    runtime = ToolRuntime(graph, compile_ontology(_ontology(shared_data)), abox="mcp-down")

    def down(*_: Any) -> Any:
        raise Neo4jUnavailableError("bolt://127.0.0.1:1", "connection refused")

    monkeypatch.setattr(runtime, "call", down)

    async def call() -> Any:
        async with Client(build_server(runtime)) as client:
            return await client.call_tool("create_Company", {"label": "Acme Corp"})

    result = anyio.run(call)
    assert result.is_error
    assert result.structured_content["error_type"] == "unavailable" and result.structured_content["retryable"]
    assert "Cannot reach Neo4j" in result.structured_content["message"]
