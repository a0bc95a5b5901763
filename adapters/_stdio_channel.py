"""The protocol's stdio for the Python sidecars (the nanobot sidecar, the plugin host), kept
away from everything else they run.

Stdout is the protocol: one stray ``print`` from a package, or a child process's output,
would corrupt it. So the real stdout and stdin are duplicated to private descriptors first,
fd 1 is pointed at stderr (the host drains stderr into the package's log) and fd 0 at
/dev/null. A package's ``print``, ``os.write(1, …)`` or child output then lands in the log,
and its ``input()`` sees end of file instead of stealing protocol lines. The duplicates are
non-inheritable, so processes a sidecar starts never hold the protocol pipes open.

Before its event loop runs a sidecar reads blocking (``read_message``: its ``initialize``);
the plugin host then waits for each message in its loop (``receive``), as the nanobot
sidecar's asyncio reader does: a blocking read in a worker thread cost every message a
trip to that thread and back (the thread woken, then the loop), each event a Claude Code
hook plugin answers included (docs/performance/home.md).
"""

from __future__ import annotations

import json
import os
import sys
import threading

# For type checkers only: importing typing would cost a sidecar ≈7 ms at start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["Channel", "logger"]

_READ_SIZE = 1 << 16
_LINE_CAP = 16 * 1024 * 1024


def logger(tag: str) -> Callable[[str], None]:
    """A function writing ``[tag] message`` lines to the sidecar's log (stderr)."""

    def log(message: str) -> None:
        try:
            sys.stderr.write(f"[{tag}] {message}\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass

    return log


class Channel:
    """Blocking line I/O on the private protocol descriptors; ``send`` is safe from any
    thread. ``log`` says what was wrong with a line that was skipped."""

    def __init__(self, read_fd: int, write_fd: int, log: Callable[[str], None]) -> None:
        self.read_fd, self.write_fd, self._log = read_fd, write_fd, log
        self._buffer = b""
        self._lock = threading.Lock()
        self._in_loop = False

    @classmethod
    def take_stdio(cls, log: Callable[[str], None]) -> Channel:
        read_fd, write_fd = os.dup(0), os.dup(1)
        os.dup2(2, 1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        sys.stdout = sys.stderr
        return cls(read_fd, write_fd, log)

    def read_message(self) -> dict[str, Any] | None:
        """The next JSON object line; None at end of input. Bad lines are logged, skipped.
        Blocking: not once ``receive`` has been used."""
        while True:
            line = self._read_line()
            if line is None:
                return None
            message = self._message(line)
            if message is not None:
                return message

    async def receive(self) -> dict[str, Any] | None:
        """``read_message``, waiting in the running (anyio) event loop for the input to be
        readable rather than blocking a thread; the descriptor is non-blocking from then on."""
        import anyio

        if not self._in_loop:
            os.set_blocking(self.read_fd, False)
            self._in_loop = True
        while True:
            line = self._next_line()
            if line is None:
                try:
                    more = self._fill()
                except BlockingIOError:
                    await anyio.wait_readable(self.read_fd)
                    continue
                if more:
                    continue
                line, self._buffer = self._buffer, b""
                if not line:
                    return None
            message = self._message(line)
            if message is not None:
                return message

    def _message(self, line: bytes) -> dict[str, Any] | None:
        """The JSON object ``line`` holds, or None (a blank line; a bad one, logged)."""
        if not line.strip():
            return None
        try:
            message = json.loads(line)
        except ValueError as error:
            self._log(f"ignored a line that is not JSON: {error}")
            return None
        if isinstance(message, dict):
            return message
        self._log("ignored a line that is not a JSON object")
        return None

    def _read_line(self) -> bytes | None:
        while (line := self._next_line()) is None:
            if not self._fill():
                rest, self._buffer = self._buffer, b""
                return rest or None
        return line

    def _next_line(self) -> bytes | None:
        """The next whole line already read, or None."""
        line, newline, rest = self._buffer.partition(b"\n")
        if not newline:
            return None
        self._buffer = rest
        return line

    def _fill(self) -> bool:
        """Read what there is; False at end of input. Raises ``BlockingIOError`` when a
        non-blocking descriptor has nothing yet."""
        try:
            chunk = os.read(self.read_fd, _READ_SIZE)
        except BlockingIOError:
            raise
        except OSError:
            chunk = b""
        if not chunk:
            return False
        self._buffer += chunk
        if len(self._buffer) > _LINE_CAP and b"\n" not in self._buffer:
            self._log("dropped an input line over the 16 MiB cap")
            self._buffer = b""
        return True

    def take_buffer(self) -> bytes:
        """What was read past the last line returned (for an event-loop reader that takes
        over the descriptor)."""
        rest, self._buffer = self._buffer, b""
        return rest

    def send(self, message: dict[str, Any]) -> None:
        """Write one line. Blocking: the host drains stdout continuously."""
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), default=str)
        try:
            data = (text + "\n").encode()
        except UnicodeEncodeError:  # a lone surrogate: escaped JSON is still valid UTF-8
            data = (json.dumps(message, separators=(",", ":"), default=str) + "\n").encode()
        with self._lock:
            view = memoryview(data)
            while view:
                written = os.write(self.write_fd, view)
                view = view[written:]
