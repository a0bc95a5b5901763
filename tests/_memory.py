"""The transport the tests open their gateways with: extensions written by a workspace's
``add_extension(language="memory")`` (and ``add_current``) run in memory as tasks of the
test (``gateway.wire.MemoryTransport``); everything else — the real scripted extensions,
the sidecars, installed packages — as child processes over their pipes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from anyio.abc import TaskGroup

from gateway.base import Diagnostics
from gateway.wire import (
    Channel,
    LaunchPlan,
    LineSink,
    MemoryTransport,
    PeerEnd,
    PipeTransport,
    Program,
    TransportConfig,
)
from tests._clock import REAL_WORK
from tests.fixtures.memory_scripted import scripted
from tests.nimlet_current.fixtures.memory_current import current

__all__ = ["MEMORY_PROGRAMS", "TRANSPORT", "program_for"]

MEMORY_PROGRAMS: dict[str, Program] = {
    "memory_scripted.py": scripted,
    "memory_current.py": current,
}
"""The programs by the file their ``extension.json`` command names."""


def program_for(plan: LaunchPlan) -> Program | None:
    for argument in plan.command[:3]:
        program = MEMORY_PROGRAMS.get(Path(argument).name)
        if program is not None:
            return program
    return None


class _Counted:
    """A child's channel, counted in ``REAL_WORK`` while it is open: a virtual clock does
    not jump while a real process works."""

    def __init__(self, channel: Channel) -> None:
        self._channel = channel
        self._open = True
        REAL_WORK.count += 1

    @property
    def pid(self) -> int | None:
        return self._channel.pid

    async def send(self, line: bytes) -> None:
        await self._channel.send(line)

    async def receive(self, on_line: LineSink) -> None:
        await self._channel.receive(on_line)

    async def close(self, shutdown: Callable[[], Awaitable[None]]) -> None:
        try:
            await self._channel.close(shutdown)
        finally:
            if self._open:
                self._open = False
                REAL_WORK.count -= 1

    async def ended(self) -> PeerEnd:
        return await self._channel.ended()


class _CountedPipes:
    async def connect(
        self, plan: LaunchPlan, config: TransportConfig, diagnostics: Diagnostics, tasks: TaskGroup
    ) -> Channel:
        return _Counted(await PipeTransport().connect(plan, config, diagnostics, tasks))


TRANSPORT = MemoryTransport(program_for, otherwise=_CountedPipes())
