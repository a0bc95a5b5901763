"""Claude Code ``mcp_tool`` hooks: a tool of an MCP server called with the hook's ``input``,
its text answer read as a command hook's stdout (Claude Code's hooks reference: the tool's
text output goes through the same parser as a command hook's).

``input``'s strings may name parts of the event's JSON, ``${tool_input.file_path}``,
``${session_id}`` (a dotted path; a list index is a number): each reference is replaced by
that value — a string as it is, anything else as JSON, a path that leads nowhere as empty
text. Only the plugin's own servers are called (the key in its ``.mcp.json``, or
``plugin:<plugin>:<server>`` as Claude Code names a plugin's servers): they run in the
plugin's sandbox; a hook naming another is ``claude.hook_mcp_server_unknown``. A server that
is not running, an error from the tool, a timeout: a non-blocking failure, as in Claude Code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import anyio

from adapters.plugin_host import _codes as codes
from adapters.plugin_host._hook_config import McpToolHook
from adapters.plugin_host._hook_process import OUTPUT_LIMIT, HookRun

if TYPE_CHECKING:
    from adapters.plugin_host._servers import McpServer

__all__ = ["ToolCaller", "fill_input", "own_server", "server_caller"]

ToolCaller = Callable[[McpToolHook, dict[str, Any]], Awaitable[HookRun]]
"""Calls a hook's tool with its filled ``input``."""
ServerLost = Callable[["McpServer", BaseException], None]
"""Told when a hook's call finds its server gone (it is marked exited and said once, as a
tool call that finds it gone does)."""

_REFERENCE = re.compile(r"\$\{([A-Za-z0-9_.\-]+)\}")


def _lookup(data: Any, path: str) -> Any:
    for part in path.split("."):
        if isinstance(data, Mapping):
            data = data.get(part)
        elif isinstance(data, list) and part.isdigit() and int(part) < len(data):
            data = data[int(part)]
        else:
            return None
    return data


def fill_input(value: Any, event: Mapping[str, Any]) -> Any:
    """``value`` with every ``${path}`` in its strings replaced from ``event``."""
    if isinstance(value, str):

        def fill(match: re.Match[str]) -> str:
            found = _lookup(event, match.group(1))
            if found is None:
                return ""
            return found if isinstance(found, str) else json.dumps(found, ensure_ascii=False)

        return _REFERENCE.sub(fill, value)
    if isinstance(value, Mapping):
        return {str(key): fill_input(item, event) for key, item in value.items()}
    if isinstance(value, list):
        return [fill_input(item, event) for item in value]
    return value


def own_server(name: str, plugin: str, servers: Sequence[str]) -> str | None:
    """The plugin's server a hook's ``server`` names, or None."""
    prefix = f"plugin:{plugin}:"
    bare = name[len(prefix) :] if name.startswith(prefix) else name
    return bare if bare in servers else None


def server_caller(servers: Sequence[McpServer], plugin: str, lost: ServerLost) -> ToolCaller:
    """A ``ToolCaller`` over the plugin host's servers."""
    by_name = {server.spec.name: server for server in servers}

    async def call(hook: McpToolHook, arguments: dict[str, Any]) -> HookRun:
        name = own_server(hook.server, plugin, list(by_name))
        if name is None:
            return HookRun(
                None, "", "", f"names MCP server {hook.server!r}, which is not one of the "
                "plugin's own; not called", code=codes.CLAUDE_HOOK_MCP_SERVER_UNKNOWN.code,
            )  # fmt: skip
        server = by_name[name]
        session = server.session
        if session is None or server.exited is not None:
            why = server.exited or server.failure or "not running"
            return HookRun(None, "", "", f"could not call it: server {name!r}: {why}")
        from adapters.plugin_host._channel import describe_error
        from adapters.plugin_host._content import tool_reply
        from adapters.plugin_host._shapes import CONNECTION_CLOSED, InvalidResult, MCPError

        try:
            with anyio.fail_after(hook.timeout):
                result = await session.call_tool(hook.tool, arguments, None, None)
        except TimeoutError:
            return HookRun(None, "", "", f"timed out after {hook.timeout:g} s")
        except MCPError as error:
            if error.code == CONNECTION_CLOSED:
                lost(server, error)
            return HookRun(None, "", "", f"failed: MCP error: {error.message}")
        except InvalidResult as error:
            return HookRun(None, "", "", f"failed: the server answered an invalid result: {error}")
        except Exception as error:  # a lost server: the event goes on
            lost(server, error)
            return HookRun(None, "", "", f"failed: {describe_error(error)}")
        reply = tool_reply(result, False)
        text = str(reply.get("content") or "")
        if reply.get("is_error"):
            return HookRun(None, "", "", f"the tool answered an error: {text[:2000]}")
        if len(text.encode("utf-8")) > OUTPUT_LIMIT:
            return HookRun(None, "", "", f"answered more than {OUTPUT_LIMIT} bytes", overflow=True)
        return HookRun(0, text, "")

    return call
