"""The protocol's stdio, kept away from package code.

Stdout is the protocol: one stray ``print`` from a package would corrupt it (upstream
nanobot's Node sidecar dies on the first non-JSON line). So the real stdout and stdin are
duplicated to private descriptors first, fd 1 is pointed at stderr (the host drains stderr
into a log file) and fd 0 at /dev/null. A package's ``print``, ``os.write(1, …)`` or child
process output then lands in the log, and its ``input()`` sees end of file instead of
stealing protocol lines. The duplicates are non-inheritable, so processes a package starts
never hold the protocol pipes open.
"""

from __future__ import annotations

import json
import os
import sys

# For type checkers only: importing typing would cost the sidecar ≈7 ms at start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Channel", "log"]

_READ_SIZE = 1 << 16


def log(message: str) -> None:
    """The sidecar's own log line (stderr, drained by the host into the package's log)."""
    try:
        sys.stderr.write(f"[nanobot-sidecar] {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


class Channel:
    """Blocking line I/O on the private protocol descriptors.

    Before ``register`` the sidecar reads ``initialize`` with plain blocking reads (no event
    loop has been imported yet); ``take_buffer`` hands whatever was read past that line to
    the event-loop reader in ``_server``.
    """

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self.read_fd = read_fd
        self.write_fd = write_fd
        self._buffer = b""

    @classmethod
    def take_stdio(cls) -> Channel:
        read_fd, write_fd = os.dup(0), os.dup(1)
        os.dup2(2, 1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        sys.stdout = sys.stderr
        return cls(read_fd, write_fd)

    def read_message(self) -> dict[str, Any] | None:
        """The next JSON object line; None at end of input. Bad lines are logged, skipped."""
        while True:
            line = self._read_line()
            if line is None:
                return None
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError as error:
                log(f"ignored a line that is not JSON: {error}")
                continue
            if isinstance(message, dict):
                return message
            log("ignored a line that is not a JSON object")

    def _read_line(self) -> bytes | None:
        while b"\n" not in self._buffer:
            chunk = os.read(self.read_fd, _READ_SIZE)
            if not chunk:
                rest, self._buffer = self._buffer, b""
                return rest or None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def take_buffer(self) -> bytes:
        rest, self._buffer = self._buffer, b""
        return rest

    def send(self, message: dict[str, Any]) -> None:
        """Write one line. Blocking: the host drains stdout continuously."""
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), default=str)
        try:
            data = (text + "\n").encode()
        except UnicodeEncodeError:  # a lone surrogate: escaped JSON is still valid UTF-8
            data = (json.dumps(message, separators=(",", ":"), default=str) + "\n").encode()
        view = memoryview(data)
        while view:
            written = os.write(self.write_fd, view)
            view = view[written:]
