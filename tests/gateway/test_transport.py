"""The process transport, against real extension processes in Python and JavaScript."""

from __future__ import annotations

import json
import os
from pathlib import Path

import anyio
import pytest

from gateway import UiAnswer, open_gateway
from gateway.wire import ExtensionProcess, UiRequest

pytestmark = pytest.mark.anyio


def codes(gateway) -> list[str]:
    return [d.code for d in gateway.diagnostics]


async def test_tool_call_round_trip(workspace, language):
    workspace.add_extension("ext", language=language)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("act", {"x": 1})
    assert json.loads(result.content) == {"tool": "act", "arguments": {"x": 1}}
    assert result.is_error is False


async def test_initialize_carries_workspace_and_session_id(workspace, language):
    workspace.add_extension("ext", language=language)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        session_id = gateway.session.id
    first = workspace.received("ext")[0]
    assert first == {
        "type": "initialize",
        "version": 1,
        "workspace": str(workspace.root.resolve()),
        "session_id": session_id,
        "gateway": {"version": 1, "features": ["register.diagnostics"]},
    }


async def test_replies_arrive_in_any_order_with_several_requests_in_flight(workspace, language):
    workspace.add_extension("ext", language=language)
    finished: list[str] = []
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:

        async def call(label: str, seconds: float) -> None:
            result = await gateway.call_tool("act", {"do": "sleep", "seconds": seconds})
            assert result.content == f"slept {seconds}"
            finished.append(label)

        async with anyio.create_task_group() as group:
            group.start_soon(call, "slow", 0.6)
            group.start_soon(call, "fast", 0.01)
    assert finished == ["fast", "slow"]


async def test_request_ids_are_unique_across_extensions(workspace, language):
    workspace.add_extension("one", language=language)
    workspace.add_extension("two", language=language, tools=["act2"])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
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


async def test_timeout_fails_the_call_and_the_extension_keeps_running(workspace, language):
    workspace.add_extension("ext", language=language, timeout=1)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("act", {"do": "hang"})
        assert result.is_error and result.content == "extension response timed out"
        assert "extension.timeout" in codes(gateway)
        again = await gateway.call_tool("act", {"do": "echo"})
        assert not again.is_error


async def test_timeout_sends_cancel_for_the_abandoned_request(workspace, language):
    workspace.add_extension("ext", language=language, timeout=1)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await gateway.call_tool("act", {"do": "hang"})
        await gateway.call_tool("act", {})  # the cancel line is written before this request
    received = workspace.received("ext")
    tool_id = next(m["id"] for m in received if m["type"] == "tool")
    assert {"type": "cancel", "id": tool_id} in received


async def test_null_timeout_waits_as_long_as_it_takes(workspace, language):
    workspace.add_extension("ext", language=language, timeout=None)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        process = gateway.processes[0]
        assert process.timeout is None
        result = await gateway.call_tool("act", {"do": "sleep", "seconds": 1.2})
    assert result.content == "slept 1.2"


async def test_caller_cancellation_sends_cancel(workspace, language):
    workspace.add_extension("ext", language=language)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        with anyio.move_on_after(0.3):
            await gateway.call_tool("act", {"do": "wait_cancel"})
        await gateway.call_tool("act", {})
    received = workspace.received("ext")
    tool_id = next(m["id"] for m in received if m["type"] == "tool")
    assert {"type": "cancel", "id": tool_id} in received


async def test_time_waiting_for_the_user_does_not_count_against_the_timeout(workspace, language):
    workspace.add_extension("ext", language=language, timeout=1)

    async def slow_user(process: ExtensionProcess, request: UiRequest) -> UiAnswer:
        await anyio.sleep(1.5)  # longer than the extension's timeout
        return UiAnswer(answer=request.options[1])

    async with open_gateway(
        workspace.root,
        trust=True,
        config=workspace.config,
        transport=workspace.transport,
        ui=slow_user,
    ) as gateway:
        result = await gateway.call_tool("act", {"do": "ask", "options": ["x", "y"]})
    assert not result.is_error, result.content
    assert json.loads(result.content) == {"answer": "y", "cancelled": False}


async def test_ui_request_is_answered_cancelled_when_no_one_can_answer(workspace, language):
    workspace.add_extension("ext", language=language)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
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
    workspace, language, behaviour, code, after
):
    workspace.add_extension("ext", language=language)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("act", {"do": behaviour})
        assert result.content == after
        # The duplicate arrives after the first reply resolved the call; the next call
        # cannot complete before the reader has seen it.
        follow_up = await gateway.call_tool("act", {})
        assert not follow_up.is_error
        assert code in codes(gateway)
        assert gateway.processes[0].alive


