"""One long-running extension process and its JSON-lines conversation.

A reader task resolves per-request waiters (no polling); each request has its own cancel
scope whose deadline is frozen while the extension waits for the user on a ``ui_request``;
teardown is shielded and every wait in it is bounded.
"""

from __future__ import annotations

import contextlib
import json
import math
import signal
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import anyio
from anyio.abc import Process, TaskGroup, TaskStatus

from . import _codes
from ._framing import DEFAULT_LINE_CAP, OversizedLine, read_lines
from ._pipes import ChildPipes, PipeClosed
from ._spawn import group_alive, kill_group, signal_group
from .diagnostics import Diagnostics, Severity
from .protocol import (
    CancelMessage,
    HostMessage,
    HostRequest,
    HostResponse,
    InitializeMessage,
    MessageError,
    RegisterMessage,
    ResponseMessage,
    ShutdownMessage,
    UiRequest,
    UiResponse,
    UpdateMessage,
    encode,
    parse_extension_message,
)

__all__ = [
    "ExtensionError",
    "ExtensionExited",
    "ExtensionProcess",
    "ExtensionStartError",
    "ExtensionTimeout",
    "LaunchPlan",
    "RegisterInvalid",
    "TransportConfig",
    "UiAnswer",
]


class ExtensionError(Exception):
    """A request to an extension failed; ``str()`` is the user-facing reason."""


class ExtensionTimeout(ExtensionError):
    def __init__(self) -> None:
        super().__init__("extension response timed out")


class ExtensionExited(ExtensionError):
    pass


class ExtensionStartError(ExtensionError):
    """Startup failed before a valid register (missing program, crash, timeout)."""


class RegisterInvalid(ExtensionStartError):
    """The first line arrived but was not a valid register."""


@dataclass(frozen=True, slots=True)
class UiAnswer:
    answer: str = ""
    cancelled: bool = False


UiHandler = Callable[["ExtensionProcess", UiRequest], Awaitable[UiAnswer]]
HostHandler = Callable[["ExtensionProcess", "HostRequest"], Awaitable["HostResponse"]]
EffectsHandler = Callable[["ExtensionProcess", ResponseMessage | UpdateMessage], None]


@dataclass(frozen=True, slots=True)
class TransportConfig:
    line_cap: int = DEFAULT_LINE_CAP
    shutdown_grace: float = 0.5
    """Seconds between closing stdin and SIGTERM to the group."""
    term_grace: float = 1.0
    """Seconds between SIGTERM and SIGKILL."""


@dataclass(frozen=True, slots=True)
class LaunchPlan:
    """What to start: produced from a manifest (or an adapter), consumed here."""

    name: str
    command: list[str]
    cwd: Path
    env: dict[str, str]
    log_path: Path
    response_timeout: float | None = 30.0
    origin: Path | None = None
    start_timeout: float | None = None
    """Seconds to wait for ``register``; None: ``response_timeout`` (nimlet's rule)."""
    restart: bool = False
    """Restart with backoff after an unexpected exit (sidecars of installed packages);
    plain nimlet extensions keep nimlet's fail-open rule and stay down until a reload."""


@dataclass(slots=True)
class _Pending:
    done: anyio.Event = field(default_factory=anyio.Event)
    response: ResponseMessage | None = None
    error: ExtensionError | None = None
    scope: anyio.CancelScope | None = None
    remaining: float | None = None  # set while the deadline is paused


