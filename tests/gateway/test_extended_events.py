"""The extended events (``input``, ``before_agent_start``, and Pi's ``context``, filed as
``context_transform``): their rules in the catalogue (``collect``, ``stop_when``,
kind-checked chains), the Gateway methods that dispatch them, and the feature gate (only
processes offered ``events.extended`` subscribe). Nimlet's own ``context`` (the ninth
event) is covered in tests/nimlet_current."""

from __future__ import annotations

from typing import Any

import pytest

from gateway import open_gateway
from gateway.base import HOOK_EVENTS, Diagnostics
from gateway.model import (
    CANONICAL_EVENTS,
    EXTENDED_ALIASES,
    EXTENDED_EVENTS,
    NIMLET_EVENTS,
    HookEntry,
    dispatch,
)
from gateway.wire import ExtensionError
from gateway.wire.features import EVENTS_EXTENDED, EXTENSION_FEATURES, RUNTIME_FEATURES
from tests._clock import virtual_time  # noqa: F401  (in memory: both backends, virtual time)

pytestmark = pytest.mark.anyio

EXTENDED = [
    "input",
    "before_agent_start",
    "context_transform",
    "message_received",
    "message_sending",
    "message_sent",
]


def hook(owner: str, reply: Any, seen: list[tuple[str, dict[str, Any]]] | None = None) -> Any:
    """A subscriber that records its payload and answers ``reply`` (or calls it)."""

    async def handler(event: str, payload: dict[str, Any]) -> Any:
        if seen is not None:
            seen.append((owner, payload))
        if isinstance(reply, Exception):
            raise reply
        return reply(payload) if callable(reply) else reply

    return HookEntry("", owner, handler)


def test_catalogues_keep_nimlet_at_nine_and_add_the_extended_events() -> None:
    assert NIMLET_EVENTS.names() == list(HOOK_EVENTS) and len(HOOK_EVENTS) == 9
    assert EXTENDED_EVENTS.names() == EXTENDED
    assert CANONICAL_EVENTS.names() == [*HOOK_EVENTS, *EXTENDED]
    assert CANONICAL_EVENTS["input"].stop_when == ("action", "handled")
    assert CANONICAL_EVENTS["input"].chain == ("text",)
    assert CANONICAL_EVENTS["before_agent_start"].chain == ("system_prompt", "prompt")
    assert CANONICAL_EVENTS["before_agent_start"].collect == ("messages",)
    assert CANONICAL_EVENTS["context_transform"].chain == ("messages",)
    assert EXTENDED_ALIASES == {"context": "context_transform"}
    assert CANONICAL_EVENTS["context"].collect == ("system", "messages")
    assert CANONICAL_EVENTS["context"].chain == ()
    assert EVENTS_EXTENDED in RUNTIME_FEATURES
    assert EVENTS_EXTENDED not in EXTENSION_FEATURES


async def test_input_transform_chains_and_handled_stops() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    subscribers = [
        hook("a", {"action": "continue"}, seen),
        hook("b", lambda p: {"action": "transform", "text": p["text"].upper()}, seen),
        hook("c", {"action": "handled"}, seen),
        hook("d", {"action": "transform", "text": "never"}, seen),
    ]
    outcome = await dispatch(
        CANONICAL_EVENTS["input"], {"text": "hi", "source": "rpc"}, subscribers, Diagnostics()
    )
    assert [owner for owner, _ in seen] == ["a", "b", "c"]  # d is not asked
    assert seen[2][1] == {"text": "HI", "source": "rpc"}  # c saw b's transform
    assert outcome.payload["text"] == "HI"
    assert outcome.stopped and outcome.stopped_by == "c" and outcome.asked == 3
    assert outcome.collected["action"] == ["continue", "transform", "handled"]


async def test_input_that_nobody_handles_asks_everyone() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    subscribers = [hook("a", {"action": "continue"}, seen), hook("b", None, seen)]
    outcome = await dispatch(
        CANONICAL_EVENTS["input"],
        {"text": "x", "source": "interactive"},
        subscribers,
        Diagnostics(),
    )
    assert outcome.asked == 2 and not outcome.stopped and outcome.payload["text"] == "x"


