"""A stdio MCP server's stderr, passed on to the plugin host's own (the package's log) as it
comes, its last lines kept: a server that dies before its handshake usually says why there
(``ModuleNotFoundError: No module named 'mcp'`` for a Python server whose interpreter lacks
its SDK), and the diagnostic says it too, not only "Connection closed".

The bytes go to the log unchanged, as when the server wrote there itself; they are written
from a worker thread (the log is the gateway's pipe, which may be full for a moment: the
host's event loop never waits on it). What the diagnostic quotes is hostile text: its last
non-empty line, cut and with control characters escaped."""

from __future__ import annotations

import os

import anyio
from anyio.abc import ByteReceiveStream

__all__ = ["SAID_CHARS", "StderrTail"]

TAIL_BYTES = 4096
"""What is kept of the end of the server's stderr."""
SAID_CHARS = 300
"""The most of its last line a diagnostic quotes."""


class StderrTail:
    """Forwards one server's stderr to ``target`` (a file descriptor) and keeps its end."""

    def __init__(self, target: int) -> None:
        self._target = target
        self._tail = bytearray()
        self.done = anyio.Event()
        """Set once the server's stderr has ended (or could not be read further)."""

    async def forward(self, stream: ByteReceiveStream) -> None:
        """Until the server's stderr ends; the stream is closed after."""
        try:
            async for chunk in stream:
                self._tail += chunk
                del self._tail[:-TAIL_BYTES]
                await anyio.to_thread.run_sync(_write_all, self._target, chunk)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
        finally:
            self.done.set()
            with anyio.CancelScope(shield=True):
                await stream.aclose()

    def last_line(self) -> str | None:
        """The last non-empty line it wrote, printable and cut; None when it wrote none."""
        text = bytes(self._tail).decode("utf-8", "replace")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        if not lines:
            return None
        line = lines[-1]
        cut = line[:SAID_CHARS] + ("…" if len(line) > SAID_CHARS else "")
        return "".join(c if c.isprintable() else repr(c)[1:-1] for c in cut)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view) :]
    except OSError:
        pass  # our own stderr is gone: the server's words are lost with it, as before
