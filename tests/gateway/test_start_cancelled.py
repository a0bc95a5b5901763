"""A start in flight when its caller gives up, or when the gateway closes
(gateway/host/_activation.py, ``ExtensionProcess.start``): the caller stops waiting, the
start goes on for the others, and closing abandons it — its half-started process is stopped,
not waited for. Real processes: what is asserted is that a child is stopped."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import pytest
from anyio.abc import TaskGroup

from gateway import open_gateway
from gateway.base import Diagnostics
from gateway.sandbox import package_dirs
from gateway.wire import (
    Channel,
    ExtensionProcess,
    InitializeMessage,
    LaunchPlan,
    PipeTransport,
    TransportConfig,
)
from tests._process_host import StandaloneHost
from tests.conftest import Workspace
from tests.gateway.test_lazy_start import nimlet_package, starts, warm

pytestmark = pytest.mark.anyio

AN_HOUR = {"response_timeout_seconds": 3600}
"""Its start timeout: a close that waited a start out would never end within the test."""


def children_running(config: Path) -> list[int]:
    """Live processes whose command line names ``config`` (the scripted extension's)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if str(config).encode() in command and state != "Z":
            found.append(int(entry.name))
    return found


async def spawned(marker: Path) -> None:
    while not marker.exists():
        await anyio.sleep(0.02)


def behave(workspace: Workspace, **behaviour: object) -> tuple[Path, Path]:
    """Change how alpha starts (outside its package: its cached registration still holds);
    returns its config and the file it writes as soon as it runs."""
    marker = package_dirs(workspace.config.home, "alpha")[0] / "spawned"
    config = workspace.root.parent / "alpha-config.json"
    was = json.loads(config.read_text())
    config.write_text(json.dumps({**was, "write_at_start": str(marker), **behaviour}))
    return config, marker


async def test_closing_the_gateway_stops_a_start_in_flight_instead_of_waiting_for_it(workspace):
    nimlet_package(workspace, "alpha", manifest_extra=AN_HOUR, tools=["alpha_tool"])
    await warm(workspace)
    config, marker = behave(workspace, before_register="hang")
    with anyio.fail_after(60):
        async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
            async with anyio.create_task_group() as group:
                group.start_soon(gateway.call_tool, "alpha_tool", {"do": "echo"})
                await spawned(marker)
                assert children_running(config)
                group.cancel_scope.cancel()  # the caller gives up; the start goes on
            assert children_running(config)
    assert children_running(config) == []
    assert os.environ.get("GATEWAY_SESSION") == "off"  # nothing else could have stopped it


async def test_a_caller_that_gives_up_leaves_the_start_to_the_next_caller(workspace):
    _, log = nimlet_package(workspace, "alpha", tools=["alpha_tool"])
    await warm(workspace)
    _, marker = behave(workspace, before_register="slow", start_delay=1.0)
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        async with anyio.create_task_group() as group:
            group.start_soon(gateway.call_tool, "alpha_tool", {"do": "echo"})
            await spawned(marker)
            group.cancel_scope.cancel()
        result = await gateway.call_tool("alpha_tool", {"do": "echo"})
    assert not result.is_error
    assert starts(log) == 2  # the warm-up, then the one start both callers shared


class _GivesUpAfterSpawn:
    """A pipe transport whose caller gives up right after the child is spawned: the start's
    next checkpoint is where the cancellation lands."""

    def __init__(self, scope: anyio.CancelScope) -> None:
        self.scope, self.pid = scope, 0

    async def connect(
        self, plan: LaunchPlan, config: TransportConfig, diagnostics: Diagnostics, tasks: TaskGroup
    ) -> Channel:
        channel = await PipeTransport().connect(plan, config, diagnostics, tasks)
        self.pid = channel.pid
        self.scope.cancel()
        return channel


async def test_a_start_given_up_right_after_the_spawn_leaves_no_child_running(tmp_path: Path):
    # The gap was between the spawn and the start's guarded wait: a cancellation at the
    # reader's start left the child running and its log open (an in-process server closed
    # while its packages warmed: "subprocess … is still running" at a later test's GC).
    with anyio.CancelScope() as scope:
        transport = _GivesUpAfterSpawn(scope)
        plan = LaunchPlan(
            name="sleeper", command=[sys.executable, "-c", "import time; time.sleep(3600)"],
            cwd=tmp_path, env={"PATH": "/usr/bin:/bin"}, log_path=tmp_path / "sleeper.log",
            response_timeout=3600,
        )  # fmt: skip
        process = ExtensionProcess(
            plan, StandaloneHost(), transport, TransportConfig(1024 * 1024, 0.3, 0.5)
        )
        async with anyio.create_task_group() as tasks:
            await process.start(tasks, InitializeMessage(workspace=str(tmp_path), session_id="s"))
    assert scope.cancelled_caught and transport.pid
    with pytest.raises(ProcessLookupError):
        os.kill(transport.pid, 0)  # stopped and reaped
