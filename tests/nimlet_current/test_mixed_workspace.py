"""An extension written for the older document and one written the current way, side by
side in one workspace: each keeps its own generation's shapes, and their tools, hooks,
questions and progress mix as one registry."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from gateway import UiAnswer, open_gateway

from .conftest import reply, script, tool

pytestmark = pytest.mark.anyio


async def test_both_generations_run_side_by_side(workspace, current) -> None:
    # The older extension: string content, a `question`, the eight events.
    workspace.add_extension(
        "old", tools=["old_tool"], commands=["old_cmd"], events=["tool_call", "turn_end"]
    )
    current(
        "new", tools=[tool("new_tool", ["read"])], commands={"new_cmd": reply(message="new ran")},
        subscribe=["tool_result", "context"],
        events={"tool_result": reply(is_error=False), "context": reply(system=["from new"])},
    )  # fmt: skip
    asked: list[tuple[str, str]] = []

    async def ui(process: Any, request: Any) -> UiAnswer:
        asked.append((process.name, request.method))
        return UiAnswer("staging" if request.method == "question" else "Yes")

    seen: list[tuple[str, str]] = []
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport, ui=ui
    ) as gateway:
        gateway.progress_listener = lambda owner, item: seen.append((owner, item["text"]))
        assert {p.name for p in gateway.processes} == {"old", "new"}
        await gateway.start_turn()
        old = await gateway.call_tool("old_tool", {"do": "echo"})
        new_args = script(
            {"updates": {"text": "working", "count": 1}},
            {"ask": {"type": "ui_request", "method": "confirm", "prompt": "go?"}},
            {"reply": {"content": [{"type": "text", "text": "$answers"}]}},
        )
        async with anyio.create_task_group() as group:
            results: dict[str, Any] = {}

            async def run(name: str, arguments: dict[str, Any]) -> None:
                results[name] = await gateway.call_tool(name, arguments)

            group.start_soon(run, "new_tool", new_args)
            group.start_soon(run, "old_tool", {"do": "ask", "options": ["staging", "prod"]})
        context = await gateway.context([], [])
        await gateway.end_turn()
        old_cmd = await gateway.run_command("old_cmd", "x")
        new_cmd = await gateway.run_command("new_cmd")
    assert json.loads(old.content) == {"tool": "old_tool", "arguments": {"do": "echo"}}
    new_tool = results["new_tool"]
    assert not new_tool.is_error and json.loads(new_tool.content)[0]["confirmed"] is True
    assert json.loads(results["old_tool"].content) == {"answer": "staging", "cancelled": False}
    assert sorted(asked) == [("new", "confirm"), ("old", "question")]
    assert seen == [("new", "working")]
    assert context.system == ["from new"]
    assert (old_cmd.message, new_cmd.message) == ("ran old_cmd x", "new ran")
    # The older extension saw the current surface only as fields it ignores.
    # Each one's hooks saw the other's tools.
    old_received = workspace.received("old")
    old_events = [m for m in old_received if m["type"] == "event"]
    assert [e["event"] for e in old_events] == ["tool_call"] * 3 + ["turn_end"]
    assert sorted(e["payload"]["tool"] for e in old_events[:3]) == ["new_tool", *["old_tool"] * 2]
    new_events = [m for m in workspace.received("new") if m.get("event") == "tool_result"]
    assert sorted(e["payload"]["tool"] for e in new_events) == ["new_tool", *["old_tool"] * 2]
    command = next(m for m in old_received if m["type"] == "command")
    assert set(command) == {"type", "id", "name", "arguments", "context"}
