"""The shell's input: lines read from stdin without a thread, so a wait for the next line
can be given up (an extension delivered input meanwhile) without losing what was typed, and
a password is read with the terminal's echo off. Where the descriptor cannot be waited on
(Windows, a regular file), reads are plain blocking reads in a worker thread."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Iterator
from typing import TextIO

import anyio

__all__ = ["Terminal"]


class Terminal:
    def __init__(self, stream: TextIO | None = None, out: TextIO | None = None) -> None:
        self._stream = stream or sys.stdin
        self._out = out or sys.stdout
        self._fd = self._stream.fileno()
        self._buffer = b""
        self._eof = False
        mode = os.fstat(self._fd).st_mode
        self._pollable = os.name == "posix" and not stat.S_ISREG(mode)
        self.interactive = _isatty(self._stream) and _isatty(self._out)

    def say(self, text: str = "") -> None:
        print(text, file=self._out, flush=True)

    async def line(self, prompt: str, *, secret: bool = False) -> str | None:
        """The next line (without its newline), or None at end of input. A cancelled wait
        keeps whatever was read for the next call."""
        self._out.write(prompt)
        self._out.flush()
        hidden = secret and self.interactive
        with self._echo_off() if hidden else contextlib.nullcontext():
            text = await self._next_line()
        if hidden:
            self.say()  # the newline the user typed was not echoed
        return text

    async def _next_line(self) -> str | None:
        while b"\n" not in self._buffer and not self._eof:
            if self._pollable:
                await anyio.wait_readable(self._fd)
                chunk = os.read(self._fd, 65536)
            else:
                chunk = await anyio.to_thread.run_sync(os.read, self._fd, 65536)
            if chunk:
                self._buffer += chunk
            else:
                self._eof = True
        if not self._buffer and self._eof:
            return None
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", "replace").removesuffix("\r")

    @contextlib.contextmanager
    def _echo_off(self) -> Iterator[None]:
        try:
            import termios
        except ImportError:  # pragma: no cover - not POSIX
            yield
            return
        before = termios.tcgetattr(self._fd)
        quiet = list(before)
        quiet[3] = quiet[3] & ~termios.ECHO
        termios.tcsetattr(self._fd, termios.TCSADRAIN, quiet)
        try:
            yield
        finally:
            termios.tcsetattr(self._fd, termios.TCSADRAIN, before)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
