"""One long-running extension and its JSON-lines conversation.

An ``ExtensionProcess`` owns its ``Channel`` (``gateway.wire._channel``: the child's pipes,
or an in-memory pair), a ``MessageReader`` (the reading half) fed from it, its
``PendingRequests`` (waiters and deadlines) and its ``Answers`` (to what it asks the host).
What it needs from the host that runs it is one object, a ``ProcessHost``. Deadlines pause
while any extension waits for the user or the host (``gateway.wire._pause``); teardown is
shielded and every wait in it is bounded.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Protocol

import anyio
from anyio.abc import TaskGroup, TaskStatus

from gateway.base import Diagnostics
from gateway.wire import _codes
from gateway.wire._channel import Channel, ChannelClosed, Transport
from gateway.wire._errors import (
    ExtensionError,
    ExtensionExited,
    ExtensionStartError,
    ExtensionTimeout,
    RegisterInvalid,
    SandboxRefused,
    UiAnswer,
)
from gateway.wire._loop import fast_path
from gateway.wire._pause import DeadlinePause
from gateway.wire._pending import PendingRequests
from gateway.wire._pipe_channel import PipeTransport
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
    ShutdownMessage,
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
    "ProcessHost",
    "RegisterInvalid",
    "SandboxRefused",
    "TransportConfig",
    "UiAnswer",
    "UiHandler",
]


UiHandler = Callable[["ExtensionProcess", UiRequest], Awaitable[UiAnswer]]


class ProcessHost(Protocol):
    """What an ``ExtensionProcess`` asks of the host that runs it."""

    @property
    def diagnostics(self) -> Diagnostics:
        """Where everything that goes wrong with the process is reported."""
        ...

    @property
    def pause(self) -> DeadlinePause:
        """The pause every open question puts on every process's deadlines."""
        ...

    def next_id(self) -> str:
        """A request id, unique across the host's processes."""
        ...

    def on_effects(
        self, process: ExtensionProcess, message: ResponseMessage | UpdateMessage
    ) -> None:
        """The side effects of a reply or an update (applied before the caller resumes)."""
        ...

    def on_tool_update(self, process: ExtensionProcess, update: ToolUpdate) -> None:
        """Output of one of its calls in flight."""
        ...

    async def ask_user(self, process: ExtensionProcess, request: UiRequest) -> UiAnswer:
        """A ``ui_request``: the user's answer (no deadline runs meanwhile)."""
        ...

    async def answer(self, process: ExtensionProcess, request: HostRequest) -> HostResponse:
        """A ``host_request``: the host's reply (no deadline runs meanwhile)."""
        ...

    def on_exit(self, process: ExtensionProcess) -> None:
        """It ended on its own, after it registered (its pending calls already failed)."""
        ...


