"""Event dispatch exactly as the nimlet spec says, with real extension processes."""

from __future__ import annotations

import json

import pytest

from gateway import open_gateway
from tests._clock import virtual_time  # noqa: F401  (in memory: virtual time)

pytestmark = pytest.mark.anyio


def events_received(workspace, name: str) -> list[dict]:
    return [m for m in workspace.received(name) if m["type"] == "event"]


async def test_subscribers_are_asked_in_startup_order(workspace):
    # Discovery order: ~/.agents, ~/.nimlet, <ws>/.agents, <ws>/.nimlet.
    workspace.add_extension(
        "d",
        root=".nimlet/extensions",
        tools=["t"],
        events=["tool_call"],
        hooks={"tool_call": {"allow": False, "reason": "d"}},
    )
    workspace.add_extension(
        "c",
        root=".agents/extensions",
        tools=[],
        events=["tool_call"],
        hooks={"tool_call": {"allow": False, "reason": "c"}},
    )
    workspace.add_extension(
        "b",
        root="~/.nimlet/extensions",
        tools=[],
        events=["tool_call"],
        hooks={"tool_call": {"allow": False, "reason": "b"}},
    )
    workspace.add_extension(
        "a",
        root="~/.agents/extensions",
        tools=[],
        events=["tool_call"],
        hooks={"tool_call": {"allow": False, "reason": "a"}},
    )
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("t", {})
    assert result.content == "a; b; c; d"


async def test_two_guards_both_denying_block_with_reasons_joined_by_semicolon(workspace):
    workspace.add_extension("tool")
    for name, reason in (("g1", "no network"), ("g2", "tests running")):
        workspace.add_extension(
            name,
            tools=[],
            events=["tool_call"],
            hooks={"tool_call": {"allow": False, "reason": reason}},
        )
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("act", {"x": 1})
    assert result.is_error and result.blocked
    assert result.content == "no network; tests running"
    assert not [m for m in workspace.received("tool") if m["type"] == "tool"]


async def test_block_without_reason_uses_the_default_reason(workspace):
    workspace.add_extension("tool")
    workspace.add_extension(
        "g", tools=[], events=["tool_call"], hooks={"tool_call": {"allow": False}}
    )
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("act", {})
    assert result.content == "blocked by extension"


async def test_allow_true_and_silent_replies_do_not_block(workspace):
    workspace.add_extension("tool")
    workspace.add_extension(
        "g1", tools=[], events=["tool_call"], hooks={"tool_call": {"allow": True}}
    )
    workspace.add_extension("g2", tools=[], events=["tool_call"])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("act", {})
    assert not result.is_error


async def test_argument_rewrites_chain_through_subscribers(workspace):
    workspace.add_extension("tool")
    workspace.add_extension(
        "r1",
        tools=[],
        events=["tool_call"],
        hooks={"tool_call": {"arguments": {"path": "first"}}},
    )
    workspace.add_extension("r2", tools=[], events=["tool_call"])
    workspace.grant("r1", "hooks.rewrite")  # it changes another extension's tool
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("act", {"path": "original"})
    # r2 saw r1's rewrite; the tool got it.
    (r2_event,) = events_received(workspace, "r2")
    assert r2_event["payload"] == {"tool": "act", "arguments": {"path": "first"}}
    assert result.arguments == {"path": "first"}
    assert json.loads(result.content)["arguments"] == {"path": "first"}


async def test_rewritten_arguments_are_validated_before_they_leave_the_host(workspace):
    workspace.add_extension(
        "tool", schema={"type": "object", "properties": {"n": {"type": "integer"}}}
    )
    workspace.add_extension(
        "r",
        tools=[],
        events=["tool_call"],
        hooks={"tool_call": {"arguments": {"n": "not a number"}}},
    )
    workspace.grant("r", "hooks.rewrite")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("act", {"n": 1})
    assert (
        result.is_error and "invalid arguments for act" in result.content and "n" in result.content
    )
    assert not [m for m in workspace.received("tool") if m["type"] == "tool"]


async def test_tool_result_output_and_error_replacements_chain(workspace):
    workspace.add_extension("tool")
    workspace.add_extension(
        "p1",
        tools=[],
        events=["tool_result"],
        hooks={"tool_result": {"output": "patched once", "is_error": True}},
    )
    workspace.add_extension(
        "p2",
        tools=[],
        events=["tool_result"],
        hooks={"tool_result": {"is_error": False}},
    )
    workspace.grant("p1", "hooks.rewrite")
    workspace.grant("p2", "hooks.rewrite")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("act", {"a": 1})
    (p2_event,) = events_received(workspace, "p2")
    assert p2_event["payload"]["output"] == "patched once"
    assert p2_event["payload"]["is_error"] is True
    assert p2_event["payload"]["arguments"] == {"a": 1}
    assert result.content == "patched once" and result.is_error is False


async def test_allow_false_is_ignored_on_tool_result(workspace):
    workspace.add_extension("tool")
    workspace.add_extension(
        "p", tools=[], events=["tool_result"], hooks={"tool_result": {"allow": False}}
    )
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("act", {})
    assert not result.is_error and not result.blocked


