"""Serve a compiled tool catalogue over MCP (the official ``mcp`` SDK; stdio or streamable HTTP).

Every compiled tool becomes an MCP tool with the same name, the pydantic model's JSON schema as its
input schema, its group in the title and in ``_meta`` (``kgagents/group``: create entities, add
relations, add attributes, add quantities, validate, look up) and read-only hints on the look-ups.
A call runs :meth:`ToolRuntime.call` in a worker thread (the Neo4j driver is synchronous) and answers
with the tool's JSON both as text and as structured content; a rejected call is an MCP tool error
(``isError``) whose content is the structured feedback, so a client can repair and retry.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server

from kgagents import __version__
from kgagents.tools.compiler import ToolSpec
from kgagents.tools.runtime import ToolRuntime

GROUP_META = "kgagents/group"


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


def build_server(runtime: ToolRuntime) -> Server[Any]:
    """An MCP server exposing ``runtime``'s catalogue on its A-Box."""
    tools = [mcp_tool(t) for t in runtime.catalogue.tools.values()]

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        result = await anyio.to_thread.run_sync(runtime.call, params.name, dict(params.arguments or {}))
        payload = result.as_dict()
        return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(payload))],
                                    structured_content=payload, is_error=not result.ok)

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


def serve_http(runtime: ToolRuntime, port: int, host: str = "127.0.0.1") -> None:
    """Serve streamable HTTP at ``http://host:port/mcp`` until interrupted."""
    import uvicorn

    app = build_server(runtime).streamable_http_app(host=host)
    uvicorn.run(app, host=host, port=port, log_level="warning")
