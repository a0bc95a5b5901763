"""A Claude Code plugin's ``http`` hook through the real gateway: its destination is an
optional ``network:HOST:PORT`` permission; until it is granted the confined plugin host does
not send the event and says which grant to give; once granted the request leaves through the
egress proxy of the plugin's sandbox and the server's answer blocks the call."""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from gateway import ToolOutcome, open_gateway
from gateway.packages import install, load_adapters
from gateway.store import StateStore
from tests._loopback import loopback_http

pytestmark = pytest.mark.anyio

DENY = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                               "permissionDecisionReason": "the policy server says no"}}  # fmt: skip


class _Policy(BaseHTTPRequestHandler):
    seen: list[dict[str, Any]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.seen.append(json.loads(body))
        answer = json.dumps(DENY).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def policy() -> Iterator[int]:
    _Policy.seen = []
    with loopback_http(_Policy) as port:
        yield port


def _plugin(root: Path, port: int) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "webguard"}))
    hook = {"type": "http", "url": f"http://127.0.0.1:{port}/pre-tool-use", "timeout": 10}
    hooks = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    (root / "hooks").mkdir()
    (root / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    return root


async def test_an_http_hook_waits_for_its_grant_then_blocks_through_the_proxy(
    workspace: Any, policy: int
) -> None:
    home = workspace.config.home
    report = install(home, str(_plugin(workspace.home / "src" / "webguard", policy)),
                     kind="local", inspector=load_adapters().inspect)  # fmt: skip
    grant = f"network:127.0.0.1:{policy}"
    assert [p.name for p in report.entry.permissions] == [grant]
    assert report.entry.permissions[0].optional
    with StateStore.open(home) as store:
        store.set_trusted("webguard", True)
        store.set_enabled("webguard", True)

    async def bash(arguments: dict[str, Any]) -> ToolOutcome:
        return ToolOutcome("ran")

    schema = {"type": "object", "properties": {"command": {"type": "string"}}}
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        gateway.register_builtin_tool("Bash", "Run a shell command", schema, bash)
        passed = await gateway.call_tool("Bash", {"command": "ls"})
        said = [d for d in gateway.diagnostics if d.code == "claude.hook_http_not_granted"]
    assert not passed.blocked and passed.content == "ran"  # fail-open, as Claude Code
    assert said and f"`gateway permissions webguard {grant}`" in said[0].message
    assert _Policy.seen == []

    with StateStore.open(home) as store:
        store.grant("webguard", [grant], [grant])
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        gateway.register_builtin_tool("Bash", "Run a shell command", schema, bash)
        blocked = await gateway.call_tool("Bash", {"command": "rm -rf /"})
    assert blocked.blocked and blocked.content == "the policy server says no"
    [event] = _Policy.seen
    assert event["hook_event_name"] == "PreToolUse" and event["tool_input"] == {
        "command": "rm -rf /"
    }
