"""Newline framing with a line-length cap.

An oversized line is reported as a value and skipped up to its newline, so the stream stays
in sync and the extension keeps running. ``LineFramer`` is fed chunks as they arrive (from
a reader callback or a reader task alike); ``read_lines`` wraps it for an async stream.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

from gateway.base import DEFAULT_LINE_CAP

__all__ = ["DEFAULT_LINE_CAP", "LineFramer", "OversizedLine", "read_lines"]


@dataclass(frozen=True, slots=True)
class OversizedLine:
    """A line longer than the cap, skipped: its size and the cap it broke, in bytes."""

    size: int
    cap: int


class LineFramer:
    __slots__ = ("_buffer", "_cap", "_discarding")

    def __init__(self, cap: int = DEFAULT_LINE_CAP) -> None:
        self._cap = cap
        self._buffer = bytearray()
        self._discarding = 0  # bytes thrown away of the current oversized line; 0: none

    def feed(self, chunk: bytes) -> list[bytes | OversizedLine]:
        """The lines ``chunk`` completes (without their newlines), in order."""
        lines: list[bytes | OversizedLine] = []
        start = 0
        buffer, cap = self._buffer, self._cap
        while True:
            newline = chunk.find(b"\n", start)
            if newline < 0:
                rest = len(chunk) - start
                if self._discarding:
                    self._discarding += rest
                elif len(buffer) + rest > cap:
                    self._discarding = len(buffer) + rest
                    buffer.clear()
                else:
                    buffer += chunk[start:]
                return lines
            if self._discarding:
                lines.append(OversizedLine(self._discarding + newline - start, cap))
                self._discarding = 0
            elif not buffer:
                if newline - start > cap:
                    lines.append(OversizedLine(newline - start, cap))
                else:
                    lines.append(chunk[start:newline])
            else:
                buffer += chunk[start:newline]
                lines.append(
                    OversizedLine(len(buffer), cap) if len(buffer) > cap else bytes(buffer)
                )
                buffer.clear()
            start = newline + 1

    def finish(self) -> list[bytes | OversizedLine]:
        """At end of input: the last line, if it had no newline."""
        if self._discarding:
            size, self._discarding = self._discarding, 0
            return [OversizedLine(size, self._cap)]
        if self._buffer:
            line = bytes(self._buffer)
            self._buffer.clear()
            return [line]
        return []


async def read_lines(
    chunks: AsyncIterator[bytes], cap: int = DEFAULT_LINE_CAP
) -> AsyncIterator[bytes | OversizedLine]:
    """Yield each line (without its newline) or an ``OversizedLine`` marker, until EOF."""
    framer = LineFramer(cap)
    async for chunk in chunks:
        for line in framer.feed(chunk):
            yield line
    for line in framer.finish():
        yield line
