"""A small MCP server built on the official Python SDK (mcp==2.3.0), for `mcp-tutor check` to judge.

It is deliberately plain SDK usage: the low-level `Server` with the SDK's own `ListenHandler` serving
`subscriptions/listen` over its streamable HTTP app. Nothing here bends the protocol, so every
deviation `check` reports is the SDK's, not ours (see expected-sdk-deviations.txt).

Tools, named as the official conformance suite expects:
  test_trigger_tool_change          publishes notifications/tools/list_changed
  test_trigger_prompt_change        publishes notifications/prompts/list_changed
  test_trigger_resource_list_change publishes notifications/resources/list_changed
  test_trigger_resource_update      publishes notifications/resources/updated (argument `uri`)
  test_close_subscriptions          ends every open listen stream gracefully (the listen result)

Usage: python sdk_server.py [--port N]   (binds 127.0.0.1; prints `listening on URL` when ready)
       python sdk_server.py --stdio     (newline-delimited JSON-RPC on stdin/stdout)
"""

from __future__ import annotations

import argparse
import socket
import sys

import anyio
import mcp_types as types
import uvicorn
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
    ToolsListChanged,
)

HOST = "127.0.0.1"
NOTE_URI = "mock://notes/today"

bus = InMemorySubscriptionBus()
listen_handler = ListenHandler(bus)


def _tool(name: str, description: str, properties: dict | None = None) -> types.Tool:
    schema: dict = {"type": "object", "properties": properties or {}}
    return types.Tool(name=name, description=description, input_schema=schema)


TOOLS = [
    _tool("test_trigger_tool_change", "Publish notifications/tools/list_changed to listeners."),
    _tool("test_trigger_prompt_change", "Publish notifications/prompts/list_changed to listeners."),
    _tool("test_trigger_resource_list_change", "Publish notifications/resources/list_changed to listeners."),
    _tool(
        "test_trigger_resource_update",
        "Publish notifications/resources/updated for `uri` (default: the note) to listeners.",
        {"uri": {"type": "string"}},
    ),
    _tool("test_close_subscriptions", "End every open subscriptions/listen stream gracefully."),
]


async def list_tools(ctx: ServerRequestContext, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams) -> types.CallToolResult:
    args = params.arguments or {}
    match params.name:
        case "test_trigger_tool_change":
            await bus.publish(ToolsListChanged())
        case "test_trigger_prompt_change":
            await bus.publish(PromptsListChanged())
        case "test_trigger_resource_list_change":
            await bus.publish(ResourcesListChanged())
        case "test_trigger_resource_update":
            await bus.publish(ResourceUpdated(uri=str(args.get("uri", NOTE_URI))))
        case "test_close_subscriptions":
            listen_handler.close()
        case _:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=f"unknown tool {params.name!r}")], is_error=True
            )
    return types.CallToolResult(content=[types.TextContent(type="text", text="ok")])


async def list_prompts(
    ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=[types.Prompt(name="greeting", description="Say hello.")])


async def list_resources(
    ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    return types.ListResourcesResult(
        resources=[types.Resource(uri=NOTE_URI, name="today", mime_type="text/plain")]
    )


async def read_resource(ctx: ServerRequestContext, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
    if str(params.uri) != NOTE_URI:
        raise MCPError(types.INVALID_PARAMS, f"unknown resource {params.uri}")
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=NOTE_URI, mime_type="text/plain", text="Buy milk.")]
    )


server = Server(
    "peers-sdk-server",
    version="0.1.0",
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    on_list_prompts=list_prompts,
    on_list_resources=list_resources,
    on_read_resource=read_resource,
    on_subscriptions_listen=listen_handler,
)


async def main(port: int) -> None:
    # Bind first so the printed URL is the one actually served, even with --port 0.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, port))
    app = server.streamable_http_app(host=HOST)
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1)
    uv = uvicorn.Server(config)

    async def announce() -> None:
        while not uv.started:
            await anyio.sleep(0.02)
        print(f"listening on http://{HOST}:{sock.getsockname()[1]}/mcp", flush=True)

    async with anyio.create_task_group() as tg:
        tg.start_soon(announce)
        await uv.serve(sockets=[sock])


async def main_stdio() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--stdio", action="store_true", help="serve on stdin/stdout instead of HTTP")
    args = parser.parse_args()
    try:
        if args.stdio:
            anyio.run(main_stdio)
        else:
            anyio.run(main, args.port)
    except KeyboardInterrupt:
        sys.exit(0)
