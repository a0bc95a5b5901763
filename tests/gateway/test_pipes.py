"""The child's pipes (``gateway.wire._pipe_channel``), against the real scripted extensions
in Python and JavaScript on asyncio (the readiness fast path) and trio (a reader task):
what the in-memory suite (``test_transport.py``) cannot show — a round trip over real
pipes, a line longer than a pipe's buffer, a child's exit code, stderr, signals, process
groups, file descriptors and the child's environment.

Every bound here only caps a hang: nothing waits for time to pass."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import anyio
import pytest

from gateway import open_gateway
from tests._backends import both_backends  # noqa: F401  (the core's anyio code: both backends)

pytestmark = pytest.mark.anyio


def codes(gateway) -> list[str]:
    return [d.code for d in gateway.diagnostics]


def opened(workspace, config=None):
    config = config or workspace.config
    return open_gateway(workspace.root, trust=True, config=config, transport=workspace.transport)


async def test_a_round_trip_over_real_pipes(workspace, language):
    workspace.add_extension("ext", language=language)
    async with opened(workspace) as gateway:
        first = await gateway.call_tool("act", {"x": 1})
        big = await gateway.call_tool("act", {"do": "big", "size": 300_000})
    assert json.loads(first.content) == {"tool": "act", "arguments": {"x": 1}}
    assert big.content == "x" * 300_000  # several reads of the pipe, one line
    received = workspace.received("ext")
    assert received[0]["type"] == "initialize" and received[-1] == {"type": "shutdown"}


async def test_an_oversized_line_read_in_pieces_is_skipped_and_the_stream_stays_in_sync(
    workspace, language
):
    workspace.add_extension("ext", language=language)
    async with opened(workspace, replace(workspace.config, line_cap=4096)) as gateway:
        result = await gateway.call_tool("act", {"do": "oversized", "size": 300_000})
        assert result.content == "after oversized"
        assert "protocol.line_too_long" in codes(gateway)
        assert not (await gateway.call_tool("act", {})).is_error


async def test_a_crash_mid_call_is_told_with_its_exit_code(workspace, language):
    workspace.add_extension("ext", language=language)
    async with opened(workspace) as gateway:
        result = await gateway.call_tool("act", {"do": "crash"})
        assert result.is_error and "exited unexpectedly (exit code 3)" in result.content
        assert "extension.exited" in codes(gateway)


async def test_a_crash_before_register_is_told_with_its_exit_code(workspace, language):
    workspace.add_extension("bad", language=language, before_register="crash")
    async with opened(workspace) as gateway:
        assert gateway.processes == []
        (found,) = [d for d in gateway.diagnostics if d.package == "bad"]
    assert found.code == "extension.start_failed"
    assert "exited before register (exit code 7)" in found.message


async def test_stderr_flood_goes_to_the_log_file_and_never_blocks(workspace, language):
    workspace.add_extension("ext", language=language, stderr_flood=2_000_000)
    async with opened(workspace) as gateway:
        with anyio.fail_after(60):
            result = await gateway.call_tool("act", {"do": "stderr", "size": 1_000_000})
        assert result.content == "wrote stderr"
        log = gateway.processes[0].plan.log_path
        # Node queues writes to a full pipe and drops the queue on process.exit(): wait
        # until what it wrote has arrived before the shutdown.
        with anyio.fail_after(60):
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
    async with opened(workspace) as gateway:
        pid = gateway.processes[0].pid
    assert pid is not None
    assert not Path(f"/proc/{pid}").exists()  # gone and reaped: no zombie
    assert any(d.code == "extension.shutdown_forced" for d in gateway.diagnostics)


async def test_clean_shutdown_sends_shutdown_and_leaks_no_fds_or_zombies(workspace, language):
    workspace.add_extension("ext", language=language)
    before = set(os.listdir("/proc/self/fd"))
    async with opened(workspace) as gateway:
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
    async with opened(workspace) as gateway:
        pid = gateway.processes[0].pid
        assert os.getpgid(pid) == pid != os.getpgrp()


async def test_children_get_an_allow_listed_environment(workspace, monkeypatch):
    monkeypatch.setenv("GATEWAY_TEST_SECRET", "hunter2")
    monkeypatch.setenv("GATEWAY_TEST_TOKEN", "allowed")
    config = replace(workspace.config, passthrough_env=("GATEWAY_TEST_TOKEN",))
    workspace.add_extension("ext", language="python")
    async with opened(workspace, config) as gateway:
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
