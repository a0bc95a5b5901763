"""The ``context`` event (the ninth): once per model request with ``{system, messages}``;
every subscriber sees the same payload; their additions are appended, in startup order, for
that request only; ``allow: false`` withdraws only its own; the one event of plan mode."""

from __future__ import annotations

from typing import Any

import pytest

from gateway import open_gateway
from gateway.model import HookEntry

from .conftest import reply, tool

pytestmark = pytest.mark.anyio

SYSTEM = ["You are a coding agent."]
MESSAGES = [{"type": "user", "role": "user", "content": [{"type": "text", "text": "fix it"}]}]


def note(text: str) -> dict[str, Any]:
    return {"type": "user", "role": "user", "content": [{"type": "text", "text": text}]}


def contexts(workspace: Any, name: str) -> list[dict[str, Any]]:
    return [m["payload"] for m in workspace.received(name) if m.get("event") == "context"]


async def test_additions_are_appended_in_startup_order_from_one_payload(workspace, current) -> None:
    current(
        "a",
        subscribe=["context"],
        events={"context": reply(system=["A rules"], messages=[note("from a")])},
    )
    current(
        "b",
        subscribe=["context"],
        events={"context": reply(system=["B rules"], messages=[note("from b")])},
    )
    current("c", subscribe=["context"],
            events={"context": reply(allow=False, system=["never"], messages=[note("never")])})  # fmt: skip
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        order = [p.name for p in gateway.processes]
        first = await gateway.context(SYSTEM, MESSAGES)
        again = await gateway.context(SYSTEM, MESSAGES)
        saved = list(gateway.session.entries)
    assert first.system == [*SYSTEM, *(f"{n.upper()} rules" for n in order if n != "c")]
    assert first.messages == [*MESSAGES, *(note(f"from {n}") for n in order if n != "c")]
    assert again == first  # the additions of the first request were for it only
    assert saved == []  # never saved
    for name in ("a", "b", "c"):
        assert contexts(workspace, name) == [{"system": SYSTEM, "messages": MESSAGES}] * 2


async def test_invalid_additions_are_ignored_with_a_warning(workspace, current) -> None:
    current("ext", subscribe=["context"],
            events={"context": reply(system=["ok", 3], messages=[note("ok"), {"type": "system"}, "x"])})  # fmt: skip
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.context([], [])
        warnings = [d.message for d in gateway.diagnostics if d.code == "hook.failed"]
    assert (result.system, result.messages) == (["ok"], [note("ok")])
    assert sum("extension context message ignored" in w for w in warnings) == 2
    assert any("system addition" in w for w in warnings)


async def test_plan_mode_dispatches_only_context_and_runs_plan_tools_bare(
    workspace, current
) -> None:
    current("ext", tools=[tool("look", capabilities=["read"]), tool("change")],
            subscribe=["context", "turn_start", "turn_end", "tool_call", "tool_result"],
            events={"context": reply(system=["plan!"]), "tool_call": reply(allow=False)})  # fmt: skip

    async def deny(request: Any) -> Any:
        raise AssertionError("no permission prompt in plan mode")

    async with open_gateway(
        workspace.root,
        trust=True,
        plan=True,
        config=workspace.config,
        transport=workspace.transport,
    ) as gateway:
        gateway.agent.approve = deny
        assert [t.name for t in gateway.tools()] == ["look"]
        await gateway.start_turn()
        assert (await gateway.context([], [])).system == ["plan!"]
        looked = await gateway.call_tool("look", {})
        changed = await gateway.call_tool("change", {})
        await gateway.end_turn()
    assert looked.content == "ok" and not looked.is_error
    assert changed.is_error and changed.error_code == "tool_unavailable"
    events = [m["event"] for m in workspace.received("ext") if m["type"] == "event"]
    assert events == ["context"]


async def test_runtimes_replacing_messages_go_first(workspace, current) -> None:
    current("ext", subscribe=["context"], events={"context": reply(messages=[note("added")])})

    async def replace(event: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"messages": [note("replaced")]}

    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        # How a Pi runtime's `context` subscription is filed (events.extended).
        gateway.registry.register("pi", hooks=[HookEntry("context_transform", "pi", replace)])
        result = await gateway.context(SYSTEM, MESSAGES)
    assert result.messages == [note("replaced"), note("added")]
    assert contexts(workspace, "ext") == [{"system": SYSTEM, "messages": [note("replaced")]}]
