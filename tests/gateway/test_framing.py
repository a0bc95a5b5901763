"""Newline framing with a cap, over an in-memory byte stream."""

from __future__ import annotations

import pytest

from gateway.wire import OversizedLine, read_lines
from tests._backends import both_backends  # noqa: F401  (the core's anyio code: both backends)

pytestmark = pytest.mark.anyio


async def chunked(chunks: list[bytes]):
    for chunk in chunks:
        yield chunk


async def collect(chunks: list[bytes], cap: int = 16) -> list:
    return [line async for line in read_lines(chunked(chunks), cap)]


async def test_lines_split_across_chunks_are_joined():
    assert await collect([b'{"a"', b":1}\n{", b'"b":2}\n']) == [b'{"a":1}', b'{"b":2}']


async def test_last_line_without_newline_is_delivered():
    assert await collect([b"one\ntwo"]) == [b"one", b"two"]


async def test_oversized_line_is_reported_and_the_next_line_survives():
    lines = await collect([b"x" * 10, b"y" * 10, b"z" * 10 + b"\nok\n"], cap=16)
    assert lines == [OversizedLine(30, 16), b"ok"]


async def test_oversized_line_within_one_chunk():
    assert await collect([b"a" * 40 + b"\nok\n"], cap=16) == [OversizedLine(40, 16), b"ok"]


async def test_line_exactly_at_the_cap_is_kept():
    assert await collect([b"a" * 16 + b"\n"], cap=16) == [b"a" * 16]
