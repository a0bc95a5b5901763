"""The plugin host's registration table, from what servers listed (no process needed)."""

from __future__ import annotations

from mcp import types

from adapters.plugin_host._config import ServerSpec
from adapters.plugin_host._naming import namer
from adapters.plugin_host._registry import Registry
from adapters.plugin_host._servers import McpServer
from adapters.plugin_host._shapes import read_tool


def listed(tools: list[types.Tool]) -> McpServer:
    """A server that listed ``tools`` (the SDK's models, read as the SDK path reads them)."""
    server = McpServer(ServerSpec("s", "python3", [], {}, "/"), namer("nanobot", "p", "s", 1))
    server.tools = [read_tool(tool.model_dump(by_alias=True, mode="json")) for tool in tools]
    return server


def test_a_tool_with_an_invalid_input_schema_is_left_out_alone() -> None:
    registry = Registry()
    registry.add_server(listed([
        types.Tool(name="bad", input_schema={"type": "object", "properties": {"x": {"type": 5}}}),
        types.Tool(name="good", input_schema={"type": "object"}),
    ]))  # fmt: skip
    assert list(registry.tools) == ["mcp_p_good"]
    [problem] = registry.diagnostics
    assert problem["code"] == "agent_plugins.tool_invalid" and "'bad'" in problem["message"]


def test_a_read_only_hint_makes_a_plan_safe_tool() -> None:
    registry = Registry()
    hint = types.ToolAnnotations(read_only_hint=True)
    registry.add_server(listed([types.Tool(name="look", input_schema={"type": "object"},
                                           annotations=hint)]))  # fmt: skip
    assert registry.tools["mcp_p_look"][1]["capabilities"] == ["read"]


def test_a_failed_server_is_one_diagnostic_naming_it() -> None:
    server = listed([])
    server.failure = "no MCP handshake within 20 s"
    registry = Registry()
    registry.add_server(server)
    assert registry.tools == {} and [d["contribution"] for d in registry.diagnostics] == ["s"]
