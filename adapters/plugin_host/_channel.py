"""The protocol's stdio, kept away from the MCP servers and everything else.

Stdout is the protocol, so the real stdin and stdout are duplicated to private,
non-inheritable descriptors first; fd 1 then points at stderr (drained by the gateway into
the package's log) and fd 0 at /dev/null. The servers this process starts get their own
pipes from the MCP client and write their stderr to ours: into the log, never the channel.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from typing import Any

__all__ = ["Channel", "log"]

_READ_SIZE = 1 << 16
_LINE_CAP = 16 * 1024 * 1024


def log(message: str) -> None:
    """A line in the package's log (stderr)."""
    try:
        sys.stderr.write(f"[plugin-host] {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


class Channel:
    """Blocking line I/O on the private descriptors; ``send`` is safe from any thread."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self.read_fd, self.write_fd = read_fd, write_fd
        self._buffer = b""
        self._lock = threading.Lock()

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
            try:
                chunk = os.read(self.read_fd, _READ_SIZE)
            except OSError:
                chunk = b""
            if not chunk:
                rest, self._buffer = self._buffer, b""
                return rest or None
            self._buffer += chunk
            if len(self._buffer) > _LINE_CAP and b"\n" not in self._buffer:
                log("dropped an input line over the 16 MiB cap")
                self._buffer = b""
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def send(self, message: dict[str, Any]) -> None:
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
