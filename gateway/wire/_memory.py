"""An extension run as a task of this process, its lines carried by a pair of anyio memory
object streams (in the spirit of the MCP SDK's ``create_client_server_memory_streams``):
the host's logic — registration, events, tool calls, questions, deadlines — exercised
without a child process, the same way on every backend and at any machine load.

A ``Program`` is the extension: an async function given its end of the pair
(``MemoryPeer``), returning its exit status. Lines keep the wire's form (bytes, one JSON
message each, or anything else a misbehaving extension would write), so the host decodes
and diagnoses them exactly as it does a child's; a line over the line cap arrives as
``OversizedLine``. What a child's pipes add (the line framing, stderr, the sandbox, signals)
is proven over real pipes by the contract suite."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable

import anyio
from anyio.abc import TaskGroup, TaskStatus
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from gateway.base import Diagnostics
from gateway.wire import _codes
from gateway.wire._channel import Channel, ChannelClosed, LineSink, PeerEnd, Transport
from gateway.wire._errors import ExtensionError, ExtensionStartError
from gateway.wire._framing import OversizedLine
from gateway.wire._plan import LaunchPlan, TransportConfig

__all__ = ["MemoryChannel", "MemoryPeer", "MemoryTransport", "Program"]

_BUFFER = 256
"""Writes either side may make ahead of the other's reading (a pipe's buffer, in writes)."""

Program = Callable[["MemoryPeer"], Awaitable[int | None]]
"""An extension in memory: runs until it returns its exit status (None: 0)."""


class MemoryPeer:
    """The extension's end of the pair: what the host sent, line by line, and a way to
    write lines back. Made by ``MemoryTransport``."""

    def __init__(
        self,
        plan: LaunchPlan,
        incoming: MemoryObjectReceiveStream[bytes],
        outgoing: MemoryObjectSendStream[bytes],
    ) -> None:
        self.plan = plan
        self._incoming = incoming
        self._outgoing = outgoing
        self._scope: anyio.CancelScope | None = None
        self.status: int | None = None
        """Its exit status, once it ended by returning or ``exit``."""
        self.error: BaseException | None = None
        """What it raised, when it ended that way."""
        self.done = anyio.Event()

    def lines(self) -> MemoryPeer:
        """The lines the host sends (each one encoded message), until end of input."""
        return self

    def __aiter__(self) -> MemoryPeer:
        return self

    async def __anext__(self) -> bytes:
        try:
            return await self._incoming.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def send(self, data: bytes | str) -> None:
        """Write one line or several, whole (a trailing newline is optional). Raises
        ``anyio.BrokenResourceError`` once the host stopped reading."""
        raw = data.encode() if isinstance(data, str) else data
        await self._outgoing.send(raw if raw.endswith(b"\n") else raw + b"\n")

    async def exit(self, status: int) -> None:
        """End at once with ``status``, as a process that calls ``_exit``: what it sent is
        still read; nothing after it runs."""
        if self.status is None:
            self.status = status
        if self._scope is not None:
            self._scope.cancel()
        await anyio.lowlevel.checkpoint()

    def kill(self) -> None:
        """Stop it from outside (what SIGKILL is to a child)."""
        if self._scope is not None:
            self._scope.cancel()

    def describe(self) -> str:
        if self.error is not None:
            return f"raised {self.error!r}"
        if self.status is None:
            return "killed" if self.done.is_set() else "output closed"
        return f"exit code {self.status}"

    async def run(self, program: Program, *, task_status: TaskStatus[None]) -> None:
        with anyio.CancelScope() as scope:
            self._scope = scope
            task_status.started()
            try:
                status = await program(self)
                if self.status is None:
                    self.status = 0 if status is None else status
            except Exception as error:  # a bug in the program: its end, not the host's
                self.error = error
            finally:
                self._outgoing.close()
                self._incoming.close()
                self.done.set()


class MemoryChannel:
    """The host's end of the pair."""

    pid = None

    def __init__(
        self,
        plan: LaunchPlan,
        config: TransportConfig,
        diagnostics: Diagnostics,
        peer: MemoryPeer,
        to_peer: MemoryObjectSendStream[bytes],
        from_peer: MemoryObjectReceiveStream[bytes],
    ) -> None:
        self._plan = plan
        self._config = config
        self._diagnostics = diagnostics
        self._peer = peer
        self._to_peer = to_peer
        self._from_peer = from_peer
        self._reading = anyio.CancelScope()

    async def send(self, line: bytes) -> None:
        try:
            await self._to_peer.send(line)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            raise ChannelClosed from None

    async def receive(self, on_line: LineSink) -> None:
        cap = self._config.line_cap
        with self._reading, contextlib.suppress(anyio.ClosedResourceError):
            async for lines in self._from_peer:  # whole lines, each with its newline
                for line in lines[:-1].split(b"\n"):
                    on_line(line if len(line) <= cap else OversizedLine(len(line), cap))

    async def close(self, shutdown: Callable[[], Awaitable[None]]) -> None:
        peer, name = self._peer, self._plan.name
        if not peer.done.is_set():
            with anyio.move_on_after(0.5), contextlib.suppress(ExtensionError, ChannelClosed):
                await shutdown()
        self._to_peer.close()  # end of its input
        with anyio.move_on_after(self._config.shutdown_grace):
            await peer.done.wait()
        if not peer.done.is_set():
            self._diagnostics.add(
                _codes.SHUTDOWN_FORCED(
                    f"extension {name} ignored shutdown; stopped it", package=name
                )
            )
            peer.kill()
            with anyio.move_on_after(self._config.term_grace):
                await peer.done.wait()
        self._reading.cancel()
        self._from_peer.close()

    async def ended(self) -> PeerEnd:
        with anyio.CancelScope(shield=True), anyio.move_on_after(0.5):
            await self._peer.done.wait()
        return PeerEnd(self._peer.describe())


class MemoryTransport:
    """Reaches each extension whose plan ``programs`` names a program in memory;
    ``otherwise`` reaches the others (None: they do not start)."""

    def __init__(
        self,
        programs: Callable[[LaunchPlan], Program | None],
        *,
        otherwise: Transport | None = None,
    ) -> None:
        self._programs = programs
        self._otherwise = otherwise

    async def connect(
        self,
        plan: LaunchPlan,
        config: TransportConfig,
        diagnostics: Diagnostics,
        tasks: TaskGroup,
    ) -> Channel:
        program = self._programs(plan)
        if program is None:
            if self._otherwise is None:
                raise ExtensionStartError(f"no program in memory for {plan.name}")
            return await self._otherwise.connect(plan, config, diagnostics, tasks)
        to_peer, incoming = anyio.create_memory_object_stream[bytes](_BUFFER)
        outgoing, from_peer = anyio.create_memory_object_stream[bytes](_BUFFER)
        peer = MemoryPeer(plan, incoming, outgoing)
        await tasks.start(peer.run, program)
        return MemoryChannel(plan, config, diagnostics, peer, to_peer, from_peer)
