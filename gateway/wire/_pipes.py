"""Non-blocking pipe ends for a child's stdin and stdout.

The transport writes with one ``os.write`` and reads with one ``os.read`` whenever the pipe
is ready, waiting on readiness through anyio only when it is not. Stream wrappers add a
scheduling checkpoint to every send, which costs a trip through the event loop per
request; on the hot path of a tool call that trip is most of the host's overhead. A send
that finds nothing queued writes at once, without taking the lock.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator

import anyio

from gateway.base import GatewayError

__all__ = ["ChildPipes", "PipeClosed"]

_READ_SIZE = 256 * 1024


class PipeClosed(GatewayError):
    """The other end of the pipe is gone."""


class ChildPipes:
    """Create with ``ChildPipes()``; hand ``child_stdin`` / ``child_stdout`` to the spawn,
    then call ``after_spawn`` so the parent keeps only its own ends."""

    def __init__(self) -> None:
        self.child_stdin, self._stdin = os.pipe()
        self._stdout, self.child_stdout = os.pipe()
        os.set_blocking(self._stdin, False)
        os.set_blocking(self._stdout, False)
        self._lock = anyio.Lock(fast_acquire=True)
        self._stdin_open = self._stdout_open = True

    def after_spawn(self) -> None:
        os.close(self.child_stdin)
        os.close(self.child_stdout)
        self.child_stdin = self.child_stdout = -1

    @property
    def stdout_fd(self) -> int:
        return self._stdout

    async def send(self, data: bytes) -> None:
        """Write all of ``data``; lines from concurrent senders never interleave."""
        if not self._lock.locked():
            # Nobody is mid-line: one write usually takes it all, with no await at all.
            if not self._stdin_open:
                raise PipeClosed
            try:
                written = os.write(self._stdin, data)
            except BlockingIOError:
                written = 0
            except OSError:
                raise PipeClosed from None
            if written == len(data):
                return
            data = data[written:]
        async with self._lock:
            view = memoryview(data)
            while view:
                if not self._stdin_open:
                    raise PipeClosed
                try:
                    written = os.write(self._stdin, view)
                except BlockingIOError:
                    await anyio.wait_writable(self._stdin)
                    continue
                except (BrokenPipeError, OSError):
                    raise PipeClosed from None
                view = view[written:]

    async def chunks(self) -> AsyncIterator[bytes]:
        """What the child writes to stdout, until end of file."""
        while self._stdout_open:
            try:
                chunk = os.read(self._stdout, _READ_SIZE)
            except BlockingIOError:
                try:
                    await anyio.wait_readable(self._stdout)
                except (anyio.ClosedResourceError, OSError):
                    return
                continue
            except OSError:
                return
            if not chunk:
                return
            yield chunk

    def read_ready(self) -> bytes | None:
        """One read of what is there (b"" at end of file); None when nothing is."""
        if not self._stdout_open:
            return b""
        try:
            return os.read(self._stdout, _READ_SIZE)
        except BlockingIOError:
            return None
        except OSError:
            return b""

    def close_stdin(self) -> None:
        """End of input for the child."""
        if self._stdin_open:
            self._stdin_open = False
            anyio.notify_closing(self._stdin)
            os.close(self._stdin)

    def close(self) -> None:
        self.close_stdin()
        if self._stdout_open:
            self._stdout_open = False
            anyio.notify_closing(self._stdout)
            os.close(self._stdout)
        for fd in (self.child_stdin, self.child_stdout):
            if fd >= 0:
                os.close(fd)
        self.child_stdin = self.child_stdout = -1
