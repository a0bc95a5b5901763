"""``host_request`` → ``host_response``, as current nimlet answers: ``model.complete``
through the embedding agent's completion handler, ``ui.editor`` through its editor (or the
terminal's), ``session.info``, ``session.name``, ``context.usage``; anything else is
upstream's error; nothing is answered outside a turn, command or tool call."""

from __future__ import annotations

import json
import stat
from typing import Any

import pytest

from gateway import (
    AgentLink,
    Completion,
    CompletionRequest,
    EditRequest,
    EditResult,
    open_gateway,
)
from gateway.host import editor as editor_module
from gateway.model import Session

from .conftest import script, tool

pytestmark = pytest.mark.anyio

ANSWERS = {"reply": {"content": "$answers"}}


def host(method: str, **fields: Any) -> dict[str, Any]:
    return {"ask": {"type": "host_request", "method": method, **fields}}


def responses(result: Any) -> list[dict[str, Any]]:
    assert not result.is_error, result.content
    return [
        {k: v for k, v in r.items() if k not in ("id", "type")} for r in json.loads(result.content)
    ]


async def run(workspace: Any, current: Any, *steps: dict[str, Any], **link: Any) -> Any:
    current("ext", tools=[tool("t")])
    agent = AgentLink(**link)
    async with open_gateway(
        workspace.root,
        trust=True,
        config=workspace.config,
        transport=workspace.transport,
        agent=agent,
    ) as gateway:
        return await gateway.call_tool("t", script(*steps, ANSWERS)), gateway


async def test_model_complete_goes_to_the_agents_completion_handler(workspace, current) -> None:
    asked: list[CompletionRequest] = []

    async def complete(request: CompletionRequest) -> Completion:
        asked.append(request)
        if request.prompt == "fail":
            raise RuntimeError("401 invalid x-api-key")
        return Completion(text=f"echo {request.prompt}", model="m-1", finish_reason="frMaxTokens")

    result, _ = await run(
        workspace, current,
        host("model.complete", prompt="hi", system_prompt="be brief", max_tokens=5),
        host("model.complete", prompt="defaults"), host("model.complete", prompt=""),
        host("model.complete", prompt="fail"),
        complete=complete, max_tokens=999,
    )  # fmt: skip
    assert responses(result) == [
        {"result": {"text": "echo hi", "model": "m-1", "finish_reason": "frMaxTokens"}},
        {"result": {"text": "echo defaults", "model": "m-1", "finish_reason": "frMaxTokens"}},
        {"error": "prompt is required"},
        {"error": "401 invalid x-api-key"},
    ]
    assert [(r.prompt, r.system_prompt, r.max_tokens, r.owner) for r in asked[:2]] == [
        ("hi", "be brief", 5, "ext"),
        ("defaults", "", 999, "ext"),
    ]


async def test_without_a_completion_handler_no_model_is_reachable(workspace, current) -> None:
    result, _ = await run(workspace, current, host("model.complete", prompt="hi"))
    [answer] = responses(result)
    assert list(answer) == ["error"] and "no model is available" in answer["error"]


async def test_ui_editor_uses_the_agents_editor_or_says_it_has_none(workspace, current) -> None:
    result, _ = await run(workspace, current, host("ui.editor", title="Commit", text="draft"))
    assert responses(result) == [
        {"result": {"cancelled": True, "error": "interactive editor is unavailable"}}
    ]

    async def editor(request: EditRequest) -> EditResult:
        if request.title == "broken":
            return EditResult(error="editor exited with code 1")
        return EditResult(text=request.text.upper())

    both = await run(
        workspace, current, host("ui.editor", title="Commit", text="draft"),
        host("ui.editor", title="broken", text=""), edit_text=editor,
    )  # fmt: skip
    assert responses(both[0]) == [
        {"result": {"text": "DRAFT"}},
        {"result": {"cancelled": True, "error": "editor exited with code 1"}},
    ]


