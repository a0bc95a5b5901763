"""The seam between an ``ExtensionProcess`` and whatever carries its lines: a ``Channel``
(one conversation: send a line, receive lines, close, how the other end ended) and a
``Transport`` (how a planned extension is reached). Two of each: the child's pipes
(``gateway.wire._pipe_channel``, what the gateway runs) and an in-memory pair
(``gateway.wire._memory``, an extension run as a task of this process, for tests of the
host's logic)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from anyio.abc import TaskGroup

from gateway.base import Diagnostic, Diagnostics, GatewayError
from gateway.wire._framing import OversizedLine
from gateway.wire._plan import LaunchPlan, TransportConfig

__all__ = ["Channel", "ChannelClosed", "LineSink", "PeerEnd", "Transport"]

LineSink = Callable[[bytes | OversizedLine], None]
"""Where a channel hands each line the extension writes (without its newline), in order."""


class ChannelClosed(GatewayError):
    """The extension's input is gone: nothing more can be sent to it."""


@dataclass(frozen=True, slots=True)
class PeerEnd:
    """How the extension ended: in words for a diagnostic (``exit code 3``, ``killed by
    signal 9``), and what that end tells about the limits it ran into."""

    description: str
    findings: tuple[Diagnostic, ...] = ()


class Channel(Protocol):
    """One extension's conversation with the host. The process calls ``close`` shielded
    (again: it does nothing more); every wait inside it is bounded."""

    @property
    def pid(self) -> int | None:
        """The child's process id; None for an extension that is no process."""
        ...

    async def send(self, line: bytes) -> None:
        """Send one encoded message (its newline included); lines from concurrent senders
        never interleave. Raises ``ChannelClosed`` once the extension's input is gone."""
        ...

    async def receive(self, on_line: LineSink) -> None:
        """Hand every line the extension writes to ``on_line`` until its output ends, or
        until ``close`` stops the reading; then return. Lines over the transport's cap
        arrive as ``OversizedLine``."""
        ...

    async def close(self, shutdown: Callable[[], Awaitable[None]]) -> None:
        """End the extension in bounded steps (``shutdown`` sends it the ``shutdown``
        message; then end of its input; then force) and release what the channel holds."""
        ...

    async def ended(self) -> PeerEnd:
        """How it ended, once its output has (waited for briefly)."""
        ...


class Transport(Protocol):
    """How a planned extension is reached."""

    async def connect(
        self,
        plan: LaunchPlan,
        config: TransportConfig,
        diagnostics: Diagnostics,
        tasks: TaskGroup,
    ) -> Channel:
        """Start the extension ``plan`` describes and return its channel, framed and
        stopped by ``config``. ``diagnostics`` takes what the channel itself finds (sandbox
        refusals, a forced shutdown); a peer that runs as a task runs in ``tasks``. Raises
        ``ExtensionStartError`` (or ``SandboxRefused``) when it cannot start."""
        ...
