"""A runtime driven over its real pipes with raw JSON lines, the way the gateway drives it.

The driver is strict, so that every contract test also checks the framing rules: each line
the runtime writes must be one valid protocol message (the gateway's own parser decides),
``register`` must come first, and every ``response`` must answer a request that was sent,
is still owed a reply and was not cancelled — once. A violation fails the test at once,
naming the line and showing the runtime's stderr (its log).

Blocking on purpose: two threads pump stdout and stderr, so a test reads what the runtime
wrote with a bounded wait and never deadlocks on a full pipe.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from gateway.wire import (
    CancelMessage,
    CommandRequest,
    EventRequest,
    HostMessage,
    InitializeMessage,
    MessageError,
    ShutdownMessage,
    ToolRequest,
    encode,
    parse_extension_message,
)
from gateway.wire.features import announcement

__all__ = ["PLAIN_V1_TYPES", "Launch", "Wire", "wait_until"]

START_TIMEOUT = 60.0
"""Seconds for ``register``: a Pi sidecar compiles its TypeScript on a cold cache."""
REPLY_TIMEOUT = 30.0
"""Seconds for one reply; the slow behaviours run a minute, so an answer they hold up is
told apart from a prompt one without measuring time (half a minute either side: a loaded
machine may starve a runtime for seconds)."""
PLAIN_V1_TYPES = frozenset({"register", "response", "update", "ui_request"})
"""What a nimlet v1 extension may write; ``host_request`` exists only when negotiated."""


@dataclass(frozen=True)
class Launch:
    """How the gateway would start the runtime: command, environment and working folder."""

    command: list[str]
    env: dict[str, str]
    cwd: Path


@dataclass
class _Owed:
    """Request ids sent and the state of each: owed a reply, answered, or cancelled."""

    waiting: set[str] = field(default_factory=set)
    answered: dict[str, dict[str, Any]] = field(default_factory=dict)
    cancelled: set[str] = field(default_factory=set)


class Wire:
    """One runtime process on its stdio. ``features`` is what ``initialize`` announces;
    None sends a plain nimlet ``initialize`` (negotiation off)."""

    def __init__(self, launch: Launch, features: frozenset[str] | None) -> None:
        self.features = features
        self.process = subprocess.Popen(
            launch.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=launch.env,
            cwd=launch.cwd,
            start_new_session=True,  # its own process group, as the gateway starts it
        )
        self.messages: list[dict[str, Any]] = []
        """Every message the runtime wrote, in order."""
        self.exit_code: int | None = None
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._stderr: list[bytes] = []
        self._owed = _Owed()
        self._eof = False
        self._threads = [
            threading.Thread(target=self._pump, daemon=True),
            threading.Thread(target=self._drain, daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        try:
            self.register = self._handshake(launch.cwd)
        except BaseException:
            self.kill()
            raise

    def _handshake(self, workspace: Path) -> dict[str, Any]:
        gateway = announcement(self.features) if self.features is not None else None
        self.send(InitializeMessage(workspace=str(workspace), session_id="s1", gateway=gateway))
        first = self._next(START_TIMEOUT)
        if first is None or first["type"] != "register":
            self._fail(f"the first line must be register, got {first!r}")
        return first

    # ------------------------------------------------------------------ pipes

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def _drain(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self._stderr.append(line)

    @property
    def log(self) -> str:
        """What the runtime wrote to stderr so far."""
        return b"".join(self._stderr).decode(errors="replace")

    def full_log(self, timeout: float = REPLY_TIMEOUT) -> str:
        """All it wrote to stderr: waits for the end of it (after :meth:`finish`)."""
        self._threads[1].join(timeout)
        if self._threads[1].is_alive():
            self._fail(f"stderr still open {timeout:g}s after the end")
        return self.log

    def _fail(self, problem: str) -> NoReturn:
        raise AssertionError(f"{problem}\n--- runtime log ---\n{self.log[-4000:]}")

    # ------------------------------------------------------------------ writing

    def send(self, message: HostMessage | dict[str, Any]) -> None:
        """Write one message: a gateway model, or a raw dict for what the gateway never
        sends (unknown message types)."""
        self.write(encode(message) if not isinstance(message, dict) else _line(message))

    def write(self, data: bytes) -> None:
        """Raw bytes: several lines in one write put them in the runtime's pipe together."""
        assert self.process.stdin is not None
        for line in data.splitlines():
            self._note_sent(json.loads(line))
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def _note_sent(self, message: dict[str, Any]) -> None:
        kind, request_id = message.get("type"), message.get("id")
        if kind in ("tool", "command", "event"):
            self._owed.waiting.add(str(request_id))
        elif kind == "cancel" and request_id in self._owed.waiting:
            self._owed.waiting.discard(request_id)
            self._owed.cancelled.add(request_id)

    def tool(self, request_id: str, name: str, arguments: dict[str, Any]) -> None:
        self.send(ToolRequest(id=request_id, name=name, arguments=arguments))

    def command(self, request_id: str, name: str, arguments: str = "") -> None:
        self.send(CommandRequest(id=request_id, name=name, arguments=arguments))

    def event(self, request_id: str, event: str, payload: dict[str, Any]) -> None:
        self.send(EventRequest(id=request_id, event=event, payload=payload))

    def cancel(self, request_id: str) -> None:
        self.send(CancelMessage(id=request_id))

    def shutdown(self) -> None:
        self.send(ShutdownMessage())

    def close_stdin(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()

    def call(self, request_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A tool call and its reply."""
        self.tool(request_id, name, arguments)
        return self.reply(request_id)

    # ------------------------------------------------------------------ reading

    def _next(self, timeout: float) -> dict[str, Any] | None:
        """The next message (checked), or None at end of output."""
        if self._eof:
            return None
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            self._fail(f"nothing from the runtime within {timeout:g}s")
        if line is None:
            self._eof = True
            return None
        try:
            data: dict[str, Any] = json.loads(line)
            parse_extension_message(data)
        except (ValueError, MessageError) as error:
            self._fail(f"a line that is not a protocol message ({error}): {line[:200]!r}")
        self.messages.append(data)
        if data["type"] == "response":
            self._check_reply(data)
        return data

    def _check_reply(self, reply: dict[str, Any]) -> None:
        request_id, owed = reply["id"], self._owed
        if request_id in owed.cancelled:
            self._fail(f"a reply to the cancelled request {request_id!r}: {reply}")
        if request_id in owed.answered:
            self._fail(f"a second reply to {request_id!r}: {reply}")
        if request_id not in owed.waiting:
            self._fail(f"a reply to {request_id!r}, which was never asked: {reply}")
        owed.waiting.discard(request_id)
        owed.answered[request_id] = reply

    def reply(self, request_id: str, timeout: float = REPLY_TIMEOUT) -> dict[str, Any]:
        """The reply to ``request_id``; replies to other requests may come first."""
        deadline = time.monotonic() + timeout
        while request_id not in self._owed.answered:
            if self._next(max(0.0, deadline - time.monotonic())) is None:
                self._fail(f"the runtime closed its output before answering {request_id!r}")
        return self._owed.answered[request_id]

    def answered(self, request_id: str) -> bool:
        """Whether a reply to ``request_id`` was read so far."""
        return request_id in self._owed.answered

    def finish(self, timeout: float = REPLY_TIMEOUT) -> int:
        """Read (and check) everything up to end of output; then the exit status."""
        deadline = time.monotonic() + timeout
        while self._next(max(0.0, deadline - time.monotonic())) is not None:
            pass
        try:
            code = self.process.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self._fail(f"output closed but the process did not exit within {timeout:g}s")
        self.exit_code = code
        return code

    def kill(self) -> None:
        """Teardown: the whole process group, whatever state it is in."""
        if self.process.poll() is None or self._group_alive():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        for thread in self._threads:
            thread.join(5)
        for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
            if pipe is not None:
                # stdin's buffer may not flush into a dead process
                with contextlib.suppress(OSError):
                    pipe.close()

    def _group_alive(self) -> bool:
        try:
            os.killpg(self.process.pid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True


def wait_until(done: Callable[[], bool], timeout: float = REPLY_TIMEOUT) -> bool:
    """For effects outside the wire (a marker file): check every 20 ms, up to ``timeout``."""
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _line(message: dict[str, Any]) -> bytes:
    return (json.dumps(message) + "\n").encode()
