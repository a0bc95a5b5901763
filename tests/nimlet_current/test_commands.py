"""``command`` requests carry ``context``; replies are read in upstream's order (side
effects, ``message``, then a ``session`` action, or ``reload``, or ``prompt``); session
actions go to the embedding agent and ``gateway shell`` carries them out."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gateway import AgentLink, EditResult, SessionAction, SessionActionError, open_gateway

from ._shell import output_lines, run_cli, shell
from .conftest import add_current, reply

pytestmark = pytest.mark.anyio

STATUS = {"key": "job", "text": "busy"}


def commands_received(workspace: Any, name: str) -> list[dict[str, Any]]:
    return [m for m in workspace.received(name) if m["type"] == "command"]


async def test_the_context_comes_from_the_embedding_agent(workspace, current) -> None:
    current("ext", commands={"ctx": reply(message="ok")})
    messages = [{"type": "user", "role": "user", "content": [{"type": "text", "text": "hi"}]}]

    async def editor(request: Any) -> EditResult:
        return EditResult(text=request.text)

    link = AgentLink(provider="anthropic", model="claude-x", messages=lambda: messages)
    async with open_gateway(
        workspace.root,
        trust=True,
        config=workspace.config,
        transport=workspace.transport,
        agent=link,
    ) as gateway:
        await gateway.run_command("ctx", "a b")
        gateway.agent.edit_text = editor
        gateway.agent.model = "claude-y"
        await gateway.run_command("ctx")
        session_id = gateway.session.id
    first, second = (m["context"] for m in commands_received(workspace, "ext"))
    assert first == {
        "mode": "non_interactive",
        "workspace": str(workspace.root.resolve()),
        "session_id": session_id,
        "provider": "anthropic",
        "model": "claude-x",
        "messages": messages,
    }
    assert (second["mode"], second["model"]) == ("tui", "claude-y")


async def test_without_an_agent_the_messages_are_the_sessions(workspace, current) -> None:
    current("ext", commands={"ctx": reply()})
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        gateway.session.add_user_message("remember me")
        await gateway.run_command("ctx")
    context = commands_received(workspace, "ext")[0]["context"]
    assert (context["provider"], context["model"]) == ("", "")
    assert context["messages"] == [
        {"type": "user", "role": "user", "content": [{"type": "text", "text": "remember me"}]}
    ]


async def test_side_effects_and_message_then_one_action_in_upstreams_order(
    workspace, current
) -> None:
    current(
        "ext",
        commands={
            "all": reply(message="m", status=STATUS, session={"action": "new"}, reload=True,
                         prompt="p"),
            "reload": reply(message="r", reload=True, prompt="p"),
            "prompt": reply(prompt="go on"),
            "bad": reply(message="before", session={"action": "explode"}),
        },
    )  # fmt: skip
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        everything = await gateway.run_command("all")
        assert gateway.session.statuses["ext:job"] == "busy"  # applied before the outcome
        assert (everything.message, everything.session, everything.reload, everything.prompt) == (
            "m",
            SessionAction("new"),
            False,
            None,
        )
        ignored = [d.message for d in gateway.diagnostics if d.code == "command.reply_ignored"]
        assert any("reload and prompt was ignored" in m for m in ignored)
        reloaded = await gateway.run_command("reload")
        assert (reloaded.message, reloaded.reload, reloaded.prompt) == ("r", True, None)
        prompted = await gateway.run_command("prompt")
        assert (prompted.session, prompted.reload, prompted.prompt) == (None, False, "go on")
        bad = await gateway.run_command("bad")
        assert (bad.message, bad.error) == ("before", "unknown session action: explode")


async def test_new_fork_and_switch_restart_the_extensions_on_another_session(
    workspace, current
) -> None:
    current("ext", subscribe=["session_start", "session_end"])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        first = gateway.session.id
        for text in ("one", "two", "three"):
            gateway.session.add_user_message(text)
        await gateway.apply_session_action(SessionAction("fork", message=2))
        forked = gateway.session
        assert forked.id != first
        assert [e["content"][0]["text"] for e in forked.entries if e["type"] == "user"] == ["one"]
        editor_text = await gateway.apply_session_action(SessionAction("new", editor_text="draft"))
        assert editor_text == "draft" and gateway.session.entries == []
        await gateway.apply_session_action(SessionAction("switch", id=first))
        assert gateway.session.id == first and len(gateway.session.entries) == 3
        with pytest.raises(SessionActionError, match=r"Invalid session ID\."):
            await gateway.apply_session_action(SessionAction("switch", id="../x"))
        with pytest.raises(SessionActionError, match="Session not found: nope"):
            await gateway.apply_session_action(SessionAction("switch", id="nope"))
        with pytest.raises(SessionActionError, match="fork message not found"):
            await gateway.apply_session_action(SessionAction("fork", message=9))
    received = workspace.received("ext")
    initialized = [m["session_id"] for m in received if m["type"] == "initialize"]
    assert initialized == [first, forked.id, initialized[2], first]
    events = [m["event"] for m in received if m["type"] == "event"]
    assert events == ["session_end", "session_start"] * 3


async def test_compact_runs_both_compaction_hooks(workspace, current) -> None:
    current("ext", subscribe=["session_before_compact", "session_compact"])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert await gateway.apply_session_action(SessionAction("compact", instruction="x")) == ""
    events = [m for m in workspace.received("ext") if m["type"] == "event"]
    assert [e["event"] for e in events] == ["session_before_compact", "session_compact"]
    assert events[0]["payload"]["instruction"] == "x"


def test_the_cli_command_reports_the_action_it_does_not_carry_out(workspace) -> None:
    add_current(workspace, "ext", commands={"go": reply(message="m", session={"action": "new"})})
    done = run_cli(workspace, "command", "go", "--json")
    data = json.loads(done.stdout)
    assert (data["message"], data["session"], data["reload"]) == ("m", {"action": "new"}, False)


def test_the_cli_command_whose_reply_failed_exits_1_and_still_prints_it(workspace) -> None:
    add_current(workspace, "ext", commands={"go": reply(message="m", session={"action": "bad"})})
    done = run_cli(workspace, "command", "go", "--json")
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    assert (data["message"], data["error"]) == ("m", "unknown session action: bad")
    human = run_cli(workspace, "command", "go")
    assert human.returncode == 1
    assert "Extension command failed: unknown session action: bad" in human.stdout


def test_the_shell_carries_out_session_actions_reload_and_prompt(workspace) -> None:
    add_current(
        workspace,
        "ext",
        commands={
            "fresh": reply(message="starting over", session={"action": "new", "editor_text": "hi"}),
            "again": reply(message="reloading", reload=True),
            "ask": reply(prompt="what now"),
            "bad": reply(session={"action": "switch", "id": "missing"}),
        },
        subscribe=["turn_start"],
    )
    out = shell(workspace, "/fresh", "/again", "/ask", "/bad")
    lines = output_lines(out)
    first = lines.index("starting over")
    assert lines[first + 1].startswith("session new: now in session ")
    assert "(text for the composer, not sent: hi)" in out
    assert lines[lines.index("reloading") + 1] == "reloaded: 1 extensions running"
    assert "prompt: what now" in out
    assert "Extension command failed: Session not found: missing" in out
    received = workspace.received("ext")
    assert len([m for m in received if m["type"] == "initialize"]) == 3  # start, new, reload
    assert [m["event"] for m in received if m["type"] == "event"] == ["turn_start"]