async def test_before_agent_start_chains_the_prompt_and_collects_messages() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    subscribers = [
        hook("a", lambda p: {"system_prompt": p["system_prompt"] + " +a", "messages": [{"n": 1}]}),
        hook("b", {"messages": [{"n": 2}, {"n": 3}]}, seen),
        hook("c", lambda p: {"system_prompt": p["system_prompt"] + " +c"}),
    ]
    outcome = await dispatch(
        CANONICAL_EVENTS["before_agent_start"],
        {"prompt": "p", "system_prompt": "sys"},
        subscribers,
        Diagnostics(),
    )
    assert seen[0][1]["system_prompt"] == "sys +a"
    assert outcome.payload["system_prompt"] == "sys +a +c"
    assert outcome.collected["messages"] == [{"n": 1}, {"n": 2}, {"n": 3}]
    assert "messages" not in outcome.payload


async def test_context_messages_chain_and_a_wrong_kind_is_a_failed_contribution() -> None:
    diagnostics = Diagnostics()
    subscribers = [
        hook("a", lambda p: {"messages": [*p["messages"], {"role": "user", "content": "a"}]}),
        hook("bad", {"messages": "not a list"}),
        hook("c", lambda p: {"messages": p["messages"][1:]}),
    ]
    outcome = await dispatch(
        CANONICAL_EVENTS["context_transform"],
        {"messages": [{"role": "user", "content": "0"}]},
        subscribers,
        diagnostics,
    )
    assert outcome.payload["messages"] == [{"role": "user", "content": "a"}]
    assert [(d.code, d.package) for d in diagnostics] == [("hook.failed", "bad")]


async def test_a_failing_subscriber_is_fail_open() -> None:
    diagnostics = Diagnostics()
    subscribers = [
        hook("broken", ExtensionError("extension response timed out")),
        hook("ok", {"action": "transform", "text": "fine"}),
    ]
    outcome = await dispatch(
        CANONICAL_EVENTS["input"], {"text": "x", "source": "rpc"}, subscribers, diagnostics
    )
    assert outcome.payload["text"] == "fine" and outcome.failed == 1
    assert [d.code for d in diagnostics] == ["hook.failed"]


async def test_gateway_methods_fold_the_rules(workspace) -> None:
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert (await gateway.submit_input("hi")).action == "continue"
        gateway.registry.register(
            "first",
            hooks=[
                HookEntry("input", "first", hook("first", _first_input).handler),
                HookEntry(
                    "before_agent_start",
                    "first",
                    hook("first", {"system_prompt": "S1", "messages": [{"m": 1}, "junk"]}).handler,
                ),
                HookEntry(
                    "context_transform",
                    "first",
                    hook("first", lambda p: {"messages": p["messages"][::-1]}).handler,
                ),
            ],
        )
        transformed = await gateway.submit_input("/up hi", source="extension")
        assert (transformed.action, transformed.text, transformed.source) == (
            "transform",
            "HI",
            "extension",
        )
        handled = await gateway.submit_input("stop")
        assert (handled.action, handled.text, handled.handled_by) == ("handled", "stop", "first")
        unchanged = await gateway.submit_input("plain")
        assert (unchanged.action, unchanged.text) == ("continue", "plain")
        start = await gateway.before_agent_start("p", "S0")
        assert (start.system_prompt, start.messages) == ("S1", [{"m": 1}])
        assert any(
            d.code == "hook.failed" and "dropped 1 non-object message" in d.message
            for d in gateway.diagnostics
        )
        messages = [{"n": 1}, {"n": 2}]
        assert await gateway.build_context(messages) == [{"n": 2}, {"n": 1}]
        assert messages == [{"n": 1}, {"n": 2}]


def _first_input(payload: dict[str, Any]) -> dict[str, Any]:
    if payload["text"] == "stop":
        return {"action": "handled"}
    if payload["text"].startswith("/up "):
        return {"action": "transform", "text": payload["text"][4:].upper()}
    return {"action": "continue"}


async def test_a_plain_extension_cannot_subscribe_to_the_extended_events(workspace) -> None:
    workspace.add_extension("obs", tools=[], events=[*EXTENDED, "turn_end"])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        unknown = [d.message for d in gateway.diagnostics if d.code == "event.unknown"]
        for event in EXTENDED:
            assert any(repr(event) in message for message in unknown)
            assert gateway.registry.hooks(event) == []
        await gateway.submit_input("hello")
        await gateway.before_agent_start("p", "s")
        await gateway.build_context([])
        await gateway.end_turn()
    received = [m["event"] for m in workspace.received("obs") if m["type"] == "event"]
    assert received == ["turn_end"]
