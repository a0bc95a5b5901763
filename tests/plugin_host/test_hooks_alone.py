"""A plugin of hooks alone (a Claude Code hook plugin: no MCP server) starts without the MCP
SDK: the SDK's import is most of a plugin host's start, and such a plugin never talks MCP.
Nor does a plugin whose stdio servers do the classic handshake (the lean client,
``_stdio_client``), nor one whose remote server cannot be connected (said before the SDK's
transport is imported); a stdio server that cannot do the classic handshake is reached
through the SDK, which is then loaded.
The plugin host runs as a real process; what it imported is read at its exit."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.agent_plugins._helpers import ALL_FEATURES, host_config, lite_calc

SCRIPTED = Path(__file__).parent / "fixtures" / "scripted_mcp_server.py"

# The plugin host's own entry (adapters.plugin_host.__main__), saying at exit whether any
# module of the MCP SDK was imported.
RUN = """
import sys
from adapters.plugin_host._main import main
code = main(sys.argv[1:])
loaded = sorted(m for m in sys.modules if m == "mcp" or m.startswith("mcp."))
sys.stderr.write(f"\\nMCP MODULES: {len(loaded)}\\n")
sys.exit(code)
"""
HOOKS = {"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [
    {"type": "command", "command": "echo 'no writes here' >&2; exit 2"}]}]}}  # fmt: skip


def _run(
    tmp_path: Path, servers: dict[str, Any], remote: dict[str, Any] | None = None
) -> tuple[list[dict[str, Any]], str]:
    config = host_config(tmp_path / "host.json", tmp_path / "data", servers, package="guard")
    document = {**json.loads(config.read_text()), "hooks": HOOKS, "remote": remote or {}}
    config.write_text(json.dumps(document))
    messages = [
        {"type": "initialize", "version": 1, "workspace": str(tmp_path), "session_id": "s1",
         "gateway": {"version": 1, "features": ALL_FEATURES}},
        {"type": "event", "id": "e-1", "event": "tool_call",
         "payload": {"tool": "Write", "arguments": {"file_path": "/tmp/x"}}},
    ]  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "-P", "-c", RUN, "--config", str(config)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=tmp_path,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    for message in messages:
        process.stdin.write(json.dumps(message) + "\n")
    process.stdin.flush()
    replies = [json.loads(process.stdout.readline()) for _ in range(2)]  # register, reply
    _, err = process.communicate('{"type": "shutdown"}\n', timeout=60)
    assert process.returncode == 0, err
    return replies, err


def test_a_plugin_of_hooks_alone_runs_its_hook_without_loading_the_mcp_sdk(tmp_path: Path):
    (register, reply), log = _run(tmp_path, servers={})
    assert register["type"] == "register" and register["events"] == ["tool_call"]
    assert not register.get("tools")
    assert reply == {"type": "response", "id": "e-1", "allow": False, "reason": "no writes here"}
    assert "MCP MODULES: 0" in log, log


def test_a_plugin_with_a_stdio_mcp_server_runs_it_without_loading_the_mcp_sdk(tmp_path: Path):
    calc = lite_calc(tmp_path)  # the demo's calc as a standard-library twin
    (register, reply), log = _run(tmp_path, servers={"calc": {"args": [str(calc)]}})
    assert "mcp_guard_add" in {tool["name"] for tool in register["tools"]}
    assert reply["allow"] is False
    assert "MCP MODULES: 0" in log, log


def test_a_remote_server_that_cannot_be_connected_is_said_without_loading_the_mcp_sdk(
    tmp_path: Path,
):
    remote = {"calc": {"transport": "streamable-http", "url": "http://127.0.0.1:1/mcp",
                       "headers": {"X-Key": "${GUARD_UNSET_KEY}"},
                       "grant": "network:127.0.0.1:1"}}  # fmt: skip
    (register, reply), log = _run(tmp_path, servers={}, remote=remote)
    [diagnostic] = register["gateway"]["diagnostics"]
    assert diagnostic["code"] == "remote_mcp.header_unset", diagnostic
    assert "gateway secret set guard GUARD_UNSET_KEY" in diagnostic["message"]
    assert reply["allow"] is False
    assert "MCP MODULES: 0" in log, log


def test_a_stdio_server_refusing_the_classic_handshake_loads_the_sdk(tmp_path: Path):
    """The control: the same plugin whose server speaks 2026-07-28 only loads the SDK."""
    args = [str(SCRIPTED), "modern", str(tmp_path / "received.jsonl")]
    (register, reply), log = _run(tmp_path, servers={"modern": {"args": args}})
    assert "mcp_guard_echo" in {tool["name"] for tool in register["tools"]}
    assert reply["allow"] is False
    assert "no classic MCP handshake" in log
    assert "MCP MODULES: 0" not in log and "MCP MODULES: " in log, log
