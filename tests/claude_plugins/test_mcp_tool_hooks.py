"""Claude Code ``mcp_tool`` hooks: a tool of the plugin's own MCP server called with the
hook's ``input`` (``${path}`` filled from the event), its text read as a command hook's
stdout — through the real gateway and plugin host, the server a real process."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from adapters.plugin_host._hook_config import McpToolHook
from adapters.plugin_host._mcp_tool_hooks import fill_input, own_server, server_caller
from adapters.plugin_host._shapes import (
    CONNECTION_CLOSED,
    Block,
    CallResult,
    InvalidResult,
    MCPError,
)
from gateway import ToolOutcome, open_gateway
from gateway.packages import install, load_adapters
from gateway.store import StateStore

pytestmark = pytest.mark.anyio

POLICY = """
import json
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("policy")


@server.tool(description="Judge a shell command.")
def evaluate(command: str, session: str = "") -> str:
    if command == "boom":
        raise ToolError("the policy tool broke")
    if "rm -rf" in command:
        return json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                           "permissionDecision": "deny",
                           "permissionDecisionReason": f"policy: no {command!r}"}})
    return ""


if __name__ == "__main__":
    server.run()
"""


def _plugin(root: Path) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "policy-guard"}))
    (root / "servers").mkdir()
    (root / "servers" / "policy.py").write_text(POLICY)
    servers = {"policy": {"command": sys.executable,
                          "args": ["${CLAUDE_PLUGIN_ROOT}/servers/policy.py"]}}  # fmt: skip
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    ask = {"type": "mcp_tool", "server": "policy", "tool": "evaluate",
           "input": {"command": "${tool_input.command}", "session": "${session_id}"}}  # fmt: skip
    elsewhere = {"type": "mcp_tool", "server": "github", "tool": "create_issue"}
    hooks = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [ask, elsewhere]}]}}
    (root / "hooks").mkdir()
    (root / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    return root


async def test_a_tool_of_the_plugins_own_server_decides_a_call(workspace: Any) -> None:
    home = workspace.config.home
    report = install(home, str(_plugin(workspace.home / "src" / "policy-guard")),
                     kind="local", inspector=load_adapters().inspect)  # fmt: skip
    unknown = [d for d in report.entry.diagnostics if d.code == "claude.hook_mcp_server_unknown"]
    assert len(unknown) == 1 and "'github'" in unknown[0].message
    with StateStore.open(home) as store:
        store.set_trusted("policy-guard", True)
        store.set_enabled("policy-guard", True)

    async def bash(arguments: dict[str, Any]) -> ToolOutcome:
        return ToolOutcome("ran")

    schema = {"type": "object", "properties": {"command": {"type": "string"}}}
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        gateway.register_builtin_tool("Bash", "Run a shell command", schema, bash)
        blocked = await gateway.call_tool("Bash", {"command": "rm -rf /"})
        allowed = await gateway.call_tool("Bash", {"command": "ls"})
        broken = await gateway.call_tool("Bash", {"command": "boom"})
        failed = [d.message for d in gateway.diagnostics if d.code == "claude.hook_failed"]
    assert blocked.blocked and blocked.content == "policy: no 'rm -rf /'"
    assert not allowed.blocked and allowed.content == "ran"
    # A tool that answers an error is a non-blocking failure, as in Claude Code.
    assert not broken.blocked and broken.content == "ran"
    assert any("the policy tool broke" in message for message in failed)


def test_input_strings_name_parts_of_the_event() -> None:
    event = {"session_id": "s1", "tool_input": {"file_path": "/w/a.py", "lines": [3, 4]}}
    filled = fill_input(
        {"path": "${tool_input.file_path}", "n": ["${tool_input.lines.1}", 7],
         "all": "${tool_input.lines}", "gone": "<${tool_input.nothing}>", "s": "${session_id}"},
        event,
    )  # fmt: skip
    assert filled == {"path": "/w/a.py", "n": ["4", 7], "all": "[3, 4]", "gone": "<>", "s": "s1"}


def test_only_the_plugins_own_servers_are_called() -> None:
    assert own_server("policy", "guard", ["policy"]) == "policy"
    assert own_server("plugin:guard:policy", "guard", ["policy"]) == "policy"
    assert own_server("plugin:other:policy", "guard", ["policy"]) is None
    assert own_server("github", "guard", ["policy"]) is None


class _Session:
    """A connected server's ``call_tool`` as the plain shapes give it (``_shapes.Session``)."""

    def __init__(self, answer: CallResult | Exception) -> None:
        self.answer = answer
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def call_tool(
        self, name: str, arguments: dict[str, Any], progress: Any, meta: Any
    ) -> CallResult:
        self.calls.append((name, arguments))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def _server(session: _Session) -> Any:
    return SimpleNamespace(spec=SimpleNamespace(name="policy"), session=session, exited=None,
                           failure=None)  # fmt: skip


HOOK = McpToolHook("PreToolUse", "Bash", "policy", "evaluate", {}, 5.0, "PreToolUse[0].hooks[0]")


async def test_the_tool_is_called_through_the_servers_session_and_its_text_read() -> None:
    text = Block(type="text", text='{"decision": "block"}')
    session = _Session(CallResult(content=(text,), structured=None, is_error=False))
    run = await server_caller([_server(session)], "guard", _never_lost)(HOOK, {"command": "ls"})
    assert session.calls == [("evaluate", {"command": "ls"})]
    assert (run.exit_code, run.stdout, run.failure) == (0, '{"decision": "block"}', None)


@pytest.mark.parametrize(
    ("error", "said"),
    [(MCPError(-32602, "Unknown tool: evaluate"), "MCP error: Unknown tool: evaluate"),
     (InvalidResult("content is not a list"), "invalid result: content is not a list"),
     (OSError("the pipe broke"), "OSError: the pipe broke")],
)  # fmt: skip
async def test_an_mcp_error_or_a_lost_server_is_a_failure_not_an_answer(
    error: Exception, said: str
) -> None:
    lost: list[BaseException] = []
    run = await server_caller([_server(_Session(error))], "guard", lambda _, e: lost.append(e))(
        HOOK, {}
    )
    assert run.exit_code is None and run.failure is not None and said in run.failure
    # Only the lost server is said gone (marked exited, reported once — as a tool call does).
    assert lost == ([error] if isinstance(error, OSError) else [])


async def test_a_connection_that_closed_under_the_hook_marks_its_server_lost() -> None:
    closed = MCPError(CONNECTION_CLOSED, "Connection closed")
    lost: list[BaseException] = []
    run = await server_caller([_server(_Session(closed))], "guard", lambda _, e: lost.append(e))(
        HOOK, {}
    )
    assert run.failure is not None and lost == [closed]


def _never_lost(server: Any, error: BaseException) -> None:
    raise AssertionError(f"not lost: {error}")
