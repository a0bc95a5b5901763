"""The current generation over real pipes: the rest of this suite runs its extensions in
memory (``fixtures/memory_current.py``); here the real ones, in Python and JavaScript
(``fixtures/current_extension.*``), go through every kind of message the current document
adds at least once — content arrays, ``tool_update``, ``ui_request`` methods,
``host_request``, the ``context`` event, command replies — so the protocol is proven
between real processes too. asyncio only: the pipes on trio are ``tests/gateway/test_pipes.py``'s."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gateway import AgentLink, Completion, UiAnswer, open_gateway
from tests._backends import asyncio_only  # noqa: F401  (real processes: real time)

from .conftest import add_current, reply, script, tool

pytestmark = pytest.mark.anyio

SYSTEM = ["You are a coding agent."]


@pytest.mark.parametrize("language", ["python", "node"])
async def test_every_current_message_kind_over_real_pipes(workspace: Any, language: str) -> None:
    add_current(
        workspace, "ext", language=language, tools=[tool("t", ["read"])],
        commands={"go": reply(message="went", session={"action": "new"})},
        subscribe=["context"], events={"context": reply(system=["from ext"])},
    )  # fmt: skip
    asked: list[str] = []

    async def ui(process: Any, request: Any) -> UiAnswer:
        asked.append(request.method)
        return UiAnswer("typed" if request.method == "input" else "Yes")

    async def complete(request: Any) -> Completion:
        return Completion("completed", "m")

    seen: list[str] = []
    steps = script(
        {"updates": {"text": "step {n}", "count": 2}},
        {"ask": {"type": "ui_request", "method": "input", "prompt": "name?"}},
        {"ask": {"type": "ui_request", "method": "confirm", "prompt": "go?"}},
        {"ask": {"type": "host_request", "method": "model.complete", "prompt": "p"}},
        {"reply": {"content": [{"type": "text", "text": "$answers"}]}},
    )
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport,
        ui=ui, agent=AgentLink(complete=complete),
    ) as gateway:  # fmt: skip
        gateway.progress_listener = lambda owner, item: seen.append(item["text"])
        await gateway.start_turn()
        result = await gateway.call_tool("t", steps)
        context = await gateway.context(SYSTEM, [])
        await gateway.end_turn()
        command = await gateway.run_command("go")
    assert not result.is_error, result.content
    answers = json.loads(result.content)
    assert [a["type"] for a in answers] == ["ui_response", "ui_response", "host_response"]
    assert answers[0]["answer"] == "typed" and answers[1]["confirmed"] is True
    assert answers[2]["result"]["text"] == "completed"
    assert asked == ["input", "confirm"]
    assert seen == ["step 0", "step 1"]
    assert context.system == [*SYSTEM, "from ext"]
    assert command.message == "went" and command.session is not None
