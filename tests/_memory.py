"""The transport the tests open their gateways with: extensions written by a workspace's
``add_extension(language="memory")`` (and ``add_current``) run in memory as tasks of the
test (``gateway.wire.MemoryTransport``); everything else — the real scripted extensions,
the sidecars, installed packages — as child processes over their pipes."""

from __future__ import annotations

from pathlib import Path

from gateway.wire import LaunchPlan, MemoryTransport, PipeTransport, Program
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


TRANSPORT = MemoryTransport(program_for, otherwise=PipeTransport())
