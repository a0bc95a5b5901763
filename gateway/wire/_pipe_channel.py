"""The child's pipes as a ``Channel``: a spawned (and confined) child, its stdin and stdout
framed in JSON lines under the line cap, its stderr drained into its rotated log (and read
for the sandbox's refusals), and its own exit watched — a grandchild still holding stdout
must not keep the gateway believing it runs. On asyncio stdout is read straight from the
loop's readiness callback (``gateway.wire._loop``); elsewhere by a reader task.

Stopping is ``gateway.wire._lifetime``'s: shutdown, end of input, SIGTERM, SIGKILL, each
step bounded."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable

import anyio
from anyio.abc import TaskGroup

from gateway.base import Diagnostics
from gateway.runtime import Child
from gateway.sandbox import explain_exit
from gateway.wire import _codes
from gateway.wire._channel import ChannelClosed, LineSink, PeerEnd
from gateway.wire._errors import ExtensionError
from gateway.wire._framing import LineFramer
from gateway.wire._lifetime import describe_exit, spawn, stop
from gateway.wire._logfiles import RotatingLog
from gateway.wire._loop import fast_path
from gateway.wire._pipes import ChildPipes, PipeClosed
from gateway.wire._plan import LaunchPlan, TransportConfig
from gateway.wire._stderr import denial_reporter, drain_stderr

__all__ = ["DRAIN_AFTER_EXIT", "PipeChannel", "PipeTransport"]

DRAIN_AFTER_EXIT = 0.5
"""Seconds its output is still read after the process exits (or stdout ends)."""


class PipeTransport:
    """Every extension a child process, spoken to over its stdin and stdout."""

    async def connect(
        self,
        plan: LaunchPlan,
        config: TransportConfig,
        diagnostics: Diagnostics,
        tasks: TaskGroup,
    ) -> PipeChannel:
        # Shielded: a log opened by the thread after its caller gave up would never be closed
        # (the caller's next checkpoint, in ExtensionProcess.start, stops what was started).
        with anyio.CancelScope(shield=True):
            log = await anyio.to_thread.run_sync(RotatingLog, plan.log_path)
        pipes = ChildPipes()
        try:
            child, stderr = spawn(plan, config, pipes, diagnostics.add)
        except ExtensionError:
            log.close()
            raise
        return PipeChannel(plan, config, diagnostics, child, pipes, stderr, log)


class PipeChannel:
    """One started child. Made by ``PipeTransport.connect``."""

    def __init__(
        self,
        plan: LaunchPlan,
        config: TransportConfig,
        diagnostics: Diagnostics,
        child: Child,
        pipes: ChildPipes,
        stderr: int,
        log: RotatingLog,
    ) -> None:
        self._plan = plan
        self._config = config
        self._diagnostics = diagnostics
        self._child = child
        self._pipes = pipes
        self._stderr = stderr
        self._log: RotatingLog | None = log
        self._framer = LineFramer(config.line_cap)
        self._reading = anyio.CancelScope()
        self._unwatch: Callable[[], None] | None = None
        self._eof = anyio.Event()
        self._output_done = anyio.Event()
        self._stderr_done = anyio.Event()

    @property
    def pid(self) -> int:
        return self._child.pid

    async def send(self, line: bytes) -> None:
        try:
            await self._pipes.send(line)
        except PipeClosed:
            raise ChannelClosed from None

    # ------------------------------------------------------------------ reading

    async def receive(self, on_line: LineSink) -> None:
        framer = self._framer
        with self._reading:
            async with anyio.create_task_group() as work:
                work.start_soon(self._drain_stderr)
                work.start_soon(self._watch_exit, work.cancel_scope)
                fast = fast_path()
                try:
                    if fast is not None:
                        self._unwatch = fast.watch(
                            self._pipes.stdout_fd, lambda: self._on_readable(on_line)
                        )
                        await self._eof.wait()
                    else:
                        async for chunk in self._pipes.chunks():
                            for line in framer.feed(chunk):
                                on_line(line)
                finally:
                    self._stop_watching()
                for line in framer.finish():
                    on_line(line)
                self._output_done.set()
                # What it wrote to stderr last (a traceback) still goes to its log.
                with anyio.move_on_after(DRAIN_AFTER_EXIT):
                    await self._stderr_done.wait()
                work.cancel_scope.cancel()

    def _on_readable(self, on_line: LineSink) -> None:
        """asyncio's readiness callback: read what is there and route it, now."""
        chunk = self._pipes.read_ready()
        if chunk is None:
            return  # nothing after all
        if not chunk:
            self._stop_watching()
            self._eof.set()
            return
        try:
            for line in self._framer.feed(chunk):
                on_line(line)
        except Exception as error:  # a host bug must neither spin the loop nor go unseen
            self._stop_watching()
            name = self._plan.name
            self._diagnostics.add(
                _codes.PROTOCOL_INVALID_MESSAGE(
                    f"extension {name}: reading its output failed: {error!r}", package=name
                )
            )
            self._eof.set()

    def _stop_watching(self) -> None:
        if self._unwatch is not None:
            unwatch, self._unwatch = self._unwatch, None
            unwatch()

    async def _drain_stderr(self) -> None:
        plan = self._plan
        on_line = denial_reporter(plan.sandbox, plan.name, plan.cwd, self._diagnostics)
        fd, self._stderr = self._stderr, -1
        try:
            if fd >= 0 and self._log is not None:
                await drain_stderr(fd, self._log, on_line)
        finally:
            self._stderr_done.set()

    async def _watch_exit(self, reading: anyio.CancelScope) -> None:
        """The process's own exit, not the end of its output. After the exit, what it
        wrote is read for a moment longer, then reading stops."""
        await self._child.wait()
        with anyio.move_on_after(DRAIN_AFTER_EXIT):
            await self._output_done.wait()
        if not self._output_done.is_set():
            self._stop_watching()
            reading.cancel()

    # ------------------------------------------------------------------ the end

    async def close(self, shutdown: Callable[[], Awaitable[None]]) -> None:
        name = self._plan.name
        await stop(
            self._child,
            name,
            shutdown=shutdown,
            pipes=self._pipes,
            config=self._config,
            diagnostics=self._diagnostics,
        )
        # Its last words on stderr in its log, waited for briefly (a grandchild may hold
        # the pipe).
        with anyio.move_on_after(DRAIN_AFTER_EXIT):
            await self._stderr_done.wait()
        self._reading.cancel()
        self._stop_watching()
        await self._child.reap()
        if self._stderr >= 0:  # never read: the channel closed before it was received
            os.close(self._stderr)
            self._stderr = -1
        self._pipes.close()
        if self._log is not None:
            self._log.close()
            self._log = None

    async def ended(self) -> PeerEnd:
        description = await describe_exit(self._child)
        policy = self._plan.sandbox
        if policy is None:
            return PeerEnd(description)
        found = explain_exit(self._child.returncode, policy, self._plan.name)
        return PeerEnd(description, tuple(found))
