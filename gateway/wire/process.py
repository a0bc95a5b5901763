"""One long-running extension process and its JSON-lines conversation.

An ``ExtensionProcess`` owns its pipes, a ``MessageReader`` (the reading half) and its
``PendingRequests`` (waiters and deadlines). On asyncio the reader stays registered with
the loop and resolves each caller's waiter straight from the pipe's readiness callback; on
other backends a reader task does the same. Deadlines pause while any extension waits for
the user or the host (``gateway.wire._pause``). Teardown is shielded and every wait in it is
bounded.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Awaitable, Callable

import anyio
from anyio.abc import TaskGroup, TaskStatus

from gateway.base import Diagnostics, _codes
from gateway.runtime import Child, start_child
from gateway.sandbox import (
    SandboxUnavailable,
    explain_denial,
    explain_exit,
    family,
    kill_family,
)
from gateway.wire._errors import (
    ExtensionError,
    ExtensionExited,
    ExtensionStartError,
    ExtensionTimeout,
    RegisterInvalid,
    SandboxRefused,
    UiAnswer,
)
from gateway.wire._logfiles import RotatingLog
from gateway.wire._loop import FastPath, fast_path
from gateway.wire._pause import DeadlinePause
from gateway.wire._pending import PendingRequests
from gateway.wire._pipes import ChildPipes, PipeClosed
from gateway.wire._plan import LaunchPlan, TransportConfig
from gateway.wire._reader import MessageReader
from gateway.wire._stderr import drain_stderr
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
    UiResponse,
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

_DRAIN_AFTER_EXIT = 0.5
"""Seconds its output is still read after the process exits (or stdout ends)."""

UI_METHODS = frozenset({"question", "confirm", "input", "password"})
"""The ``ui_request`` methods a host answers (current nimlet; the older document has only
``question``)."""
CONFIRM_OPTIONS = ["Yes", "No"]
"""What a ``confirm`` is shown with (nimlet asks it as a question with these options)."""


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
        self._ui_handler = ui_handler
        self._host_handler = host_handler or _unknown_host_request
        self._on_tool_update = on_tool_update
        self._pause = pause or DeadlinePause()
        self._on_exit = on_exit
        self._config = config or TransportConfig()
        self._process: Child | None = None
        self._log: RotatingLog | None = None
        self._stderr = -1
        self._output_done = anyio.Event()
        self._stderr_done = anyio.Event()
        self._pipes: ChildPipes | None = None
        self._fast: FastPath | None = None
        self._pending = PendingRequests(plan.response_timeout, None)
        self._reader: MessageReader | None = None
        self._work: TaskGroup | None = None
        self._unwatch: Callable[[], None] | None = None
        self._eof = anyio.Event()
        self._registered = anyio.Event()
        self._register_error: str | None = None
        self._first_line_seen = False
        self._scope = anyio.CancelScope()
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
        stderr, child_stderr = os.pipe()
        os.set_blocking(stderr, False)
        try:
            self._process = start_child(
                self.plan.command,
                policy=self.plan.sandbox,
                require_sandbox=self._config.require_sandbox,
                stdin=self._pipes.child_stdin,
                stdout=self._pipes.child_stdout,
                stderr=child_stderr,
                cwd=self.plan.cwd,
                env=self.plan.env,
            )
        except (OSError, SandboxUnavailable) as error:
            self._pipes.close()
            os.close(stderr)
            self._log.close()
            self._log = None
            if isinstance(error, SandboxUnavailable):
                raise SandboxRefused(str(error)) from None
            raise ExtensionStartError(f"cannot start {self.plan.command[0]}: {error}") from None
        finally:
            os.close(child_stderr)
        self._stderr = stderr
        self._pipes.after_spawn()
        self._fast = fast_path()
        self._pending = PendingRequests(self.plan.response_timeout, self._fast)
        self._pause.join(self._pending)
        on_tool_update = self._on_tool_update
        self._reader = MessageReader(
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
                await self._stop(process)
                # Its last words on stderr still reach its log (bounded: a grandchild may
                # hold the pipe).
                with anyio.move_on_after(_DRAIN_AFTER_EXIT):
                    await self._stderr_done.wait()
            self._scope.cancel()
            self._stop_watching()
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

    async def _stop(self, process: Child) -> None:
        # Its descendants as they are now, the ones that left its group with setsid()
        # included: once it exits they are re-parented and cannot be found from it.
        escaped = await anyio.to_thread.run_sync(family, process.pid)
        try:
            await self._stop_group(process)
        finally:
            await anyio.to_thread.run_sync(kill_family, escaped)

    async def _stop_group(self, process: Child) -> None:
        if process.returncode is None:
            with anyio.move_on_after(0.5), contextlib.suppress(ExtensionError):
                await self._write(ShutdownMessage())
            assert self._pipes is not None
            self._pipes.close_stdin()
            with anyio.move_on_after(self._config.shutdown_grace):
                await process.wait()
        if process.returncode is None:
            self._diagnostics.add(
                _codes.SHUTDOWN_FORCED(
                    f"extension {self.name} ignored shutdown; sent SIGTERM", package=self.name
                )
            )
            process.signal_group(signal.SIGTERM)
            with anyio.move_on_after(self._config.term_grace):
                await process.wait()
        # Grandchildren may outlive the leader and hold our pipes open: kill the whole group.
        if process.returncode is None or process.group_alive():
            process.kill_group()
            with anyio.move_on_after(2):
                await process.wait()

    # ------------------------------------------------------------------ reading

    async def _run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Read until end of file (or until the scope is cancelled: shutdown, a bad
        register); questions and host requests are answered in this task's group."""
        assert self._pipes is not None and self._reader is not None
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
                self._stop_watching()
                self._reader.finish()
                self._output_done.set()
                # What it wrote to stderr last (a traceback) still goes to its log.
                with anyio.move_on_after(_DRAIN_AFTER_EXIT):
                    await self._stderr_done.wait()
                work.cancel_scope.cancel()
        self._stop_watching()
        await self._on_eof()

    def _on_readable(self) -> None:
        """asyncio's readiness callback: read what is there and route it, now."""
        assert self._pipes is not None and self._reader is not None
        chunk = self._pipes.read_ready()
        if chunk is None:
            return  # nothing after all
        if not chunk:
            self._stop_watching()
            self._eof.set()
            return
        try:
            self._reader.feed(chunk)
        except Exception as error:  # a host bug must neither spin the loop nor go unseen
            self._stop_watching()
            self._diagnostics.add(
                _codes.PROTOCOL_INVALID_MESSAGE(
                    f"extension {self.name}: reading its output failed: {error!r}",
                    package=self.name,
                )
            )
            self._eof.set()

    def _stop_watching(self) -> None:
        if self._unwatch is not None:
            unwatch, self._unwatch = self._unwatch, None
            unwatch()

    def _accept_register(self, message: RegisterMessage | None, problem: str | None) -> None:
        self._first_line_seen = True
        self.registration = message
        self._register_error = problem
        self._registered.set()
        if message is None:
            # Strict: an invalid register fails startup; start() stops the process.
            self._scope.cancel()

    async def _on_eof(self) -> None:
        process = self._process
        if not self._registered.is_set():
            code = await self._exit_code(process)
            self._register_error = self._register_error or f"exited before register ({code})"
            self._registered.set()
            self._note_limits(process)
            return
        if self._closing or self.registration is None:
            return
        self._alive = False
        code = await self._exit_code(process)
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

    async def _drain_stderr(self) -> None:
        assert self._log is not None
        policy = self.plan.sandbox
        on_line = None
        if policy is not None:
            explained: set[str | None] = set()

            def on_line(line: str) -> None:
                found = explain_denial(line, policy, self.name, self.plan.cwd)
                if found is not None and found.hint not in explained:
                    explained.add(found.hint)  # once per missing grant
                    self._diagnostics.add(found)

        fd, self._stderr = self._stderr, -1
        try:
            await drain_stderr(fd, self._log, on_line)
        finally:
            self._stderr_done.set()

    async def _watch_exit(self, reading: anyio.CancelScope) -> None:
        """The process's own exit, not the end of its output: a grandchild still holding
        its stdout must not keep the gateway believing it runs. After the exit, what it
        wrote is read for a moment longer, then reading stops."""
        assert self._process is not None
        await self._process.wait()
        with anyio.move_on_after(_DRAIN_AFTER_EXIT):
            await self._output_done.wait()
        if not self._output_done.is_set():
            self._stop_watching()
            reading.cancel()

    @staticmethod
    async def _exit_code(process: Child | None) -> str:
        if process is None:
            return "not started"
        with anyio.CancelScope(shield=True), anyio.move_on_after(0.5):
            await process.wait()
        if process.returncode is None:
            return "stdout closed"
        if process.returncode < 0:
            return f"killed by signal {-process.returncode}"
        return f"exit code {process.returncode}"

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
        if self._work is not None:
            self._work.start_soon(self._answer_ui, request)

    def _serve_host(self, request: HostRequest) -> None:
        if self._work is not None:
            self._work.start_soon(self._answer_host, request)

    @property
    def pause(self) -> DeadlinePause:
        return self._pause

    async def _answer_ui(self, request: UiRequest) -> None:
        """question / confirm / input / password; anything else is answered cancelled
        (upstream leaves it unanswered, which would hang the extension)."""
        if request.method not in UI_METHODS:
            self._diagnostics.add(
                _codes.UI_UNSUPPORTED_METHOD(
                    f"extension {self.name}: ui_request method {request.method!r} is not "
                    "supported; answered cancelled",
                    package=self.name,
                )
            )
            answer = UiAnswer(cancelled=True)
        else:
            if request.method == "confirm":
                request = request.model_copy(update={"options": list(CONFIRM_OPTIONS)})
            with self._pause.hold():
                answer = await self._ui_handler(self, request)
        with contextlib.suppress(ExtensionError):
            await self._write(ui_response(request, answer))

    async def _answer_host(self, request: HostRequest) -> None:
        """Time spent here does not count against any pending deadline, as for a user
        question."""
        with self._pause.hold():
            try:
                reply = await self._host_handler(self, request)
            except Exception as error:  # a host bug must not kill the reader
                reply = HostResponse(id=request.id, error=f"{request.method}: {error}")
        with contextlib.suppress(ExtensionError):
            await self._write(reply)


def ui_response(request: UiRequest, answer: UiAnswer) -> UiResponse:
    """The reply to ``request``: an empty answer is cancelled (nimlet's rule); ``confirm``
    answers ``confirmed`` and no ``answer``."""
    if request.method == "confirm":
        if answer.confirmed is not None:
            confirmed, cancelled = answer.confirmed, answer.cancelled
        else:
            cancelled = answer.cancelled or not answer.answer
            confirmed = answer.answer.strip().lower() in ("yes", "y")
        return UiResponse(
            id=request.id, answer=None, confirmed=confirmed and not cancelled, cancelled=cancelled
        )
    cancelled = answer.cancelled or not answer.answer
    return UiResponse(id=request.id, answer="" if cancelled else answer.answer, cancelled=cancelled)
