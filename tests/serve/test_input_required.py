"""The rules of a 2026-07-28 call's questions (``gateway/serve/_input_required.py``), in
memory: who may answer, for how long, and what a call without an answer gets. The wire
exchange itself is driven by the SDK's client in test_mcp.py and test_http.py."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from gateway.base import Diagnostics
from gateway.serve import _input_required
from gateway.serve._input_required import ANSWER_KEY, InputRequired
from gateway.wire import UiRequest

pytestmark = pytest.mark.anyio

PROCESS: Any = SimpleNamespace(name="desk")
CONFIRM = UiRequest(type="ui_request", id="q1", method="confirm", prompt="Really deploy?")


def _ctx(elicits: bool = True) -> Any:
    session = SimpleNamespace(check_client_capability=lambda capability: elicits)
    return SimpleNamespace(session=session, params=None)


def _params(state: str | None = None, answer: types.ElicitResult | None = None) -> Any:
    responses = None if answer is None else {ANSWER_KEY: answer}
    return types.CallToolRequestParams(
        name="deploy", arguments={}, request_state=state, input_responses=responses
    )


async def _deploying(inputs: InputRequired, diagnostics: Diagnostics) -> Any:
    async def run(progress: Any) -> types.CallToolResult:
        answer = await inputs.ask(PROCESS, CONFIRM, diagnostics)
        assert answer is not None
        said = "deployed" if answer.confirmed else "kept"
        return types.CallToolResult(content=[types.TextContent(type="text", text=said)])

    return run


async def test_only_the_caller_that_got_the_state_answers_and_only_once() -> None:
    inputs, diagnostics = InputRequired(), Diagnostics()
    run = await _deploying(inputs, diagnostics)
    async with anyio.create_task_group() as group:
        group.start_soon(inputs.run)
        asked = await inputs.call(_ctx(), _params(), run, owner="desk", principal="alice")
        assert isinstance(asked, types.InputRequiredResult) and asked.request_state
        yes = types.ElicitResult(action="accept", content={"answer": True})
        with pytest.raises(MCPError, match="another caller's"):
            await inputs.call(
                _ctx(), _params(asked.request_state, yes), run, owner="desk", principal="bob"
            )
        done = await inputs.call(
            _ctx(), _params(asked.request_state, yes), run, owner="desk", principal="alice"
        )
        assert isinstance(done, types.CallToolResult)
        assert done.content == [types.TextContent(type="text", text="deployed")]
        with pytest.raises(MCPError, match="answered already"):
            await inputs.call(
                _ctx(), _params(asked.request_state, yes), run, owner="desk", principal="alice"
            )
        group.cancel_scope.cancel()


async def test_a_question_no_retry_answers_is_cancelled_after_the_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_input_required, "RETRY_WITHIN", 0.05)
    inputs, diagnostics = InputRequired(), Diagnostics()
    finished = anyio.Event()
    outcome: list[bool | None] = []

    async def run(progress: Any) -> types.CallToolResult:
        answer = await inputs.ask(PROCESS, CONFIRM, diagnostics)
        outcome.append(None if answer is None else answer.cancelled)
        finished.set()
        return types.CallToolResult(content=[])

    async with anyio.create_task_group() as group:
        group.start_soon(inputs.run)
        asked = await inputs.call(_ctx(), _params(), run, owner="desk", principal=None)
        assert isinstance(asked, types.InputRequiredResult)
        with anyio.fail_after(5):
            await finished.wait()
        assert outcome == [True]
        (said,) = [d for d in diagnostics if d.code == "ui.unanswered"]
        assert "no retry of the call came with its requestState" in said.message
        with pytest.raises(MCPError, match="requestState names no call waiting"):
            await inputs.call(
                _ctx(), _params(asked.request_state), run, owner="desk", principal=None
            )
        group.cancel_scope.cancel()


async def test_a_client_that_cannot_answer_forms_gets_the_result_with_a_cancelled_answer() -> None:
    inputs, diagnostics = InputRequired(), Diagnostics()
    run = await _deploying(inputs, diagnostics)
    async with anyio.create_task_group() as group:
        group.start_soon(inputs.run)
        done = await inputs.call(_ctx(elicits=False), _params(), run, owner="desk", principal=None)
        assert isinstance(done, types.CallToolResult)
        assert done.content == [types.TextContent(type="text", text="kept")]
        (said,) = [d for d in diagnostics if d.code == "ui.unanswered"]
        assert "no elicitation capability" in said.message
        group.cancel_scope.cancel()


async def test_a_question_outside_any_2026_07_28_call_is_left_to_the_other_ways() -> None:
    assert await InputRequired().ask(PROCESS, CONFIRM, None) is None
