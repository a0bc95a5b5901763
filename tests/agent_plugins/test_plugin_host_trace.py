"""A client's trace continues into an MCP server package: with ``trace.context``
negotiated, the plugin host passes the W3C trace context of each gateway request on in the
MCP request's ``_meta`` (SEP-414) — a tool call, a prompt — and to a command hook as
``TRACEPARENT`` / ``TRACESTATE``; only in the W3C shape, and never when not negotiated."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests._lite_mcp import script

from ._helpers import ALL_FEATURES, Host, host_config

TRACED = [*ALL_FEATURES, "trace.context"]
PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
STATE = "vendor=opaque"
TOOL = "mcp_demo-plugin_seen"
PROMPT = "mcp_demo-plugin_prompt_seen_prompt"

# An MCP server (tests/_lite_mcp: the SDK's own is not the subject here) that answers with
# the trace keys of its request's _meta.
SEEN = script("""
    def trace(ctx: Context) -> str:
        return json.dumps({k: ctx.meta[k] for k in ("traceparent", "tracestate") if k in ctx.meta})


    server = Server("seen")


    @server.tool(description="The trace keys of this request's _meta.")
    def seen(ctx: Context) -> str:
        return trace(ctx)


    @server.prompt(description="The same, as a prompt.")
    def seen_prompt(ctx: Context) -> str:
        return trace(ctx)


    server.run()
""")

# A Claude Code command hook that blocks every call, saying which trace it was given.
HOOK = 'echo "trace=${TRACEPARENT:-none} state=${TRACESTATE:-none}" >&2\nexit 2\n'


def _config(tmp_path: Path, hooks: dict[str, Any] | None = None) -> Path:
    data = tmp_path / "data"
    data.mkdir(parents=True, exist_ok=True)
    (data / "seen.py").write_text(SEEN)
    config = host_config(tmp_path / "host.json", data, {"seen": {"args": [str(data / "seen.py")]}})
    if hooks is not None:
        document = json.loads(config.read_text())
        config.write_text(json.dumps({**document, "hooks": hooks}))
    return config


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    with Host(_config(tmp_path_factory.mktemp("traced")), features=TRACED) as running:
        assert running.read()["type"] == "register"
        yield running


def _tool(host: Host, rid: str, name: str, gateway: dict[str, Any]) -> dict[str, Any]:
    host.send({"type": "tool", "id": rid, "name": name, "arguments": {}, "gateway": gateway})
    return host.reply(rid)


def test_a_tool_call_carries_the_requests_trace_in_its_meta(traced: Host) -> None:
    reply = _tool(traced, "t-1", TOOL, {"traceparent": PARENT, "tracestate": STATE})
    assert json.loads(reply["content"]) == {"traceparent": PARENT, "tracestate": STATE}


def test_a_prompt_carries_it_too(traced: Host) -> None:
    traced.send({"type": "command", "id": "p-1", "name": PROMPT, "arguments": "",
                 "gateway": {"traceparent": PARENT}})  # fmt: skip
    assert json.loads(traced.reply("p-1")["prompt"]) == {"traceparent": PARENT}


@pytest.mark.parametrize(
    "gateway",
    [
        {"traceparent": "00-not-a-trace"},
        {"traceparent": PARENT.upper()},
        {"traceparent": PARENT + "\n"},
        {"traceparent": ["list"]},
        {"other": PARENT},
    ],
)
def test_anything_but_a_w3c_trace_is_not_passed_on(traced: Host, gateway: dict) -> None:
    assert json.loads(_tool(traced, "bad", TOOL, gateway)["content"]) == {}


def test_a_tracestate_with_control_characters_is_dropped(traced: Host) -> None:
    reply = _tool(traced, "s-1", TOOL, {"traceparent": PARENT, "tracestate": "a=b\x1b[31m"})
    assert json.loads(reply["content"]) == {"traceparent": PARENT}


def test_without_trace_context_negotiated_nothing_is_passed_on(tmp_path: Path) -> None:
    with Host(_config(tmp_path), features=ALL_FEATURES) as running:
        running.read()
        reply = _tool(running, "t-1", TOOL, {"traceparent": PARENT})
    assert json.loads(reply["content"]) == {}


def test_a_command_hook_gets_the_events_trace_as_traceparent(tmp_path: Path) -> None:
    hook = tmp_path / "hook.sh"
    hook.write_text("#!/bin/sh\n" + HOOK)
    hook.chmod(0o755)
    hooks = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": str(hook)}]}]}}
    payload = {"tool": "Write", "arguments": {"file_path": "/tmp/x"}}
    with Host(_config(tmp_path, hooks), features=TRACED) as running:
        running.read()
        running.send({"type": "event", "id": "e-1", "event": "tool_call", "payload": payload,
                      "gateway": {"traceparent": PARENT, "tracestate": STATE}})  # fmt: skip
        traced_reply = running.reply("e-1")
        running.send({"type": "event", "id": "e-2", "event": "tool_call", "payload": payload})
        plain_reply = running.reply("e-2")
    assert traced_reply["allow"] is False
    assert traced_reply["reason"] == f"trace={PARENT} state={STATE}"
    assert plain_reply["reason"] == "trace=none state=none"
