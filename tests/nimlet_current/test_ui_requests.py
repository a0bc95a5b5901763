"""``ui_request`` methods ``question``, ``confirm``, ``input`` and ``password``: the UI
handler (or ``gateway shell``) answers; an empty answer is cancelled; with no one to ask,
or outside a turn or command, it is cancelled at once; an unknown method is answered
cancelled (upstream would leave it waiting); a password is never written down."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from gateway import UiAnswer, open_gateway

from ._shell import shell
from .conftest import add_current, script, tool

pytestmark = pytest.mark.anyio

SECRET = "hunter2-do-not-log"


def ask(method: str, prompt: str = "?", **extra: Any) -> dict[str, Any]:
    return {"ask": {"type": "ui_request", "method": method, "prompt": prompt, **extra}}


ANSWERS = {"reply": {"content": "$answers"}}


def answers(result: Any) -> list[dict[str, Any]]:
    assert not result.is_error, result.content
    return [{k: v for k, v in a.items() if k != "id"} for a in json.loads(result.content)]


async def test_each_method_reaches_the_ui_and_is_answered_in_its_shape(workspace, current) -> None:
    current("ext", tools=[tool("t")])
    asked: list[tuple[str, str, list[str]]] = []
    replies = {"pick": UiAnswer("b"), "sure": UiAnswer("Yes"), "name": UiAnswer("Ada"),
               "pin": UiAnswer(SECRET), "sure again": UiAnswer(confirmed=False)}  # fmt: skip

    async def ui(process: Any, request: Any) -> UiAnswer:
        asked.append((request.method, request.prompt, list(request.options)))
        return replies[request.prompt]

    steps = [ask("question", "pick", options=["a", "b"]), ask("confirm", "sure"),
             ask("input", "name"), ask("confirm", "sure again")]  # fmt: skip
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport, ui=ui
    ) as gateway:
        result = await gateway.call_tool("t", script(*steps, ANSWERS))
        # The password goes to the extension, which keeps it to itself.
        kept = await gateway.call_tool(
            "t", script(ask("password", "pin"), {"reply": {"content": "ok"}})
        )
        session_text = gateway.session.path.read_text()
        diagnostics = " ".join(d.message for d in gateway.diagnostics)
    assert [(m, p) for m, p, _ in asked] == [
        ("question", "pick"), ("confirm", "sure"), ("input", "name"), ("confirm", "sure again"),
        ("password", "pin"),
    ]  # fmt: skip
    assert asked[1][2] == ["Yes", "No"]  # a confirm is shown as nimlet shows it
    assert answers(result) == [
        {"type": "ui_response", "answer": "b", "cancelled": False},
        {"type": "ui_response", "confirmed": True, "cancelled": False},
        {"type": "ui_response", "answer": "Ada", "cancelled": False},
        {"type": "ui_response", "confirmed": False, "cancelled": False},
    ]
    assert kept.content == "ok"
    received = [m for m in workspace.received("ext") if m["type"] == "ui_response"]
    assert received[-1]["answer"] == SECRET and received[-1]["cancelled"] is False
    # …and nowhere the gateway writes: the session, diagnostics, the logs.
    logs = "".join(p.read_text() for p in workspace.config.logs_dir.glob("*.log"))
    assert SECRET not in session_text + diagnostics + logs


async def test_an_empty_answer_is_cancelled(workspace, current) -> None:
    current("ext", tools=[tool("t")])

    async def ui(process: Any, request: Any) -> UiAnswer:
        return UiAnswer("")

    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport, ui=ui
    ) as gateway:
        result = await gateway.call_tool("t", script(ask("input"), ask("confirm"), ANSWERS))
    assert answers(result) == [
        {"type": "ui_response", "answer": "", "cancelled": True},
        {"type": "ui_response", "confirmed": False, "cancelled": True},
    ]


async def test_no_ui_and_unknown_methods_are_cancelled_at_once(workspace, current) -> None:
    current("ext", tools=[tool("t")])
    steps = [ask("password"), ask("color", options=["red"]), ANSWERS]
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("t", script(*steps))
        codes = [d.code for d in gateway.diagnostics]
    assert answers(result) == [
        {"type": "ui_response", "answer": "", "cancelled": True},
        {"type": "ui_response", "answer": "", "cancelled": True},
    ]
    assert "ui.unanswered" in codes and "ui.unsupported_method" in codes


async def test_outside_a_turn_or_command_no_one_is_asked(workspace, current) -> None:
    current("ext", subscribe=["session_start", "turn_start"],
            events={"session_start": [ask("input", "early"), ANSWERS],
                    "turn_start": [ask("input", "in a turn"), ANSWERS]})  # fmt: skip
    asked: list[str] = []

    async def ui(process: Any, request: Any) -> UiAnswer:
        asked.append(request.prompt)
        return UiAnswer("yes")

    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport, ui=ui
    ) as gateway:
        await gateway.start_session()
        await gateway.start_turn()
        await gateway.end_turn()
    assert asked == ["in a turn"]
    responses = [m for m in workspace.received("ext") if m["type"] == "ui_response"]
    assert [r["cancelled"] for r in responses] == [True, False]


async def test_questions_asked_together_reach_the_user_one_at_a_time(workspace, current) -> None:
    # turn_start goes to both subscribers at once (protocol.md#events): both ask.
    for name in ("first", "second"):
        current(name, subscribe=["turn_start"],
                events={"turn_start": [ask("input", name), ANSWERS]})  # fmt: skip
    asked: list[str] = []
    open_questions = 0
    most = 0

    async def ui(process: Any, request: Any) -> UiAnswer:
        nonlocal open_questions, most
        open_questions += 1
        most = max(most, open_questions)
        asked.append(request.prompt)
        for _ in range(5):
            await anyio.lowlevel.checkpoint()
        open_questions -= 1
        return UiAnswer(request.prompt)

    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport, ui=ui
    ) as gateway:
        await gateway.start_turn()
        await gateway.end_turn()
    assert sorted(asked) == ["first", "second"]
    assert most == 1


def test_the_shell_asks_each_method_and_hides_the_password(workspace) -> None:
    add_current(workspace, "ext", tools=[tool("t")])
    steps = [ask("confirm", "Deploy?"), ask("input", "Name?"), ask("password", "PIN?"),
             ask("question", "Env?", options=["staging", "prod"]), ANSWERS]  # fmt: skip
    out = shell(workspace, "/call t " + json.dumps(script(*steps)), "y", "Ada", SECRET, "2")
    assert "ext asks: Deploy?" in out and "yes or no" in out
    assert "answer (hidden, empty to dismiss)" in out
    result = json.loads(out.split("[ok] ", 1)[1].splitlines()[0])
    assert [r.get("answer", r.get("confirmed")) for r in result] == [True, "Ada", SECRET, "prod"]
    assert out.count(SECRET) == 1  # only in the tool's own result, which echoes it
