"""The process layer, against the scripted extension in memory on a virtual clock: requests
and replies, deadlines, cancellation, questions, bad lines, crashes and failed starts, the
same on asyncio and trio and at any machine load. What only a child's pipes show (framing
across reads, stderr, signals, process groups, the environment) is in ``test_pipes.py``,
against the real scripted extensions in Python and JavaScript."""

from __future__ import annotations

import json
from dataclasses import replace

import anyio
import pytest

from gateway import UiAnswer, open_gateway
from gateway.wire import ExtensionProcess, UiRequest
from tests._clock import virtual_time  # noqa: F401  (this module's anyio_backend)

pytestmark = pytest.mark.anyio


def codes(gateway) -> list[str]:
    return [d.code for d in gateway.diagnostics]


def opened(workspace, **options):
    options.setdefault("config", workspace.config)
    return open_gateway(workspace.root, trust=True, transport=workspace.transport, **options)


async def test_tool_call_round_trip(workspace):
    workspace.add_extension("ext")
    async with opened(workspace) as gateway:
        result = await gateway.call_tool("act", {"x": 1})
    assert json.loads(result.content) == {"tool": "act", "arguments": {"x": 1}}
    assert result.is_error is False


async def test_initialize_carries_workspace_and_session_id(workspace):
    workspace.add_extension("ext")
    async with opened(workspace) as gateway:
        session_id = gateway.session.id
    first = workspace.received("ext")[0]
    assert first == {
        "type": "initialize",
        "version": 1,
        "workspace": str(workspace.root.resolve()),
        "session_id": session_id,
        "gateway": {"version": 1, "features": ["register.diagnostics"]},
    }


async def test_replies_arrive_in_any_order_with_several_requests_in_flight(workspace):
    workspace.add_extension("ext")
    finished: list[str] = []
    async with opened(workspace) as gateway:

        async def call(label: str, seconds: float) -> None:
            result = await gateway.call_tool("act", {"do": "sleep", "seconds": seconds})
            assert result.content == f"slept {seconds}"
            finished.append(label)

        async with anyio.create_task_group() as group:
            group.start_soon(call, "slow", 0.6)
            group.start_soon(call, "fast", 0.01)
    assert finished == ["fast", "slow"]


async def test_request_ids_are_unique_across_extensions(workspace):
    workspace.add_extension("one")
    workspace.add_extension("two", tools=["act2"])
    async with opened(workspace) as gateway:
        for _ in range(3):
            await gateway.call_tool("act", {})
            await gateway.call_tool("act2", {})
    ids = [
        message["id"]
        for name in ("one", "two")
        for message in workspace.received(name)
        if "id" in message
    ]
    assert len(ids) == len(set(ids)) >= 6
    assert all(isinstance(request_id, str) for request_id in ids)


async def test_timeout_fails_the_call_and_the_extension_keeps_running(workspace):
    workspace.add_extension("ext", timeout=1)
    async with opened(workspace) as gateway:
        result = await gateway.call_tool("act", {"do": "hang"})
        assert result.is_error and result.content == "extension response timed out"
        assert "extension.timeout" in codes(gateway)
        again = await gateway.call_tool("act", {"do": "echo"})
        assert not again.is_error


async def test_timeout_sends_cancel_for_the_abandoned_request(workspace):
    workspace.add_extension("ext", timeout=1)
    async with opened(workspace) as gateway:
        await gateway.call_tool("act", {"do": "hang"})
        await gateway.call_tool("act", {})  # the cancel line is written before this request
    received = workspace.received("ext")
    tool_id = next(m["id"] for m in received if m["type"] == "tool")
    assert {"type": "cancel", "id": tool_id} in received


async def test_null_timeout_waits_as_long_as_it_takes(workspace):
    workspace.add_extension("ext", timeout=None)
    async with opened(workspace) as gateway:
        process = gateway.processes[0]
        assert process.timeout is None
        result = await gateway.call_tool("act", {"do": "sleep", "seconds": 3600})
    assert result.content == "slept 3600"


async def test_caller_cancellation_sends_cancel(workspace):
    workspace.add_extension("ext")
    async with opened(workspace) as gateway:
        with anyio.move_on_after(0.3):
            await gateway.call_tool("act", {"do": "wait_cancel"})
        await gateway.call_tool("act", {})
    received = workspace.received("ext")
    tool_id = next(m["id"] for m in received if m["type"] == "tool")
    assert {"type": "cancel", "id": tool_id} in received


async def test_time_waiting_for_the_user_does_not_count_against_the_timeout(workspace):
    workspace.add_extension("ext", timeout=1)

    async def slow_user(process: ExtensionProcess, request: UiRequest) -> UiAnswer:
        await anyio.sleep(1.5)  # longer than the extension's timeout
        return UiAnswer(answer=request.options[1])

    async with opened(workspace, ui=slow_user) as gateway:
        result = await gateway.call_tool("act", {"do": "ask", "options": ["x", "y"]})
    assert not result.is_error, result.content
    assert json.loads(result.content) == {"answer": "y", "cancelled": False}


