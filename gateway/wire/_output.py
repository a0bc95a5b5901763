"""Everything a running child sends back, read in one task: its stdout fed to its
``MessageReader`` (straight from asyncio's readiness callback, or by a reader task on other
backends), its stderr drained into its log, and its own exit watched. What the messages
start (answering a question or a host request) runs in that task's group, so it ends with
the reading."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import anyio
from anyio.abc import TaskGroup, TaskStatus

from gateway.base import Diagnostics
from gateway.runtime import Child
from gateway.wire import _codes
from gateway.wire._logfiles import RotatingLog
from gateway.wire._loop import FastPath
from gateway.wire._pipes import ChildPipes
from gateway.wire._plan import LaunchPlan
from gateway.wire._reader import MessageReader
from gateway.wire._stderr import denial_reporter, drain_stderr

__all__ = ["DRAIN_AFTER_EXIT", "Output"]

DRAIN_AFTER_EXIT = 0.5
"""Seconds its output is still read after the process exits (or stdout ends)."""

_Arg = TypeVar("_Arg")


class Output:
    """Reads one started child until end of file or ``cancel``; owns the cancel scope and
    task group of that reading, the readiness watch, and the stderr fd it drains."""

    def __init__(
        self,
        plan: LaunchPlan,
        child: Child,
        pipes: ChildPipes,
        stderr: int,
        log: RotatingLog,
        reader: MessageReader,
        fast: FastPath | None,
        diagnostics: Diagnostics,
    ) -> None:
        self._plan = plan
        self._child = child
        self._pipes = pipes
        self._stderr = stderr
        self._log = log
        self._reader = reader
        self._fast = fast
        self._diagnostics = diagnostics
        self._scope = anyio.CancelScope()
        self._work: TaskGroup | None = None
        self._unwatch: Callable[[], None] | None = None
        self._eof = anyio.Event()
        self._output_done = anyio.Event()
        self._stderr_done = anyio.Event()

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Read until end of file (or until ``cancel``: shutdown, a bad register);
        started once the task group for answers exists."""
        with self._scope:
            async with anyio.create_task_group() as work:
                self._work = work
                task_status.started()
                work.start_soon(self._drain_stderr)
                work.start_soon(self._watch_exit, work.cancel_scope)
                if self._fast is not None:
                    self._unwatch = self._fast.watch(self._pipes.stdout_fd, self._on_readable)
                    await self._eof.wait()
                else:
                    async for chunk in self._pipes.chunks():
                        self._reader.feed(chunk)
                self.stop_watching()
                self._reader.finish()
                self._output_done.set()
                # What it wrote to stderr last (a traceback) still goes to its log.
                with anyio.move_on_after(DRAIN_AFTER_EXIT):
                    await self._stderr_done.wait()
                work.cancel_scope.cancel()
        self.stop_watching()

    def start_soon(self, work: Callable[[_Arg], Coroutine[Any, Any, None]], arg: _Arg) -> None:
        """Run ``work(arg)`` beside the reading (nothing once reading has not started)."""
        if self._work is not None:
            self._work.start_soon(work, arg)

    def cancel(self) -> None:
        self._scope.cancel()

    def stop_watching(self) -> None:
        if self._unwatch is not None:
            unwatch, self._unwatch = self._unwatch, None
            unwatch()

    async def stderr_drained(self) -> None:
        """Its last words on stderr in its log, waited for briefly (a grandchild may hold
        the pipe)."""
        with anyio.move_on_after(DRAIN_AFTER_EXIT):
            await self._stderr_done.wait()

    def _on_readable(self) -> None:
        """asyncio's readiness callback: read what is there and route it, now."""
        chunk = self._pipes.read_ready()
        if chunk is None:
            return  # nothing after all
        if not chunk:
            self.stop_watching()
            self._eof.set()
            return
        try:
            self._reader.feed(chunk)
        except Exception as error:  # a host bug must neither spin the loop nor go unseen
            self.stop_watching()
            name = self._plan.name
            self._diagnostics.add(
                _codes.PROTOCOL_INVALID_MESSAGE(
                    f"extension {name}: reading its output failed: {error!r}", package=name
                )
            )
            self._eof.set()

    async def _drain_stderr(self) -> None:
        plan = self._plan
        on_line = denial_reporter(plan.sandbox, plan.name, plan.cwd, self._diagnostics)
        fd, self._stderr = self._stderr, -1
        try:
            await drain_stderr(fd, self._log, on_line)
        finally:
            self._stderr_done.set()

    async def _watch_exit(self, reading: anyio.CancelScope) -> None:
        """The process's own exit, not the end of its output: a grandchild still holding
        its stdout must not keep the gateway believing it runs. After the exit, what it
        wrote is read for a moment longer, then reading stops."""
        await self._child.wait()
        with anyio.move_on_after(DRAIN_AFTER_EXIT):
            await self._output_done.wait()
        if not self._output_done.is_set():
            self.stop_watching()
            reading.cancel()
