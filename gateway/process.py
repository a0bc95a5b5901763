"""One long-running extension process and its JSON-lines conversation.

A reader task resolves per-request waiters (no polling); each request has its own cancel
scope whose deadline is frozen while the extension waits for the user on a ``ui_request``;
teardown is shielded and every wait in it is bounded.
"""

from __future__ import annotations

import contextlib
import math
import signal
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import anyio
from anyio.abc import Process, TaskGroup

from . import _codes
from ._errors import (
    ExtensionError,
    ExtensionExited,
    ExtensionStartError,
    ExtensionTimeout,
    RegisterInvalid,
    UiAnswer,
)
from ._framing import DEFAULT_LINE_CAP
from ._pipes import ChildPipes, PipeClosed
from ._reader import _Reader
from ._spawn import group_alive, kill_group, signal_group
from .diagnostics import Diagnostics
from .features import EXTENSION_FEATURES
from .protocol import (
    CancelMessage,
    HostMessage,
    HostRequest,
    HostResponse,
    InitializeMessage,
    RegisterMessage,
    ResponseMessage,
    ShutdownMessage,
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
    "TransportConfig",
    "UiAnswer",
    "UiHandler",
]


UiHandler = Callable[["ExtensionProcess", UiRequest], Awaitable[UiAnswer]]
HostHandler = Callable[["ExtensionProcess", HostRequest], Awaitable[HostResponse]]
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
    """Restart with backoff after an unexpected exit (the runtimes adapters plan); plain
    nimlet extensions keep nimlet's fail-open rule and stay down until a reload."""
    features: frozenset[str] = EXTENSION_FEATURES
    """The negotiated additions ``initialize`` announces to it (``gateway.features``); the
    host reads an extra, or answers a ``host_request``, only when it was announced."""


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


class ExtensionProcess(_Reader):
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