@pytest.mark.parametrize("behave", ["crash", "hang", "malformed"])
async def test_failing_hook_is_fail_open_with_a_warning(workspace, behave):
    workspace.add_extension("tool")
    workspace.add_extension(
        "bad",
        tools=[],
        events=["tool_call"],
        timeout=1,
        hooks={"tool_call": {"__behave": behave}},
    )
    workspace.add_extension(
        "ok",
        tools=[],
        events=["tool_call"],
        hooks={"tool_call": {"arguments": {"seen": True}}},
    )
    workspace.grant("ok", "hooks.rewrite")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("act", {})
        assert any(d.code == "hook.failed" and d.package == "bad" for d in gateway.diagnostics)
    assert not result.is_error
    assert result.arguments == {"seen": True}


async def test_compaction_instructions_append_with_newline_and_custom_summary_replaces(workspace):
    workspace.add_extension(
        "i1",
        tools=[],
        events=["session_before_compact"],
        hooks={"session_before_compact": {"instruction": "keep the API"}},
    )
    workspace.add_extension(
        "i2",
        tools=[],
        events=["session_before_compact", "session_compact"],
        hooks={
            "session_before_compact": {
                "instruction": "drop the logs",
                "compaction": {
                    "summary": "## Goal",
                    "first_kept_index": 3,
                    "details": {"by": "i2"},
                },
            }
        },
    )
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.compact("manual", tokens_before=1200)
    assert result.instruction == "manual\nkeep the API\ndrop the logs"
    assert result.custom and result.summary == "## Goal" and result.first_kept_index == 3
    compact_event = [e for e in events_received(workspace, "i2") if e["event"] == "session_compact"]
    assert compact_event[0]["payload"]["did_compact"] is True
    assert compact_event[0]["payload"]["summary"] == "## Goal"
    assert compact_event[0]["payload"]["tokens_before"] == 1200


async def test_compaction_reason_reaches_the_payloads_only_when_not_manual(workspace):
    workspace.add_extension(
        "why", tools=[], events=["session_before_compact", "session_compact"], hooks={}
    )
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await gateway.compact("", tokens_before=10)
        await gateway.compact("", tokens_before=90, reason="overflow", will_retry=True)
    payloads = [e["payload"] for e in events_received(workspace, "why")]
    assert [("reason" in p, "will_retry" in p) for p in payloads[:2]] == [(False, False)] * 2
    assert [(p["reason"], p["will_retry"]) for p in payloads[2:]] == [("overflow", True)] * 2


async def test_compaction_is_skipped_when_a_subscriber_blocks(workspace):
    workspace.add_extension(
        "g1",
        tools=[],
        events=["session_before_compact"],
        hooks={"session_before_compact": {"allow": False, "reason": "busy"}},
    )
    workspace.add_extension(
        "g2",
        tools=[],
        events=["session_before_compact"],
        hooks={"session_before_compact": {"allow": False, "reason": "later"}},
    )
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:

        async def summarizer(instruction, entries):
            raise AssertionError("the summarizer must not run when compaction is blocked")

        result = await gateway.compact(summarizer=summarizer)
    assert not result.did_compact and result.message == "busy; later"


async def test_session_and_turn_events_carry_their_payloads(workspace):
    workspace.add_extension(
        "obs",
        tools=[],
        events=["session_start", "turn_start", "turn_end", "session_end"],
    )
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await gateway.start_session()
        await gateway.start_turn()
        await gateway.end_turn(interrupted=True)
        await gateway.end_session()
        base = {"session_id": gateway.session.id, "workspace": str(workspace.root.resolve())}
    payloads = [(e["event"], e["payload"]) for e in events_received(workspace, "obs")]
    assert payloads == [
        ("session_start", base),
        ("turn_start", base),
        ("turn_end", {**base, "interrupted": True}),
        ("session_end", base),
    ]


async def test_every_event_is_answered_even_unsubscribed_ones_are_not_sent(workspace):
    workspace.add_extension("obs", tools=[], events=["turn_end"])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await gateway.start_turn()
        await gateway.end_turn()
    assert [e["event"] for e in events_received(workspace, "obs")] == ["turn_end"]


async def test_unknown_event_names_are_accepted_but_never_fire(workspace):
    # ("context", the older document's example of an unknown name, is current nimlet's ninth
    # event: tests/nimlet_current covers it.)
    workspace.add_extension("obs", tools=["t"], events=["message_update", "turn_end"])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert [p.name for p in gateway.processes] == ["obs"]
        assert any(
            d.code == "event.unknown" and "message_update" in d.message for d in gateway.diagnostics
        )
        await gateway.end_turn()
    assert [e["event"] for e in events_received(workspace, "obs")] == ["turn_end"]


async def test_plan_mode_dispatches_no_lifecycle_events(workspace):
    workspace.add_extension("tool", capabilities=["read"])
    workspace.add_extension(
        "g",
        tools=[],
        events=["tool_call", "turn_start", "session_start"],
        hooks={"tool_call": {"allow": False}},
    )
    async with open_gateway(
        workspace.root,
        trust=True,
        plan=True,
        config=workspace.config,
        transport=workspace.transport,
    ) as gateway:
        await gateway.start_session()
        await gateway.start_turn()
        result = await gateway.call_tool("act", {})
    assert not result.is_error
    assert events_received(workspace, "g") == []
