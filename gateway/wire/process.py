"""One long-running extension process and its JSON-lines conversation.

An ``ExtensionProcess`` owns its pipes, a ``MessageReader`` (the reading half) and the
``Output`` task that feeds it, its ``PendingRequests`` (waiters and deadlines) and its
``Answers`` (to what it asks the host). On asyncio the reader stays registered with the loop
and resolves each caller's waiter straight from the pipe's readiness callback; on other
backends a reader task does the same. Deadlines pause while any extension waits for the user
or the host (``gateway.wire._pause``). The child itself is spawned and stopped by
``gateway.wire._lifetime``; teardown is shielded and every wait in it is bounded.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable

import anyio
from anyio.abc import TaskGroup, TaskStatus

from gateway.base import Diagnostics
from gateway.runtime import Child
from gateway.sandbox import explain_exit
from gateway.wire import _codes
from gateway.wire._errors import (
    ExtensionError,
    ExtensionExited,
    ExtensionStartError,
    ExtensionTimeout,
    RegisterInvalid,
    SandboxRefused,
    UiAnswer,
)
from gateway.wire._lifetime import describe_exit, spawn, stop
from gateway.wire._logfiles import RotatingLog
from gateway.wire._loop import fast_path
from gateway.wire._output import Output
from gateway.wire._pause import DeadlinePause
from gateway.wire._pending import PendingRequests
from gateway.wire._pipes import ChildPipes, PipeClosed
from gateway.wire._plan import LaunchPlan, TransportConfig
from gateway.wire._questions import Answers
from gateway.wire._reader import MessageReader
from gateway.wire.protocol import (
    CancelMessage,
    HostMessage,
    HostRequest,
    HostResponse,
    InitializeMessage,
    RegisterMessage,
    ResponseMessage,
    ToolUpdate,
    UiRequest,
    UpdateMessage,
    encode,
)

__all__ = [
    "ExtensionError",
    "ExtensionExited",
    "ExtensionProcess",
    "ExtensionStartError",
    "ExtensionTimeout",
    "LaunchPlan",
    "RegisterInvalid",
    "SandboxRefused",
    "TransportConfig",
    "UiAnswer",
    "UiHandler",
]


UiHandler = Callable[["ExtensionProcess", UiRequest], Awaitable[UiAnswer]]
HostHandler = Callable[["ExtensionProcess", HostRequest], Awaitable[HostResponse]]
EffectsHandler = Callable[["ExtensionProcess", ResponseMessage | UpdateMessage], None]
ToolUpdateHandler = Callable[["ExtensionProcess", ToolUpdate], None]


async def _unknown_host_request(process: ExtensionProcess, request: HostRequest) -> HostResponse:
    return HostResponse(id=request.id, error=f"unknown host request: {request.method}")


class ExtensionProcess:
    """A started extension. Create with ``start``; close with ``aclose``."""

    def __init__(
        self,
        plan: LaunchPlan,
        *,
        next_id: Callable[[], str],
        diagnostics: Diagnostics,
        on_effects: EffectsHandler,
        ui_handler: UiHandler,
        config: TransportConfig | None = None,
        on_exit: Callable[[ExtensionProcess], None] | None = None,
        host_handler: HostHandler | None = None,
        on_tool_update: ToolUpdateHandler | None = None,
        pause: DeadlinePause | None = None,
    ) -> None:
        self.plan = plan
        self.name = plan.name
        self.registration: RegisterMessage | None = None
        self._next_id = next_id
        self._diagnostics = diagnostics
        self._on_effects = on_effects
        self._on_tool_update = on_tool_update
        self._pause = pause or DeadlinePause()
        serve_host = host_handler or _unknown_host_request
        self._answers = Answers(
            plan.name,
            diagnostics,
            self._pause,
            lambda request: ui_handler(self, request),
            lambda request: serve_host(self, request),
            self._write,
        )
        self._on_exit = on_exit
        self._config = config or TransportConfig()
        self._process: Child | None = None
        self._log: RotatingLog | None = None
        self._pipes: ChildPipes | None = None
        self._pending = PendingRequests(plan.response_timeout, None)
        self._output: Output | None = None
        self._registered = anyio.Event()
        self._register_error: str | None = None
        self._first_line_seen = False
        self._closing = False
        self._alive = False

    # ------------------------------------------------------------------ lifecycle

    @property
    def alive(self) -> bool:
        return self._alive

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    @property
    def timeout(self) -> float | None:
        return self.plan.response_timeout

    @property
    def _start_limit(self) -> float | None:
        start = self.plan.start_timeout
        return start if start is not None else self.timeout

    async def start(self, task_group: TaskGroup, initialize: InitializeMessage) -> RegisterMessage:
        """Spawn, send ``initialize``, wait for a valid ``register`` (or raise and clean up)."""
        self._log = await anyio.to_thread.run_sync(RotatingLog, self.plan.log_path)
        self._pipes = ChildPipes()
        try:
            self._process, stderr = spawn(self.plan, self._config, self._pipes)
        except ExtensionError:
            self._log.close()
            self._log = None
            raise
        fast = fast_path()
        self._pending = PendingRequests(self.plan.response_timeout, fast)
        self._pause.join(self._pending)
        on_tool_update = self._on_tool_update
        reader = MessageReader(
            self.name,
            line_cap=self._config.line_cap,
            diagnostics=self._diagnostics,
            pending=self._pending,
            on_effects=lambda message: self._on_effects(self, message),
            on_question=self._ask_user,
            on_host_request=self._serve_host,
            on_register=self._accept_register,
            on_tool_update=(
                (lambda update: on_tool_update(self, update)) if on_tool_update else None
            ),
        )
        self._output = Output(
            self.plan,
            self._process,
            self._pipes,
            stderr,
            self._log,
            reader,
            fast,
            self._diagnostics,
        )
        self._alive = True
        await task_group.start(self._run)
        try:
            with contextlib.suppress(ExtensionExited):
                # A child that died at once breaks the pipe; the reader then sees end of
                # file and records the better reason (its exit code).
                await self._write(initialize)
            with anyio.fail_after(self._start_limit):
                await self._registered.wait()
        except TimeoutError:
            await self.aclose()
            raise ExtensionStartError(
                f"no register within {self._start_limit:g}s (extension response timed out)"
            ) from None
        if self.registration is None:
            await self.aclose()
            if self._first_line_seen:
                raise RegisterInvalid(self._register_error or "invalid register")
            raise ExtensionStartError(self._register_error or "exited before register")
        return self.registration

    async def aclose(self) -> None:
        """shutdown → close stdin → grace → SIGTERM group → SIGKILL group; shielded, bounded."""
        with anyio.CancelScope(shield=True):
            self._closing = True
            process = self._process
            if process is not None:
                assert self._pipes is not None
                await stop(
                    process,
                    self.name,
                    write=self._write,
                    pipes=self._pipes,
                    config=self._config,
                    diagnostics=self._diagnostics,
                )
                if self._output is not None:
                    await self._output.stderr_drained()
            if self._output is not None:
                self._output.cancel()
                self._output.stop_watching()
            self._pause.leave(self._pending)
            self._pending.fail_all(ExtensionExited(f"extension {self.name} was shut down"))
            if process is not None:
                await process.reap()
            if self._pipes is not None:
                self._pipes.close()
            if self._log is not None:
                self._log.close()
                self._log = None
            self._alive = False

    # ------------------------------------------------------------------ reading

    async def _run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Read until end of file, or until reading is cancelled (shutdown, a bad
        register); then tell how it ended."""
        assert self._output is not None
        await self._output.run(task_status=task_status)
        await self._on_eof()

    def _accept_register(self, message: RegisterMessage | None, problem: str | None) -> None:
        self._first_line_seen = True
        self.registration = message
        self._register_error = problem
        self._registered.set()
        if message is None:
            # Strict: an invalid register fails startup; start() stops the process.
            assert self._output is not None
            self._output.cancel()

    async def _on_eof(self) -> None:
        process = self._process
        if not self._registered.is_set():
            code = await describe_exit(process)
            self._register_error = self._register_error or f"exited before register ({code})"
            self._registered.set()
            self._note_limits(process)
            return
        if self._closing or self.registration is None:
            return
        self._alive = False
        code = await describe_exit(process)
        message = f"extension {self.name} exited unexpectedly ({code})"
        self._pending.fail_all(ExtensionExited(message))
        self._diagnostics.add(_codes.EXTENSION_EXITED(message, package=self.name))
        self._note_limits(process)
        if self._on_exit is not None:
            self._on_exit(self)

    def _note_limits(self, process: Child | None) -> None:
        """Which of its resource limits it ran into, if any (``sandbox.limit_exceeded``)."""
        policy = self.plan.sandbox
        if policy is not None and process is not None:
            for found in explain_exit(process.returncode, policy, self.name):
                self._diagnostics.add(found)

    # ------------------------------------------------------------------ requests

    async def request(self, build: Callable[[str], HostMessage]) -> ResponseMessage:
        """Send a request built around a fresh id and wait for its response."""
        if not self._alive or self._closing:
            raise ExtensionExited(f"extension {self.name} is not running")
        request_id = self._next_id()
        pending = self._pending.open(request_id)
        abandoned = False
        try:
            await self._write(build(request_id))
            return await self._pending.wait(pending)
        except TimeoutError:
            abandoned = True
            await self._send_cancel(request_id)
            self._diagnostics.add(
                _codes.EXTENSION_TIMEOUT(
                    f"extension {self.name}: extension response timed out", package=self.name
                )
            )
            raise ExtensionTimeout() from None
        except anyio.get_cancelled_exc_class():
            abandoned = True
            with anyio.CancelScope(shield=True):
                await self._send_cancel(request_id)
            raise
        finally:
            self._pending.close(pending, abandoned=abandoned)

    async def _send_cancel(self, request_id: str) -> None:
        with anyio.move_on_after(1), contextlib.suppress(ExtensionError):
            await self._write(CancelMessage(id=request_id))

    async def _write(self, message: HostMessage) -> None:
        if self._pipes is None:
            raise ExtensionExited(f"extension {self.name} is not running")
        try:
            await self._pipes.send(encode(message))
        except PipeClosed:
            raise ExtensionExited(f"extension {self.name} closed its input") from None

    # ------------------------------------------------------------------ questions

    def _ask_user(self, request: UiRequest) -> None:
        if self._output is not None:
            self._output.start_soon(self._answers.ui, request)

    def _serve_host(self, request: HostRequest) -> None:
        if self._output is not None:
            self._output.start_soon(self._answers.host, request)

    @property
    def pause(self) -> DeadlinePause:
        return self._pause