async def test_the_terminal_editor_runs_visual_or_editor(
    workspace, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "fake-editor"
    fake.write_text('#!/bin/sh\nprintf "edited %s\\n" "$(cat "$1")" > "$1"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("VISUAL", str(fake))
    assert (await editor_module.terminal_editor(EditRequest("t", "x"))).error == (
        "interactive editor is unavailable"  # the tests run without a terminal
    )
    monkeypatch.setattr(editor_module, "_on_a_terminal", lambda: True)
    assert (await editor_module.terminal_editor(EditRequest("t", "draft"))).text == "edited draft"
    monkeypatch.setenv("VISUAL", str(tmp_path / "missing-editor"))
    failed = await editor_module.terminal_editor(EditRequest("t", "draft"))
    assert failed.text is None and "cannot start editor" in failed.error


async def test_session_info_name_and_context_usage(workspace, current) -> None:
    messages = [{"type": "user", "role": "user", "content": [{"type": "text", "text": "x" * 400}]}]
    result, gateway = await run(
        workspace, current, host("session.info"), host("session.name", name="  Bug hunt "),
        host("session.name"), host("session.info"), host("context.usage"),
        messages=lambda: messages, context_window=1000,
    )  # fmt: skip
    session = gateway.session
    info, named, asked, after, usage = responses(result)
    assert info == {"result": {"id": session.id, "name": "", "path": str(session.path),
                               "workspace": str(workspace.root.resolve()), "event_count": 0}}  # fmt: skip
    assert named == asked == {"result": {"name": "Bug hunt"}}
    assert after["result"]["name"] == "Bug hunt" and after["result"]["event_count"] == 1
    assert usage["result"]["limit"] == 1000
    assert 100 < usage["result"]["tokens"] < 200 and usage["result"]["percent"] in range(10, 21)
    resumed = Session.resume(workspace.config.sessions_dir, session.id, gateway.diagnostics)
    assert resumed.name == "Bug hunt"


async def test_unknown_and_negotiated_methods_are_upstreams_error(workspace, current) -> None:
    result, _ = await run(
        workspace, current, host("teleport"), host("exec", params={"command": "id"}),
        host("session.entries", params={}),
    )  # fmt: skip
    assert responses(result) == [
        {"error": "unknown host request: teleport"},
        {"error": "unknown host request: exec"},
        {"error": "unknown host request: session.entries"},
    ]


async def test_nothing_is_answered_outside_a_turn_or_command(workspace, current) -> None:
    current("ext", subscribe=["session_start"],
            events={"session_start": [host("session.info"), ANSWERS]})  # fmt: skip
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await gateway.start_session()
    [response] = [m for m in workspace.received("ext") if m["type"] == "host_response"]
    assert {k: v for k, v in response.items() if k != "id"} == {
        "type": "host_response",
        "cancelled": True,
        "error": "host request is unavailable",
    }


async def test_one_message_type_serves_both_generations(workspace) -> None:
    """A runtime offered the negotiated ``host.request`` (a sidecar) keeps the methods
    upstream has no equivalent for, and the older shapes of ``ui.input`` / ``ui.editor``;
    upstream's shapes work for it too."""
    from types import SimpleNamespace

    from gateway.wire import HostRequest
    from gateway.wire.features import RUNTIME_FEATURES

    def request(method: str, **fields: Any) -> HostRequest:
        return HostRequest.model_validate({"type": "host_request", "id": "h", "method": method,
                                           **fields})  # fmt: skip

    async def editor(edit: EditRequest) -> EditResult:
        return EditResult(text=f"{edit.title}:{edit.text}")

    class Runtime:  # what the handler reads of a sidecar's process
        name = "pi:x"
        plan = SimpleNamespace(features=RUNTIME_FEATURES)

    runtime: Any = Runtime()
    link = AgentLink(edit_text=editor)
    async with open_gateway(
        workspace.root,
        trust=True,
        config=workspace.config,
        transport=workspace.transport,
        agent=link,
    ) as gateway:
        answer = gateway._host_requests.answer
        gateway._state.running += 1  # as during a command
        older = await answer(runtime, request("ui.editor", params={"prompt": "T", "prefill": "p"}))
        newer = await answer(runtime, request("ui.editor", title="T", text="p"))
        entries = await answer(runtime, request("session.entries", params={}))
        unknown = await answer(runtime, request("teleport", params={}))
    assert older.result == {"value": "T:p", "cancelled": False}
    assert newer.result == {"text": "T:p"}
    assert entries.result == [] and entries.error is None
    assert unknown.error == "unknown host request: teleport"
