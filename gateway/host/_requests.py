"""The requests the host sends a runtime (a tool call, a command, a hook's event): each in
its span, with that span's trace context for a runtime that negotiated ``trace.context``,
and counted while in flight, so that a package leaving the package set stops only once they
are answered (``drained``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio

from gateway.host._observe import wire_request
from gateway.host._state import GatewayState
from gateway.wire import ExtensionProcess, HostMessage, ResponseMessage

__all__ = ["RequestsInFlight"]

Build = Callable[[str, dict[str, Any] | None], HostMessage]
"""(request id, the ``gateway`` extra carrying the trace context or None) → the request."""


class RequestsInFlight:
    def __init__(self, state: GatewayState) -> None:
        self._state = state
        self._busy: dict[ExtensionProcess, int] = {}
        self._idle: dict[ExtensionProcess, anyio.Event] = {}

    async def send(
        self, process: ExtensionProcess, owner: str, kind: str, name: str, build: Build
    ) -> ResponseMessage:
        """``process.request`` of a ``kind`` request (``tool``, ``command``, ``event``) for
        ``owner``, in its span, in flight until it is answered."""
        self._busy[process] = self._busy.get(process, 0) + 1
        try:
            with wire_request(self._state, process, owner, kind, name) as trace:
                return await process.request(lambda rid: build(rid, trace))
        finally:
            left = self._busy.pop(process) - 1
            if left:
                self._busy[process] = left
            elif (idle := self._idle.pop(process, None)) is not None:
                idle.set()

    async def drained(self, process: ExtensionProcess) -> None:
        """Until no request to ``process`` is in flight."""
        if process in self._busy:
            await self._idle.setdefault(process, anyio.Event()).wait()