def _open_log(path: Path) -> IO[bytes]:
    path.parent.mkdir(parents=True, exist_ok=True)
    return open(path, "ab")  # the process owns it and closes it in aclose


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
    ) -> None:
        self.plan = plan
        self._on_exit = on_exit
        self._host_handler = host_handler
        self.name = plan.name
        self.registration: RegisterMessage | None = None
        self._next_id = next_id
        self._diagnostics = diagnostics
        self._on_effects = on_effects
        self._ui_handler = ui_handler
        self._config = config or TransportConfig()
        self._process: Process | None = None
        self._log: IO[bytes] | None = None
        self._pending: dict[str, _Pending] = {}
        self._answered: deque[str] = deque(maxlen=4096)
        self._answered_set: set[str] = set()
        self._abandoned: set[str] = set()
        self._ui_open = 0
        self._pipes: ChildPipes | None = None
        self._registered = anyio.Event()
        self._register_error: str | None = None
        self._first_line_seen = False
        self._reader_done = anyio.Event()
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
        self._log = await anyio.to_thread.run_sync(_open_log, self.plan.log_path)
        self._pipes = ChildPipes()
        try:
            self._process = await anyio.open_process(
                self.plan.command,
                stdin=self._pipes.child_stdin,
                stdout=self._pipes.child_stdout,
                stderr=self._log,
                cwd=self.plan.cwd,
                env=self.plan.env,
                start_new_session=True,
            )
        except OSError as error:
            self._pipes.close()
            self._log.close()
            self._log = None
            raise ExtensionStartError(f"cannot start {self.plan.command[0]}: {error}") from None
        self._pipes.after_spawn()
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
            self._scope.cancel()
            self._fail_pending(ExtensionExited(f"extension {self.name} was shut down"))
            if process is not None:
                with anyio.move_on_after(2):
                    await process.aclose()
            if self._pipes is not None:
                self._pipes.close()
            if self._log is not None:
                self._log.close()
                self._log = None
            self._alive = False

    async def _stop(self, process: Process) -> None:
        if process.returncode is None:
            with anyio.move_on_after(0.5):
                with contextlib.suppress(ExtensionError):
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
            signal_group(process.pid, signal.SIGTERM)
            with anyio.move_on_after(self._config.term_grace):
                await process.wait()
        # Grandchildren may outlive the leader and hold our pipes open: kill the whole group.
        if process.returncode is None or group_alive(process.pid):
            kill_group(process.pid)
            with anyio.move_on_after(2):
                await process.wait()

    # ------------------------------------------------------------------ requests

    async def request(self, build: Callable[[str], HostMessage]) -> ResponseMessage:
        """Send a request built around a fresh id and wait for its response."""
        if not self._alive or self._closing:
            raise ExtensionExited(f"extension {self.name} is not running")
        request_id = self._next_id()
        pending = _Pending()
        self._pending[request_id] = pending
        try:
            await self._write(build(request_id))
            with anyio.CancelScope() as scope:
                pending.scope = scope
                if self.timeout is not None:
                    if self._ui_open:
                        pending.remaining = self.timeout
                        scope.deadline = math.inf
                    else:
                        scope.deadline = anyio.current_time() + self.timeout
                await pending.done.wait()
            if not pending.done.is_set():
                self._abandoned.add(request_id)
                await self._send_cancel(request_id)
                self._diagnostics.add(
                    _codes.EXTENSION_TIMEOUT(
                        f"extension {self.name}: extension response timed out", package=self.name
                    )
                )
                raise ExtensionTimeout()
        except anyio.get_cancelled_exc_class():
            self._abandoned.add(request_id)
            with anyio.CancelScope(shield=True):
                await self._send_cancel(request_id)
            raise
        finally:
            del self._pending[request_id]
        if pending.error is not None:
            raise pending.error
        assert pending.response is not None
        return pending.response

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

    def _fail_pending(self, error: ExtensionError) -> None:
        for pending in self._pending.values():
            if not pending.done.is_set():
                pending.error = error
                pending.done.set()

    # ------------------------------------------------------------------ ui deadline pause

    def _ui_begin(self) -> None:
        self._ui_open += 1
        if self._ui_open == 1:
            now = anyio.current_time()
            for pending in self._pending.values():
                if pending.scope is not None and pending.scope.deadline != math.inf:
                    pending.remaining = max(0.0, pending.scope.deadline - now)
                    pending.scope.deadline = math.inf

    def _ui_end(self) -> None:
        self._ui_open -= 1
        if self._ui_open == 0:
            now = anyio.current_time()
            for pending in self._pending.values():
                if pending.scope is not None and pending.remaining is not None:
                    pending.scope.deadline = now + pending.remaining
                    pending.remaining = None

    # ------------------------------------------------------------------ reader

    async def _run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        assert self._pipes is not None
        with self._scope:
            async with anyio.create_task_group() as tasks:
                task_status.started()
                async for line in read_lines(self._pipes.chunks(), self._config.line_cap):
                    self._handle_line(line, tasks)
                tasks.cancel_scope.cancel()
        self._reader_done.set()
        await self._on_eof()

    async def _on_eof(self) -> None:
        process = self._process
        if not self._registered.is_set():
            code = await self._exit_code(process)
            self._register_error = self._register_error or f"exited before register ({code})"
            self._registered.set()
            return
        if self._closing or self.registration is None:
            return
        self._alive = False
        code = await self._exit_code(process)
        message = f"extension {self.name} exited unexpectedly ({code})"
        self._fail_pending(ExtensionExited(message))
        self._diagnostics.add(_codes.EXTENSION_EXITED(message, package=self.name))
        if self._on_exit is not None:
            self._on_exit(self)

    @staticmethod
    async def _exit_code(process: Process | None) -> str:
        if process is None:
            return "not started"
        with anyio.CancelScope(shield=True), anyio.move_on_after(0.5):
            await process.wait()
        if process.returncode is None:
            return "stdout closed"
        if process.returncode < 0:
            return f"killed by signal {-process.returncode}"
        return f"exit code {process.returncode}"

    def _handle_line(self, line: bytes | OversizedLine, tasks: TaskGroup) -> None:
        if isinstance(line, bytes) and not line.strip():
            return
        message = self._decode(line)
        if not self._registered.is_set():
            self._accept_register(message, line)
            return
        if message is None:
            return
        if isinstance(message, ResponseMessage):
            self._resolve(message)
        elif isinstance(message, UpdateMessage):
            self._on_effects(self, message)
        elif isinstance(message, UiRequest):
            tasks.start_soon(self._answer_ui, message)
        elif isinstance(message, HostRequest):
            if self._host_handler is None:
                # Not offered (plain nimlet extension): the same as before the addition.
                self._warn(_codes.PROTOCOL_INVALID_MESSAGE, "unknown message type 'host_request'")
            else:
                tasks.start_soon(self._answer_host, message)
        else:  # a second register
            self._warn(_codes.PROTOCOL_INVALID_MESSAGE, "register sent twice; ignored")

    def _accept_register(self, message: Any, line: bytes | OversizedLine) -> None:
        self._first_line_seen = True
        if isinstance(message, RegisterMessage):
            self.registration = message
        elif self._register_error is None:
            self._register_error = "first line was not a register message"
        self._registered.set()
        if self.registration is None:
            # Strict: an invalid register fails startup; start() stops the process.
            self._scope.cancel()

    def _decode(self, line: bytes | OversizedLine) -> Any:
        """Parse one line; on failure record why and return None."""
        registering = not self._registered.is_set()
        if isinstance(line, OversizedLine):
            return self._reject(
                _codes.PROTOCOL_LINE_TOO_LONG,
                f"line of {line.size} bytes exceeds the {self._config.line_cap}-byte cap",
                registering,
            )
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as error:
            return self._reject(
                _codes.PROTOCOL_INVALID_UTF8,
                f"stdout line is not UTF-8 ({error.reason})",
                registering,
            )
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            excerpt = text[:80] + ("…" if len(text) > 80 else "")
            return self._reject(
                _codes.PROTOCOL_INVALID_JSON,
                f"stdout line is not JSON ({error.msg}): {excerpt}",
                registering,
            )
        try:
            return parse_extension_message(data)
        except MessageError as error:
            if not registering:
                self._fail_malformed_reply(data, str(error))
            code = _codes.REGISTER_INVALID if registering else _codes.PROTOCOL_INVALID_MESSAGE
            return self._reject(code, str(error), registering)

    def _fail_malformed_reply(self, data: Any, problem: str) -> None:
        """A malformed reply to a known request fails that request now, not at its timeout."""
        if not isinstance(data, dict) or data.get("type") != "response":
            return
        request_id = data.get("id")
        pending = self._pending.get(request_id) if isinstance(request_id, str) else None
        if pending is not None and not pending.done.is_set():
            pending.error = ExtensionError(f"malformed reply from {self.name}: {problem}")
            pending.done.set()

    def _reject(self, code: Any, reason: str, registering: bool) -> None:
        if registering:
            self._register_error = reason
            return None
        self._warn(code, reason)
        return None

    def _warn(self, code: Any, reason: str) -> None:
        self._diagnostics.add(code(f"extension {self.name}: {reason}", package=self.name))

    def _resolve(self, response: ResponseMessage) -> None:
        pending = self._pending.get(response.id)
        if pending is None or pending.done.is_set():
            if response.id in self._answered_set or (pending and pending.done.is_set()):
                self._warn(
                    _codes.PROTOCOL_DUPLICATE_REPLY, f"second reply to request {response.id}"
                )
            elif response.id in self._abandoned:
                self._abandoned.discard(response.id)
                self._warn(_codes.PROTOCOL_LATE_REPLY, f"late reply to request {response.id}")
            elif not response.id:
                # The spec's own guard example answers every line, initialize included.
                self._diagnostics.add(
                    _codes.PROTOCOL_UNKNOWN_ID(
                        f"extension {self.name}: reply without a request id ignored",
                        package=self.name,
                        severity=Severity.INFO,
                    )
                )
            else:
                self._warn(
                    _codes.PROTOCOL_UNKNOWN_ID, f"reply to unknown request id {response.id!r}"
                )
            return
        self._on_effects(self, response)
        self._remember_answered(response.id)
        pending.response = response
        pending.done.set()

    def _remember_answered(self, request_id: str) -> None:
        if len(self._answered) == self._answered.maxlen:
            self._answered_set.discard(self._answered[0])
        self._answered.append(request_id)
        self._answered_set.add(request_id)

    async def _answer_host(self, request: HostRequest) -> None:
        """``host.request`` (negotiated): time spent here does not count against the
        extension's pending deadlines, as for a user question."""
        assert self._host_handler is not None
        self._ui_begin()
        try:
            reply = await self._host_handler(self, request)
        except Exception as error:  # a host bug must not kill the reader
            reply = HostResponse(id=request.id, error=f"{request.method}: {error}")
        finally:
            self._ui_end()
        with contextlib.suppress(ExtensionError):
            await self._write(reply)

    async def _answer_ui(self, request: UiRequest) -> None:
        if request.method != "question":
            self._warn(
                _codes.UI_UNSUPPORTED_METHOD,
                f"ui_request method {request.method!r} is not supported; answered cancelled",
            )
            answer = UiAnswer(cancelled=True)
        else:
            self._ui_begin()
            try:
                answer = await self._ui_handler(self, request)
            finally:
                self._ui_end()
        with contextlib.suppress(ExtensionError):
            await self._write(
                UiResponse(id=request.id, answer=answer.answer, cancelled=answer.cancelled)
            )
