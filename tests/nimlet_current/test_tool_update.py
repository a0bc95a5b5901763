"""``tool_update``: output of an in-flight call, shown while it runs (the progress path
Pi's ``onUpdate`` takes), kept in ``ToolResult.progress``, never saved, never seen by a
hook, and no help against the timeout."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gateway import open_gateway
from tests._cli import gateway_env, run_here

from .conftest import add_current, script, tool

pytestmark = pytest.mark.anyio

UPDATES = {"updates": {"text": "step {n}", "count": 3}}


async def test_updates_reach_the_listener_and_the_result_in_order(workspace, current) -> None:
    current("ext", tools=[tool("t")], subscribe=["tool_result"])
    seen: list[tuple[str, dict[str, Any]]] = []
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        gateway.progress_listener = lambda owner, item: seen.append((owner, item))
        result = await gateway.call_tool(
            "t", script(UPDATES, {"send": {"type": "tool_update", "id": "$id", "content": ""}},
                        {"reply": {"content": [{"type": "text", "text": "done"}]}})
        )  # fmt: skip
        session_text = gateway.session.path.read_text()
    assert result.content == "done"
    assert [item["text"] for item in result.progress] == ["step 0", "step 1", "step 2"]
    assert all(item["delta"] is True for item in result.progress)
    assert [item for _, item in seen] == result.progress and {o for o, _ in seen} == {"ext"}
    assert "step 1" not in session_text  # never saved
    hook = next(m for m in workspace.received("ext") if m["type"] == "event")
    assert hook["payload"]["output"] == "done"  # the hook sees the result only


async def test_an_update_for_a_call_not_in_flight_is_ignored(workspace, current) -> None:
    current("ext", tools=[tool("t")])
    seen: list[Any] = []
    stray = {"send": {"type": "tool_update", "id": "no-such-call", "content": "stray"}}
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        gateway.progress_listener = lambda owner, item: seen.append(item)
        result = await gateway.call_tool("t", script(stray, {"reply": {"content": "ok"}}))
        assert result.progress == [] and seen == []
        assert any(
            d.code == "protocol.unknown_id" and "no-such-call" in d.message
            for d in gateway.diagnostics
        )


async def test_updates_do_not_extend_the_timeout(workspace, current) -> None:
    current("ext", tools=[tool("t")], timeout=1)
    endless = {"updates": {"text": "still here {n}", "count": 100, "every": 0.1}}
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("t", script(endless, {"reply": {"content": "late"}}))
    assert result.is_error and "timed out" in result.content
    assert 1 <= len(result.progress) < 100


def test_the_cli_shows_progress_and_call_json_carries_it(workspace) -> None:
    add_current(workspace, "ext", tools=[tool("t")])
    arguments = json.dumps(script(UPDATES, {"reply": {"content": "done"}}))
    # What the verb prints, run in this process (tests/_cli.py).
    base = ["call", "t", arguments, "--trust", "--workspace", str(workspace.root)]
    env = gateway_env(workspace.home / ".gateway", workspace.home)
    text = run_here(base, env=env, cwd=Path.cwd())
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines()[:4] == ["… step 0", "… step 1", "… step 2", "[ok] done"]
    done = run_here([*base, "--json"], env=env, cwd=Path.cwd())
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [item["text"] for item in data["progress"]] == ["step 0", "step 1", "step 2"]


async def test_a_flood_of_updates_keeps_the_latest_thousand(workspace, current) -> None:
    current("ext", tools=[tool("t")])
    flood = {"updates": {"text": "step {n}", "count": 5000}}
    seen: list[Any] = []
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        gateway.progress_listener = lambda owner, item: seen.append(item)
        result = await gateway.call_tool("t", script(flood, {"reply": {"content": "done"}}))
    assert len(seen) == 5000  # the listener sees every one
    assert len(result.progress) == 1000
    assert result.progress[-1]["text"] == "step 4999" and result.progress[0]["text"] == "step 4000"


async def test_an_update_of_text_parts_shows_them_joined(workspace, current) -> None:
    current("ext", tools=[tool("t")])
    parts = [{"type": "text", "text": "half"}, {"type": "text", "text": "way"}]
    update = {"send": {"type": "tool_update", "id": "$id", "content": parts}}
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("t", script(update, {"reply": {"content": "done"}}))
    assert [item["text"] for item in result.progress] == ["half\nway"]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (42, "content is a int"),
        ({"text": "x"}, "content is a dict"),
        ([{"type": "image", "data": "aGk=", "mimeType": "image/png"}], "content[0] is not a text"),
        ([{"type": "text", "text": 7}], "content[0]: a text part needs a string text"),
    ],
)
async def test_a_malformed_update_is_a_diagnostic_and_the_call_goes_on(
    workspace, current, content: Any, problem: str
) -> None:
    current("ext", tools=[tool("t")])
    update = {"send": {"type": "tool_update", "id": "$id", "content": content}}
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("t", script(update, {"reply": {"content": "done"}}))
        said = [d for d in gateway.diagnostics if d.code == "protocol.tool_update_invalid"]
    assert result.content == "done" and not result.is_error and result.progress == []
    assert len(said) == 1 and said[0].package == "ext"
    assert "extension ext" in said[0].message and problem in said[0].message
