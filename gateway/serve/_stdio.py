"""This process's own stdin and stdout as JSON lines, without a thread per line.

``gateway serve --nimlet`` is an extension: its host writes requests to its stdin and reads
replies from its stdout. As the transport does with its children's pipes, the ends are
non-blocking, read and written with one system call whenever they are ready and waited on
through anyio only when they are not (a thread hop per line would be most of a call's
overhead). Lines are capped like the transport's.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import AsyncIterator
from typing import Any

import anyio

from gateway.wire import DEFAULT_LINE_CAP, LineFramer, OversizedLine

__all__ = ["StdioLines"]

_READ_SIZE = 256 * 1024
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


class StdioLines:
    def __init__(self, stdin: int = 0, stdout: int = 1, cap: int = DEFAULT_LINE_CAP) -> None:
        self._in, self._out = stdin, stdout
        os.set_blocking(stdin, False)
        os.set_blocking(stdout, False)
        self._cap = cap
        self._lock = anyio.Lock(fast_acquire=True)
        self.closed = False

    async def lines(self) -> AsyncIterator[bytes | OversizedLine]:
        """Each line the host writes (without its newline), until end of input."""
        framer = LineFramer(self._cap)
        while True:
            try:
                chunk = os.read(self._in, _READ_SIZE)
            except BlockingIOError:
                await anyio.wait_readable(self._in)
                continue
            except OSError:
                break
            if not chunk:
                break
            for line in framer.feed(chunk):
                yield line
        for line in framer.finish():
            yield line

    async def send(self, message: dict[str, Any]) -> None:
        """One message as one line; concurrent senders never interleave. A host that went
        away is not an error here: the read side sees end of input and stops the server."""
        data = (_ENCODER.encode(message) + "\n").encode()
        if self.closed:
            return
        if not self._lock.locked():
            try:
                written = os.write(self._out, data)
            except BlockingIOError:
                written = 0
            except OSError:
                self.closed = True
                return
            if written == len(data):
                return
            data = data[written:]
        async with self._lock:
            view = memoryview(data)
            while view and not self.closed:
                try:
                    written = os.write(self._out, view)
                except BlockingIOError:
                    await anyio.wait_writable(self._out)
                    continue
                except OSError:
                    self.closed = True
                    return
                view = view[written:]

    def restore(self) -> None:
        """Blocking again, for whatever writes to these descriptors after the server."""
        for fd in (self._in, self._out):
            with contextlib.suppress(OSError):
                os.set_blocking(fd, True)