async def test_ui_request_is_answered_cancelled_when_no_one_can_answer(workspace):
    workspace.add_extension("ext")
    async with opened(workspace) as gateway:
        result = await gateway.call_tool("act", {"do": "ask"})
        assert "ui.unanswered" in codes(gateway)
    assert json.loads(result.content) == {"answer": "", "cancelled": True}


@pytest.mark.parametrize(
    ("behaviour", "code", "after"),
    [
        ("malformed", "protocol.invalid_json", "after malformed"),
        ("invalid_utf8", "protocol.invalid_utf8", "after invalid utf8"),
        ("unknown_id", "protocol.unknown_id", "real"),
        ("twice", "protocol.duplicate_reply", "first"),
    ],
)
async def test_bad_lines_are_diagnosed_and_the_extension_keeps_running(
    workspace, behaviour, code, after
):
    workspace.add_extension("ext")
    async with opened(workspace) as gateway:
        result = await gateway.call_tool("act", {"do": behaviour})
        assert result.content == after
        # The duplicate arrives after the first reply resolved the call; the next call
        # cannot complete before the reader has seen it.
        follow_up = await gateway.call_tool("act", {})
        assert not follow_up.is_error
        assert code in codes(gateway)
        assert gateway.processes[0].alive


async def test_an_oversized_line_is_skipped_and_the_extension_keeps_running(workspace):
    workspace.add_extension("ext")
    async with opened(workspace, config=replace(workspace.config, line_cap=4096)) as gateway:
        result = await gateway.call_tool("act", {"do": "oversized", "size": 300_000})
        assert result.content == "after oversized"
        (found,) = [d for d in gateway.diagnostics if d.code == "protocol.line_too_long"]
        assert "300001 bytes exceeds the 4096-byte cap" in found.message
        assert not (await gateway.call_tool("act", {})).is_error


async def test_invalid_response_fails_its_call_at_once(workspace):
    workspace.add_extension("ext", timeout=30)
    async with opened(workspace) as gateway:
        with anyio.fail_after(10):
            result = await gateway.call_tool("act", {"do": "invalid_message"})
        assert result.is_error
        assert "content" in result.content
        assert "protocol.invalid_message" in codes(gateway)


async def test_crash_mid_call_fails_the_call_and_is_reported(workspace):
    workspace.add_extension("ext")
    async with opened(workspace) as gateway:
        result = await gateway.call_tool("act", {"do": "crash"})
        assert result.is_error and "exited unexpectedly (exit code 3)" in result.content
        assert "extension.exited" in codes(gateway)
        again = await gateway.call_tool("act", {})
        assert again.is_error and "not running" in again.content


@pytest.mark.parametrize(
    ("before", "reason"),
    [
        ("crash", "exited before register (exit code 7)"),
        ("garbage", "not JSON"),
        ("hang", "no register within 1s"),
    ],
)
async def test_failed_startup_is_a_warning_and_other_extensions_start(workspace, before, reason):
    workspace.add_extension("bad", timeout=1, before_register=before)
    workspace.add_extension("good", tools=["fine"])
    async with opened(workspace) as gateway:
        assert [p.name for p in gateway.processes] == ["good"]
        messages = [d.message for d in gateway.diagnostics if d.package == "bad"]
        assert any("failed to start" in m and reason in m for m in messages), messages
        assert not (await gateway.call_tool("fine", {})).is_error


@pytest.mark.parametrize(
    ("register", "problem"),
    [
        ({"type": "register", "tools": []}, "commands"),
        (
            {"type": "register", "commands": [], "tools": [{"name": "t", "input_schema": {}}]},
            "description",
        ),
        (
            {"type": "register", "commands": [], "tools": [{"name": "t", "description": "d"}]},
            "input_schema",
        ),
        (
            {
                "type": "register",
                "commands": [],
                "tools": [
                    {"name": "t", "description": "d", "input_schema": {}, "capabilities": ["fly"]}
                ],
            },
            "capabilities",
        ),
        ({"type": "register", "commands": [], "events": [3]}, "events"),
        ({"type": "response", "id": "1"}, "register"),
    ],
)
async def test_invalid_register_stops_the_extension(workspace, register, problem):
    log = workspace.add_extension("bad", register=register)
    async with opened(workspace) as gateway:
        assert gateway.processes == []
        (diagnostic,) = [d for d in gateway.diagnostics if d.package == "bad"]
        assert diagnostic.code == "extension.register_invalid"
        assert problem in diagnostic.message
    assert log.exists()


async def test_an_extension_that_ignores_shutdown_is_stopped_and_reported(workspace):
    workspace.add_extension("stubborn", ignore_shutdown=True)
    async with opened(workspace) as gateway:
        process = gateway.processes[0]
    assert not process.alive
    assert "extension.shutdown_forced" in codes(gateway)
