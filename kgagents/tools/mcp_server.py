"""Serve a compiled tool catalogue over MCP (the official ``mcp`` SDK; stdio or streamable HTTP).

Every compiled tool becomes an MCP tool with the same name, the pydantic model's JSON schema as its
input schema, its group in the title and in ``_meta`` (``kgagents/group``: create entities, add
relations, add attributes, add quantities, validate, look up) and read-only hints on the look-ups.
A call runs :meth:`ToolRuntime.call` in a worker thread (the Neo4j driver is synchronous) and answers
with the tool's JSON both as text and as structured content; a rejected call is an MCP tool error
(``isError``) whose content is the structured feedback, so a client can repair and retry. Over HTTP every
request must carry a bearer token (:class:`BearerToken`).
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from neo4j.exceptions import ServiceUnavailable, SessionExpired, TransientError

from kgagents import __version__
from kgagents.errors import KgAgentsError, Neo4jUnavailableError
from kgagents.tools.compiler import ToolSpec
from kgagents.tools.runtime import ToolRuntime

GROUP_META = "kgagents/group"
log = logging.getLogger(__name__)


def mcp_tool(spec: ToolSpec) -> types.Tool:
    """The MCP description of one compiled tool."""
    return types.Tool(
        name=spec.name,
        title=f"{spec.group.value}: {spec.name}",
        description=spec.description,
        input_schema=spec.input_schema,
        annotations=types.ToolAnnotations(read_only_hint=spec.read_only, destructive_hint=False,
                                          idempotent_hint=True, open_world_hint=False),
        meta={GROUP_META: spec.group.value, "kgagents/target": spec.target},
    )


def _tool_result(payload: dict[str, Any], *, is_error: bool) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(payload))],
                                structured_content=payload, is_error=is_error)


def _failure(exc: Exception) -> dict[str, Any]:
    """A call that failed on the server's side (the graph unreachable, a bug) as tool feedback: what happened, in one
    line, and whether trying again may help."""
    retryable = isinstance(exc, (Neo4jUnavailableError, ServiceUnavailable, SessionExpired, TransientError))
    text = " ".join(str(exc).split())[:500]
    log.warning("tool call failed: %s: %s", type(exc).__name__, text)
    return {"ok": False, "error_type": "unavailable" if retryable else "server_error", "field": None,
            "message": text if isinstance(exc, KgAgentsError) else f"{type(exc).__name__}: {text}",
            "retryable": retryable}


def build_server(runtime: ToolRuntime) -> Server[Any]:
    """An MCP server exposing ``runtime``'s catalogue on its A-Box."""
    tools = [mcp_tool(t) for t in runtime.catalogue.tools.values()]

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            result = await anyio.to_thread.run_sync(runtime.call, params.name, dict(params.arguments or {}))
        except Exception as exc:  # noqa: BLE001 - the client gets the reason, not a bare -32603 "Internal error"
            return _tool_result(_failure(exc), is_error=True)
        return _tool_result(result.as_dict(), is_error=not result.ok)

    tbox = runtime.tbox
    return Server(
        "kgagents-tools", version=__version__, title=f"kgagents ontology tools: {tbox.name}",
        instructions=(f"Tools compiled from the {tbox.name} ontology; they are the only way to write instances "
                      f"into A-Box '{runtime.abox}'. Create entities first (create_*), then add relations, "
                      "attributes and quantities (add_*) using the IRIs the create tools return; a rejected call "
                      "says why (error_type, field, allowed_values) so it can be repaired."),
        on_list_tools=list_tools, on_call_tool=call_tool,
    )


async def serve_stdio(runtime: ToolRuntime) -> None:
    """Serve on stdin/stdout until the client closes the stream."""
    from mcp.server.stdio import stdio_server

    server = build_server(runtime)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class BearerToken:
    """ASGI middleware: an HTTP request without ``Authorization: Bearer <token>`` gets 401 and never reaches the
    MCP server. Why: the tools write into the graph, and any local process or web page could otherwise call them
    (stdio needs no token: only the process that started the server can write to its stdin)."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = next((v for k, v in scope.get("headers", []) if k.lower() == b"authorization"), b"")
            if not hmac.compare_digest(given, self.expected):
                body = json.dumps({"error": "unauthorized: send the token serve-tools printed (or was given) as "
                                            "'Authorization: Bearer <token>'"}).encode()
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="kgagents-tools"')]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def serve_http(runtime: ToolRuntime, port: int, token: str, host: str = "127.0.0.1") -> None:
    """Serve streamable HTTP at ``http://host:port/mcp`` until interrupted; every request must carry ``token``
    (:class:`BearerToken`)."""
    import uvicorn

    app = build_server(runtime).streamable_http_app(host=host)
    uvicorn.run(BearerToken(app, token), host=host, port=port, log_level="warning")
