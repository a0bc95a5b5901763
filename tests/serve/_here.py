"""``gateway serve --mcp ARGS`` run in the test's own process and event loop, its client the
MCP SDK's ``ClientSession``: ``serve_here``.

A served gateway started as ``python -m gateway serve --mcp`` costs ~1.4 s of CPU before it
serves anything (Python and the MCP SDK's pydantic models, imported again in each server;
measured on the 2-core machine), which a test process that imports the MCP client has
already paid. Here the command line goes through the CLI's own parser and options
(``serve_options``) and the product's ``serve_mcp`` serves it on text streams instead of
stdin and stdout: the SDK's ``stdio_server`` frames each message as the JSON line a process
would write, and the client side parses those lines as the SDK's ``stdio_client`` does. The
packages behind it are real child processes either way.

What only a process shows — its exit status, a signal, bytes on a real pipe, the CLI's
start — keeps ``python -m gateway serve`` (tests/serve/test_mcp.py's last tests, the
SIGHUP and HTTP tests, test_mcp_start.py). While the server runs, ``os.environ`` is the
``env`` given (what the served process would see, and what its packages inherit), the
working folder is ``cwd`` and ``sys.stderr`` is ``errlog`` when given, and the bound a
server gives its runtimes to stop (``STOP_WITHIN``) is raised so that they are all stopped
and reaped here; all put back after. The server's heap is the test process's: its
``settle`` (collect, then freeze what is left; ``gateway.serve._heap``) and ``release`` do
nothing here. A settle collected the whole process — the suite's collected modules and
items, which tests/conftest.py froze — at each served gateway (~0.38 s of CPU in a worker
that collected the suite), and handing its freeze back after left that heap to every later
full collection; tests/serve/test_heap.py tests them, and a served process runs them."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp import ClientSession
from mcp.shared.memory import create_client_server_memory_streams
from mcp.shared.message import SessionMessage

__all__ = ["serve_here"]

_STOP_WITHIN = 120.0


class _Lines:
    """A text stream as ``stdio_server`` uses one: lines read by ``async for``, written by
    ``write`` and ``flush``."""

    def __init__(
        self,
        receive: ObjectReceiveStream[str] | None = None,
        send: ObjectSendStream[str] | None = None,
    ) -> None:
        self._receive, self._send = receive, send

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        assert self._receive is not None
        async for line in self._receive:
            yield line

    async def write(self, text: str) -> None:
        assert self._send is not None
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            await self._send.send(text)

    async def flush(self) -> None:
        await anyio.lowlevel.checkpoint()


def _leave_the_heap() -> None:
    """``settle`` and ``release`` in the test process: its collector as it is."""


@contextlib.contextmanager
def _as_the_process(env: Mapping[str, str], cwd: Path, errlog: Path | None) -> Iterator[None]:
    from gateway.serve import _heap, _open

    saved_env, saved_cwd, saved_stderr = dict(os.environ), os.getcwd(), sys.stderr
    saved_bound = _open.STOP_WITHIN
    saved_heap = _heap.settle, _heap.release
    with contextlib.ExitStack() as stack:
        try:
            # A served process stops its runtimes within STOP_WITHIN and is then cancelled
            # (its exit ends what is left); here the runtimes are this process's children,
            # and a loaded machine may take longer: the server stops them all.
            _open.STOP_WITHIN = _STOP_WITHIN
            _heap.settle = _heap.release = _leave_the_heap
            os.environ.clear()
            os.environ.update(env)
            os.chdir(cwd)
            if errlog is not None:
                sys.stderr = stack.enter_context(errlog.open("a", encoding="utf-8"))
            yield
        finally:
            _open.STOP_WITHIN = saved_bound
            _heap.settle, _heap.release = saved_heap
            sys.stderr = saved_stderr
            os.chdir(saved_cwd)
            os.environ.clear()
            os.environ.update(saved_env)


@contextlib.asynccontextmanager
async def serve_here(
    args: list[str],
    *,
    env: Mapping[str, str],
    cwd: Path,
    errlog: Path | None = None,
    modern: bool = False,
    written: list[str] | None = None,
    **session: Any,
) -> AsyncIterator[ClientSession]:
    """A connected client of ``gateway serve --mcp ARGS`` served here: after the initialize
    handshake, or with ``modern`` the stateless 2026-07-28 revision (``server/discover``).
    ``written``, when given, gets every line the server writes, as it wrote it. Leaving
    closes the client's side (the server's end of input), then waits for the server to stop
    and checks that it exited with 0."""
    from gateway.base import GatewayConfig
    from gateway.cli._parser import build_parser
    from gateway.cli._serve import serve_options
    from gateway.serve import serve_mcp

    argv = ["serve", "--mcp", *args]
    exit_status: list[int] = []
    to_server, server_reads = anyio.create_memory_object_stream[str](16)
    server_writes, from_server = anyio.create_memory_object_stream[str](16)
    with _as_the_process(env, cwd, errlog):
        options = serve_options(build_parser(argv).parse_args(argv), GatewayConfig())

        async def serve() -> None:
            async with server_reads, server_writes:
                stdin, stdout = _Lines(receive=server_reads), _Lines(send=server_writes)
                exit_status.append(await serve_mcp(options, stdin, stdout))

        async with (
            create_client_server_memory_streams() as (client, relay),
            anyio.create_task_group() as group,
        ):
            group.start_soon(serve)
            group.start_soon(_to_lines, relay[0], to_server)
            group.start_soon(_from_lines, from_server, relay[1], written)
            async with ClientSession(*client, **session) as connection:
                await (connection.discover() if modern else connection.initialize())
                yield connection
            await client[1].aclose()  # the client goes: the server's end of input
    assert exit_status == [0], f"gateway serve exited with {exit_status}"


async def _to_lines(
    messages: ObjectReceiveStream[SessionMessage | Exception], lines: ObjectSendStream[str]
) -> None:
    """What the client sends, as the JSON lines ``stdio_client`` writes."""
    async with messages, lines:
        async for message in messages:
            if isinstance(message, SessionMessage):
                dumped = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await lines.send(dumped + "\n")


async def _from_lines(
    lines: ObjectReceiveStream[str],
    messages: ObjectSendStream[SessionMessage | Exception],
    written: list[str] | None,
) -> None:
    """What the server writes, parsed as ``stdio_client`` parses its server's lines."""
    async with lines, messages:
        async for line in lines:
            if written is not None:
                written.append(line)
            try:
                parsed = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except Exception as problem:  # what the client is given for a bad line
                await messages.send(problem)
                continue
            await messages.send(SessionMessage(parsed))