class ExtensionProcess:
    """A started extension. Create with ``start``; close with ``aclose``. ``transport``
    reaches it (default: a child process over its pipes), with ``config``'s line cap and
    shutdown graces."""

    def __init__(
        self,
        plan: LaunchPlan,
        host: ProcessHost,
        transport: Transport | None = None,
        config: TransportConfig | None = None,
    ) -> None:
        self.plan = plan
        self.name = plan.name
        self.registration: RegisterMessage | None = None
        self._host = host
        self._transport = transport or PipeTransport()
        self._config = config or TransportConfig()
        self._diagnostics = host.diagnostics
        self._pause = host.pause
        self._answers = Answers(
            plan.name,
            self._diagnostics,
            self._pause,
            lambda request: host.ask_user(self, request),
            lambda request: host.answer(self, request),
            self._write,
        )
        self._channel: Channel | None = None
        self._reader: MessageReader
        self._pending = PendingRequests(plan.response_timeout, None)
        self._reading = anyio.CancelScope()
        self._work: TaskGroup | None = None
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
        """The child's process id (None before it started, or for an extension in
        memory)."""
        return self._channel.pid if self._channel else None

    @property
    def timeout(self) -> float | None:
        return self.plan.response_timeout

    @property
    def _start_limit(self) -> float | None:
        start = self.plan.start_timeout
        return start if start is not None else self.timeout

    async def start(self, task_group: TaskGroup, initialize: InitializeMessage) -> RegisterMessage:
        """Start it, send ``initialize``, wait for a valid ``register`` (or raise and clean
        up)."""
        self._channel = await self._transport.connect(
            self.plan, self._config, self._diagnostics, task_group
        )
        self._pending = PendingRequests(self.plan.response_timeout, fast_path())
        self._pause.join(self._pending)
        host = self._host
        self._reader = MessageReader(
            self.name,
            diagnostics=self._diagnostics,
            pending=self._pending,
            on_effects=lambda message: host.on_effects(self, message),
            on_question=self._ask_user,
            on_host_request=self._serve_host,
            on_register=self._accept_register,
            on_tool_update=lambda update: host.on_tool_update(self, update),
        )
        self._alive = True
        try:
            # Inside: a caller that gives up here, with the child already spawned, must not
            # leave it running (nor its log open).
            await task_group.start(self._run)
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
        except anyio.get_cancelled_exc_class():
            await self.aclose()  # abandoned half-started: stopped, never left running
            raise
        if self.registration is None:
            await self.aclose()
            if self._first_line_seen:
                raise RegisterInvalid(self._register_error or "invalid register")
            raise ExtensionStartError(self._register_error or "exited before register")
        return self.registration

    async def aclose(self) -> None:
        """shutdown → end of input → grace → force (SIGTERM, SIGKILL to a child's group);
        shielded, bounded."""
        with anyio.CancelScope(shield=True):
            self._closing = True
            if self._channel is not None:
                await self._channel.close(self._shutdown)
            self._reading.cancel()
            self._pause.leave(self._pending)
            self._pending.fail_all(ExtensionExited(f"extension {self.name} was shut down"))
            self._alive = False

    async def _shutdown(self) -> None:
        await self._write(ShutdownMessage())

    # ------------------------------------------------------------------ reading

    async def _run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Read until its output ends, or until reading is cancelled (shutdown, a bad
        register); what its messages start (answers) runs beside and ends with it. Then
        tell how it ended."""
        assert self._channel is not None
        with self._reading:
            async with anyio.create_task_group() as work:
                self._work = work
                task_status.started()
                await self._channel.receive(self._reader.line)
                work.cancel_scope.cancel()
        self._work = None
        await self._on_eof()

    def _accept_register(self, message: RegisterMessage | None, problem: str | None) -> None:
        self._first_line_seen = True
        self.registration = message
        self._register_error = problem
        self._registered.set()
        if message is None:
            # Strict: an invalid register fails startup; start() stops the process.
            self._reading.cancel()

    async def _on_eof(self) -> None:
        assert self._channel is not None
        if not self._registered.is_set():
            end = await self._channel.ended()
            self._register_error = (
                self._register_error or f"exited before register ({end.description})"
            )
            self._registered.set()
            self._diagnostics.extend(list(end.findings))
            return
        if self._closing or self.registration is None:
            return
        self._alive = False
        end = await self._channel.ended()
        message = f"extension {self.name} exited unexpectedly ({end.description})"
        self._pending.fail_all(ExtensionExited(message))
        self._diagnostics.add(_codes.EXTENSION_EXITED(message, package=self.name))
        self._diagnostics.extend(list(end.findings))
        self._host.on_exit(self)

    # ------------------------------------------------------------------ requests

    async def request(self, build: Callable[[str], HostMessage]) -> ResponseMessage:
        """Send a request built around a fresh id and wait for its response."""
        if not self._alive or self._closing:
            raise ExtensionExited(f"extension {self.name} is not running")
        request_id = self._host.next_id()
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
        if self._channel is None:
            raise ExtensionExited(f"extension {self.name} is not running")
        try:
            await self._channel.send(encode(message))
        except ChannelClosed:
            raise ExtensionExited(f"extension {self.name} closed its input") from None

    # ------------------------------------------------------------------ questions

    def _ask_user(self, request: UiRequest) -> None:
        if self._work is not None:
            self._work.start_soon(self._answers.ui, request)

    def _serve_host(self, request: HostRequest) -> None:
        if self._work is not None:
            self._work.start_soon(self._answers.host, request)

    @property
    def pause(self) -> DeadlinePause:
        return self._pause