async def test_oversized_line_is_skipped_and_the_stream_stays_in_sync(workspace, language):
    from dataclasses import replace

    config = replace(workspace.config, line_cap=4096)
    workspace.add_extension("ext", language=language)
    async with open_gateway(
        workspace.root, trust=True, config=config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("act", {"do": "oversized", "size": 300_000})
        assert result.content == "after oversized"
        assert "protocol.line_too_long" in codes(gateway)
        assert not (await gateway.call_tool("act", {})).is_error


async def test_invalid_response_fails_its_call_at_once(workspace, language):
    workspace.add_extension("ext", language=language, timeout=30)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        with anyio.fail_after(10):
            result = await gateway.call_tool("act", {"do": "invalid_message"})
        assert result.is_error
        assert "content" in result.content
        assert "protocol.invalid_message" in codes(gateway)


async def test_crash_mid_call_fails_the_call_and_is_reported(workspace, language):
    workspace.add_extension("ext", language=language)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("act", {"do": "crash"})
        assert result.is_error and "exited unexpectedly" in result.content
        assert "extension.exited" in codes(gateway)
        again = await gateway.call_tool("act", {})
        assert again.is_error and "not running" in again.content


@pytest.mark.parametrize(
    ("before", "reason"),
    [("crash", "exited before register"), ("garbage", "not JSON"), ("hang", "no register")],
)
async def test_failed_startup_is_a_warning_and_other_extensions_start(
    workspace, language, before, reason
):
    workspace.add_extension("bad", language=language, timeout=1, before_register=before)
    workspace.add_extension("good", language=language, tools=["fine"])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
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
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.processes == []
        (diagnostic,) = [d for d in gateway.diagnostics if d.package == "bad"]
        assert diagnostic.code == "extension.register_invalid"
        assert problem in diagnostic.message
    assert log.exists()


async def test_stderr_flood_goes_to_the_log_file_and_never_blocks(workspace, language):
    workspace.add_extension("ext", language=language, stderr_flood=2_000_000)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        with anyio.fail_after(20):
            result = await gateway.call_tool("act", {"do": "stderr", "size": 1_000_000})
        assert result.content == "wrote stderr"
        log = gateway.processes[0].plan.log_path
        # Node queues writes to a full pipe and drops the queue on process.exit(): wait
        # until what it wrote has arrived before the shutdown.
        with anyio.fail_after(20):
            while log.stat().st_size < 3_000_000:
                await anyio.sleep(0.05)
    assert log.stat().st_size >= 3_000_000


@pytest.mark.parametrize("ignore_sigterm", [False, True])
async def test_shutdown_escalates_for_an_extension_that_ignores_it(
    workspace, language, ignore_sigterm
):
    workspace.add_extension(
        "stubborn", language=language, ignore_shutdown=True, ignore_sigterm=ignore_sigterm
    )
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        pid = gateway.processes[0].pid
    assert pid is not None
    assert not Path(f"/proc/{pid}").exists()  # gone and reaped: no zombie
    assert any(d.code == "extension.shutdown_forced" for d in gateway.diagnostics)


async def test_clean_shutdown_sends_shutdown_and_leaks_no_fds_or_zombies(workspace, language):
    workspace.add_extension("ext", language=language)
    before = set(os.listdir("/proc/self/fd"))
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        pid = gateway.processes[0].pid
        await gateway.call_tool("act", {})
    assert not Path(f"/proc/{pid}").exists()
    assert workspace.received("ext")[-1] == {"type": "shutdown"}
    assert not any(d.code == "extension.shutdown_forced" for d in gateway.diagnostics)
    leaked = {
        fd
        for fd in set(os.listdir("/proc/self/fd")) - before
        if Path(f"/proc/self/fd/{fd}").exists()
        # Built Landlock rulesets are kept in a bounded cache for the next spawn.
        and os.readlink(f"/proc/self/fd/{fd}") != "anon_inode:[landlock-ruleset]"
    }
    assert leaked == set()


async def test_extension_runs_in_its_own_process_group(workspace, language):
    workspace.add_extension("ext", language=language)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        pid = gateway.processes[0].pid
        assert os.getpgid(pid) == pid != os.getpgrp()


async def test_children_get_an_allow_listed_environment(workspace, monkeypatch):
    from dataclasses import replace

    monkeypatch.setenv("GATEWAY_TEST_SECRET", "hunter2")
    monkeypatch.setenv("GATEWAY_TEST_TOKEN", "allowed")
    config = replace(workspace.config, passthrough_env=("GATEWAY_TEST_TOKEN",))
    workspace.add_extension("ext", language="python")
    async with open_gateway(
        workspace.root, trust=True, config=config, transport=workspace.transport
    ) as gateway:
        pid = gateway.processes[0].pid
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    names = {item.split(b"=", 1)[0].decode() for item in environ if item}
    assert "GATEWAY_TEST_SECRET" not in names
    assert "GATEWAY_TEST_TOKEN" in names
    assert names <= {
        "HOME",
        "LOGNAME",
        "USER",
        "PATH",
        "SHELL",
        "TERM",
        "LANG",
        "LC_ALL",
        "LC_CTYPE",
        "TZ",
        "TMPDIR",
        "GATEWAY_DATA_DIR",
        "GATEWAY_TEST_TOKEN",
    }
