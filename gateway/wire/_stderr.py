"""What an extension writes to stderr: drained from its pipe into its log (rotated, never
left to fill the pipe or the disk), and read line by line for the sandbox's refusals, so a
denied open or connect becomes a diagnostic naming the grant that would allow it."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import anyio

from gateway.base import Diagnostics
from gateway.sandbox import SandboxPolicy, explain_denial
from gateway.wire._logfiles import RotatingLog

__all__ = ["denial_reporter", "drain_stderr"]

_READ_SIZE = 64 * 1024
_LINE_CAP = 4096
"""Bytes of one line kept for scanning; the rest still goes to the log."""


async def drain_stderr(fd: int, log: RotatingLog, on_line: Callable[[str], None] | None) -> None:
    """Until end of file (the child and every process holding the pipe are gone) or
    cancellation. ``fd`` is non-blocking and is closed here."""
    partial = bytearray()
    try:
        while True:
            try:
                chunk = os.read(fd, _READ_SIZE)
            except BlockingIOError:
                try:
                    await anyio.wait_readable(fd)
                except (anyio.ClosedResourceError, OSError):
                    return
                continue
            except OSError:
                return
            if not chunk:
                return
            log.write(chunk)
            if on_line is None:
                continue
            *lines, rest = (bytes(partial) + chunk).split(b"\n")
            partial = bytearray(rest[:_LINE_CAP])
            for line in lines:
                on_line(line[:_LINE_CAP].decode("utf-8", "replace"))
    finally:
        anyio.notify_closing(fd)
        os.close(fd)


def denial_reporter(
    policy: SandboxPolicy | None, name: str, cwd: Path, diagnostics: Diagnostics
) -> Callable[[str], None] | None:
    """An ``on_line`` that reports each refusal of ``policy`` a stderr line shows, once per
    missing grant; None for a process that runs unconfined."""
    if policy is None:
        return None
    explained: set[str | None] = set()

    def on_line(line: str) -> None:
        found = explain_denial(line, policy, name, cwd)
        if found is not None and found.hint not in explained:
            explained.add(found.hint)  # once per missing grant
            diagnostics.add(found)

    return on_line
