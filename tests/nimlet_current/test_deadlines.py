"""While any extension waits on the user (``ui_request``) or the host (``host_request``),
no pending request of any extension times out; once it is answered, each starts over with
its full timeout.

In memory on a virtual clock (``tests/_clock.py``): the 1 s timeouts and the steps' sleeps
take no real time, and a loaded machine cannot stretch a step past a deadline."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from gateway import AgentLink, Completion, UiAnswer, open_gateway

from .conftest import script, tool

pytestmark = pytest.mark.anyio

# A reply 1.5 s after the request: past the 1 s timeout unless the clock was paused.
LATE = script({"sleep": 1.5}, {"reply": {"content": "late but fine"}})


async def test_a_question_of_one_extension_pauses_every_deadline(workspace, current) -> None:
    current("slow", tools=[tool("slow")], timeout=1)
    current("asker", tools=[tool("ask")])
    asked, slow_done = anyio.Event(), anyio.Event()

    async def ui(process: Any, request: Any) -> UiAnswer:
        asked.set()
        await slow_done.wait()  # the question stays open until the slow call is over
        return UiAnswer("ok")

    question = {"ask": {"type": "ui_request", "method": "input", "prompt": "wait"}}
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport, ui=ui
    ) as gateway:
        results: dict[str, Any] = {}

        async def slow() -> None:
            results["slow"] = await gateway.call_tool("slow", LATE)
            slow_done.set()

        async def asker() -> None:
            results["ask"] = await gateway.call_tool("ask", script(question, {"reply": {}}))

        async with anyio.create_task_group() as group:
            group.start_soon(asker)
            await asked.wait()  # the question is open before the slow call starts
            group.start_soon(slow)
    assert results["slow"].content == "late but fine"
    assert not results["slow"].is_error


async def test_a_host_request_pauses_every_deadline(workspace, current) -> None:
    current("slow", tools=[tool("slow")], timeout=1)
    current("asker", tools=[tool("ask")])
    asked, slow_done = anyio.Event(), anyio.Event()

    async def complete(request: Any) -> Completion:
        asked.set()
        await slow_done.wait()
        return Completion("done", "m")

    request = {"ask": {"type": "host_request", "method": "model.complete", "prompt": "p"}}
    link = AgentLink(complete=complete)
    async with open_gateway(
        workspace.root,
        trust=True,
        config=workspace.config,
        transport=workspace.transport,
        agent=link,
    ) as gateway:
        results: dict[str, Any] = {}

        async def slow() -> None:
            results["slow"] = await gateway.call_tool("slow", LATE)
            slow_done.set()

        async with anyio.create_task_group() as group:
            group.start_soon(gateway.call_tool, "ask", script(request, {"reply": {}}))
            await asked.wait()
            group.start_soon(slow)
    assert results["slow"].content == "late but fine"


async def test_after_the_answer_the_full_timeout_starts_over(workspace, current) -> None:
    # 0.7 s, a question answered at once, 0.7 s: 1.4 s in all, over a 1 s timeout, but
    # never more than 1 s since the question.
    current("ext", tools=[tool("t")], timeout=1)

    async def ui(process: Any, request: Any) -> UiAnswer:
        return UiAnswer("ok")

    steps = script({"sleep": 0.7}, {"ask": {"type": "ui_request", "method": "input", "prompt": "?"}},
                   {"sleep": 0.7}, {"reply": {"content": "in time"}})  # fmt: skip
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport, ui=ui
    ) as gateway:
        result = await gateway.call_tool("t", steps)
        assert result.content == "in time"
        # Without a question, the same wait still times out.
        late = await gateway.call_tool("t", LATE)
        assert late.is_error and "timed out" in late.content
