"""Newline framing with a line-length cap.

An oversized line is reported as a value and skipped up to its newline, so the stream stays
in sync and the extension keeps running.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

DEFAULT_LINE_CAP = 16 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class OversizedLine:
    size: int


async def read_lines(
    chunks: AsyncIterator[bytes], cap: int = DEFAULT_LINE_CAP
) -> AsyncIterator[bytes | OversizedLine]:
    """Yield each line (without its newline) or an ``OversizedLine`` marker, until EOF."""
    buffer = bytearray()
    discarding = 0  # bytes thrown away of the current oversized line; 0 = not discarding
    async for chunk in chunks:
        start = 0
        while True:
            newline = chunk.find(b"\n", start)
            if newline < 0:
                rest = len(chunk) - start
                if discarding:
                    discarding += rest
                elif len(buffer) + rest > cap:
                    discarding = len(buffer) + rest
                    buffer.clear()
                else:
                    buffer += chunk[start:]
                break
            if discarding:
                yield OversizedLine(discarding + newline - start)
                discarding = 0
            elif not buffer:
                if newline - start > cap:
                    yield OversizedLine(newline - start)
                else:
                    yield chunk[start:newline]
            else:
                buffer += chunk[start:newline]
                if len(buffer) > cap:
                    yield OversizedLine(len(buffer))
                else:
                    yield bytes(buffer)
                buffer.clear()
            start = newline + 1
    if discarding:
        yield OversizedLine(discarding)
    elif buffer:
        yield bytes(buffer)
