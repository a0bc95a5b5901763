"""The small core hooks ``gateway serve`` and ``gateway migrate`` stand on: the strict
plain-v1 mode, loading only named packages, the registry's change listener, a tool call
whose hooks a host in front already ran, and the progress of one call."""

from __future__ import annotations

import dataclasses

import pytest

from gateway import open_gateway
from gateway.wire.features import announcement

pytestmark = pytest.mark.anyio


async def test_strict_plain_v1_offers_nothing_and_announces_nothing(workspace):
    workspace.add_extension("plain")
    config = dataclasses.replace(workspace.config, plain_v1=True)
    async with open_gateway(
        workspace.root, trust=True, config=config, transport=workspace.transport
    ) as gateway:
        assert gateway.processes[0].plan.features == frozenset()
    initialize = workspace.received("plain")[0]
    assert initialize == {"type": "initialize", "version": 1,
                          "workspace": str(workspace.root), "session_id": initialize["session_id"]}  # fmt: skip


async def test_without_it_an_extension_is_offered_its_additions(workspace):
    workspace.add_extension("plain")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        offered = gateway.processes[0].plan.features
    assert workspace.received("plain")[0]["gateway"] == announcement(offered)


async def test_naming_packages_loads_nothing_discovered(workspace):
    workspace.add_extension("discovered")
    config = dataclasses.replace(workspace.config, packages=("not-installed",))
    async with open_gateway(
        workspace.root, trust=True, config=config, transport=workspace.transport
    ) as gateway:
        assert gateway.processes == [] and gateway.tools() == []
        assert gateway.packages == []
    assert workspace.received("discovered") == []


async def test_the_registry_tells_its_listener_when_an_owner_comes_or_goes(workspace):
    workspace.add_extension("one")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        changes: list[int] = []
        gateway.registry.on_change = lambda: changes.append(len(gateway.tools()))
        await gateway.reload()
        # Unregistered (no tools), then registered again (one tool).
        assert changes == [0, 1]


async def test_a_call_without_hooks_skips_tool_call_and_tool_result(workspace):
    workspace.add_extension("tooly")
    workspace.add_extension("hooked", tools=[], events=["tool_call", "tool_result"])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await gateway.call_tool("act", {"do": "echo"}, hooks=False)
        events = [m for m in workspace.received("hooked") if m.get("type") == "event"]
        assert events == []
        await gateway.call_tool("act", {"do": "echo"})
        events = [m["event"] for m in workspace.received("hooked") if m.get("type") == "event"]
    assert events == ["tool_call", "tool_result"]


async def test_the_progress_of_one_call_goes_to_its_own_listener(workspace):
    from tests.nimlet_current.conftest import add_current, tool

    add_current(workspace, "updates", tools=[tool("work")])
    script = [
        {"updates": {"text": "step {n}", "count": 2, "every": 0}},
        {"reply": {"content": "done"}},
    ]
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        mine: list[str] = []
        everyone: list[str] = []
        gateway.progress_listener = lambda owner, item: everyone.append(item["text"])
        first = await gateway.call_tool(
            "work", {"script": script}, progress=lambda owner, item: mine.append(item["text"])
        )
        await gateway.call_tool("work", {"script": script})  # no listener of its own
    assert mine == [item["text"] for item in first.progress] == ["step 0", "step 1"]
    assert everyone == ["step 0", "step 1"] * 2
