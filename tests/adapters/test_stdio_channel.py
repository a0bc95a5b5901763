"""The Python sidecars' protocol stdio (``adapters._stdio_channel``): the first message read
blocking, the rest waited for in the event loop (``Channel.receive``, the plugin host's
reader), with nothing lost between the two and the loop free while it waits."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator

import anyio
import pytest

from adapters._stdio_channel import Channel

pytestmark = pytest.mark.anyio


@pytest.fixture
def pipe() -> Iterator[tuple[Channel, int, list[str]]]:
    read_fd, write_fd = os.pipe()
    logged: list[str] = []
    yield Channel(read_fd, -1, logged.append), write_fd, logged
    os.close(read_fd)
    with contextlib.suppress(OSError):  # the test closed it (end of input)
        os.close(write_fd)


def _line(message: dict[str, object]) -> bytes:
    return json.dumps(message).encode() + b"\n"


async def test_what_was_read_past_the_first_message_is_received_next(pipe) -> None:
    channel, write_fd, _ = pipe
    os.write(write_fd, _line({"type": "initialize"}) + _line({"type": "event", "id": "1"}))
    assert channel.read_message() == {"type": "initialize"}
    assert await channel.receive() == {"type": "event", "id": "1"}


async def test_the_loop_runs_while_it_waits_and_split_lines_are_joined(pipe) -> None:
    channel, write_fd, logged = pipe
    received: list[object] = []

    async def read_two() -> None:
        received.append(await channel.receive())
        received.append(await channel.receive())

    async with anyio.create_task_group() as group:
        group.start_soon(read_two)
        await anyio.wait_all_tasks_blocked()  # waiting for input, not holding the loop
        assert received == []
        first, second = _line({"id": "a"}), _line({"id": "b"})
        os.write(write_fd, first[:5])
        await anyio.wait_all_tasks_blocked()
        assert received == []
        os.write(write_fd, first[5:] + b"\n[1]\nnot json\n" + second)
    assert received == [{"id": "a"}, {"id": "b"}]
    assert [line.split(":")[0] for line in logged] == [
        "ignored a line that is not a JSON object",
        "ignored a line that is not JSON",
    ]


async def test_the_end_of_input_ends_it_after_a_last_unterminated_line(pipe) -> None:
    channel, write_fd, _ = pipe
    os.write(write_fd, b'{"type": "shutdown"}')
    os.close(write_fd)
    assert await channel.receive() == {"type": "shutdown"}
    assert await channel.receive() is None
