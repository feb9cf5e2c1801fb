"""An MCP server over stdio or streamable HTTP, its tools answered by a synchronous callable.

The mirror and the world-model tools are ordinary synchronous code (the engines and the
recorder block); the MCP SDK's low-level server is asynchronous. Each call therefore runs in a
worker thread, so a slow world-model step never stalls the connection's other messages (pings,
cancellations). Bad calls are JSON-RPC errors (-32602, invalid params), as real servers answer
an unknown tool or arguments their schema refuses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from backend.errors import BadActionError, BadInputError, UnknownNameError

INVALID_PARAMS = -32602
HTTP_PATH = "/mcp"

ToolCaller = Callable[[str, dict[str, Any]], dict[str, Any]]
"""(tool name, arguments) -> an MCP tool result (`content`, `structuredContent`, `isError`)."""


def build_server(name: str, version: str, tools: Sequence[dict[str, Any]], call: ToolCaller) -> Any:
    """A low-level `mcp` server listing `tools` and answering each call with `call`."""
    import anyio.to_thread
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    listed = [types.Tool.model_validate(tool) for tool in tools]

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: Any, params: Any) -> Any:
        arguments = dict(params.arguments or {})
        try:
            result = await anyio.to_thread.run_sync(call, params.name, arguments)
        except (BadActionError, BadInputError, UnknownNameError) as exc:
            raise MCPError(INVALID_PARAMS, str(exc)) from None
        return types.CallToolResult.model_validate(result)

    return Server(name, version=version, on_list_tools=list_tools, on_call_tool=call_tool)


def serve_stdio(server: Any) -> None:
    """Serve one client on this process's stdin and stdout until it disconnects."""
    import anyio
    from mcp.server.stdio import stdio_server

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


def serve_http(server: Any, host: str, port: int) -> None:
    """Serve streamable HTTP at `http://host:port/mcp` until interrupted."""
    import uvicorn

    app = server.streamable_http_app(streamable_http_path=HTTP_PATH, host=host)
    uvicorn.run(app, host=host, port=port, log_level="warning")
