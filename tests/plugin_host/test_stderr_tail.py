"""A stdio server's stderr reaches the package's log unchanged, and its last line is what
a failed start quotes: escaped and cut, since the server wrote it."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from adapters.plugin_host._stderr_tail import SAID_CHARS, StderrTail

pytestmark = pytest.mark.anyio


async def _forwarded(chunks: list[bytes], tmp_path: Path) -> tuple[StderrTail, bytes]:
    log = tmp_path / "log"
    fd = os.open(log, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        tail = StderrTail(fd)
        send, receive = anyio.create_memory_object_stream[bytes](len(chunks))
        for chunk in chunks:
            send.send_nowait(chunk)
        send.close()
        await tail.forward(receive)
    finally:
        os.close(fd)
    return tail, log.read_bytes()


async def test_every_byte_reaches_the_log_and_the_last_line_is_kept(tmp_path: Path) -> None:
    chunks = [b"starting\n", b"Traceback (most recent call last):\n  File ...\n",
              b"ModuleNotFoundError: No module named 'mcp'\n\n"]  # fmt: skip
    tail, log = await _forwarded(chunks, tmp_path)
    assert log == b"".join(chunks)
    assert tail.done.is_set()
    assert tail.last_line() == "ModuleNotFoundError: No module named 'mcp'"


async def test_a_server_that_said_nothing_has_no_last_line(tmp_path: Path) -> None:
    tail, _ = await _forwarded([b"\n  \n"], tmp_path)
    assert tail.last_line() is None


async def test_the_quoted_line_is_escaped_and_cut(tmp_path: Path) -> None:
    hostile = b"\x1b[2J\x1b]0;owned\x07" + b"x" * (2 * SAID_CHARS) + b"\n"
    tail, log = await _forwarded([hostile], tmp_path)
    assert log == hostile  # the log keeps what it wrote
    said = tail.last_line()
    assert said is not None and "\x1b" not in said and "\x07" not in said
    assert said.startswith("\\x1b[2J\\x1b]0;owned\\x07") and said.endswith("…")


async def test_only_the_end_of_a_long_stderr_is_kept(tmp_path: Path) -> None:
    chunks = [b"noise " * 1000 + b"\n", b"the reason\n"]
    tail, _ = await _forwarded(chunks, tmp_path)
    assert tail.last_line() == "the reason"
