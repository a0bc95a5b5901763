"""The ``user_message`` side effect: ``steer`` before the next model request of the turn,
``follow_up`` after the final answer (the same run going on), ``now`` as typed input when
no turn runs (a follow-up while one does); both fields required; delivered text is recorded
as a user message."""

from __future__ import annotations

from typing import Any

import pytest

from gateway import AgentLink, UserMessage, open_gateway

from ._shell import output_lines, run_cli, shell
from .conftest import add_current, reply, script, tool

pytestmark = pytest.mark.anyio


def said(content: str, deliver_as: str) -> dict[str, Any]:
    return {"user_message": {"content": content, "deliver_as": deliver_as}}


def texts(messages: list[UserMessage]) -> list[str]:
    return [message.content for message in messages]


async def test_steering_and_follow_ups_wait_in_their_queues(workspace, current) -> None:
    current("ext", tools=[tool("t")])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await gateway.start_turn()
        await gateway.call_tool("t", script(*reply(content="1", **said("s1", "steer"))))
        await gateway.call_tool("t", script(*reply(content="2", **said("s2", "steer"))))
        await gateway.call_tool("t", script(*reply(content="3", **said("f1", "follow_up"))))
        await gateway.call_tool("t", script(*reply(content="4", **said("n1", "now"))))
        assert texts(gateway.pending_user_messages) == ["s1", "s2", "f1", "n1"]
        assert texts(gateway.take_steering()) == ["s1"]  # one at a time by default
        assert texts(gateway.take_steering("all")) == ["s2"]
        assert texts(gateway.take_follow_ups("all")) == ["f1", "n1"]  # now, while busy
        await gateway.end_turn()
        recorded = [e["content"][0]["text"] for e in gateway.session.entries if e["type"] == "user"]
    assert recorded == ["s1", "s2", "f1", "n1"]


async def test_now_while_idle_is_submitted_as_typed_input(workspace, current) -> None:
    current("ext", commands={"later": reply(message="ok", **said("/later", "now"))})
    typed: list[UserMessage] = []
    link = AgentLink(submit_input=typed.append)
    async with open_gateway(
        workspace.root,
        trust=True,
        config=workspace.config,
        transport=workspace.transport,
        agent=link,
    ) as gateway:
        await gateway.run_command("later")
        assert texts(typed) == ["/later"] and gateway.pending_user_messages == []
        gateway.agent.submit_input = None  # no one takes typed input: it waits
        await gateway.run_command("later")
        assert texts(gateway.take_follow_ups()) == ["/later"]


async def test_a_malformed_user_message_is_dropped_and_said(workspace, current) -> None:
    bad = {"user_message": {"content": "x", "deliver_as": "later"}}
    empty = {"user_message": {"content": "", "deliver_as": "now"}}
    current("ext", tools=[tool("t")])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("t", script(*reply(content="fine", **bad)))
        await gateway.call_tool("t", script(*reply(content="fine", **empty)))
        assert result.content == "fine" and gateway.pending_user_messages == []
        dropped = [d for d in gateway.diagnostics if d.code == "user_message.dropped"]
        assert len(dropped) == 2


def test_the_shell_takes_now_as_typed_input(workspace) -> None:
    add_current(
        workspace,
        "ext",
        commands={
            "go": reply(message="queued", **said("/pong", "now")),
            "pong": reply(message="pong ran", **said("/trust off", "now")),
        },
    )
    lines = output_lines(shell(workspace, "/go"))
    assert lines.index("queued") < lines.index("(input from ext: /pong)") < lines.index("pong ran")
    # Trust and permissions stay the user's.
    assert "(an extension may not run /trust; ignored)" in lines


def test_the_shell_runs_follow_ups_in_the_same_turn(workspace) -> None:
    add_current(
        workspace,
        "ext",
        commands={"plan": reply(**said("then this", "follow_up"), message="noted")},
        subscribe=["turn_start", "turn_end", "context"],
        events={
            "turn_start": reply(**said("steer me", "steer")),
        },
    )
    out = shell(workspace, "/plan", "hello")
    lines = output_lines(out)
    assert "(steering from ext: steer me)" in lines
    assert "(follow-up from ext: then this)" in lines
    assert sum(1 for line in lines if line.startswith("(model request")) == 2
    events = [m["event"] for m in workspace.received("ext") if m["type"] == "event"]
    assert events == ["turn_start", "context", "context", "turn_end"]  # one run
    contexts = [m["payload"] for m in workspace.received("ext") if m.get("event") == "context"]
    texts_seen = [[p["text"] for m in c["messages"] for p in m["content"]] for c in contexts]
    assert texts_seen == [["hello", "steer me"], ["hello", "steer me", "then this"]]


def test_one_shot_cli_runs_drop_user_messages_and_say_so(workspace) -> None:
    add_current(workspace, "ext", commands={"go": reply(message="m", **said("x", "now"))})
    done = run_cli(workspace, "command", "go")
    assert done.returncode == 0
    assert "user_message (now) dropped" in done.stderr
