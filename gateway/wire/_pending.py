"""The requests one extension has not answered yet: their waiters, their deadlines (frozen
while any extension waits on the user or the host: ``gateway.wire._pause``), and what became of
ids that are no longer pending, so a stray reply can be told apart as duplicate, late or
unknown."""

from __future__ import annotations

import enum
import math
from collections import deque
from dataclasses import dataclass

import anyio

from gateway.wire._errors import ExtensionError
from gateway.wire._loop import FastPath, Timer, Waiter, new_waiter
from gateway.wire.protocol import ResponseMessage

__all__ = ["Pending", "PendingRequests", "Stray"]

_REMEMBERED = 4096
"""Answered ids kept to recognise a second reply (older ones count as unknown)."""


class Stray(enum.Enum):
    """Why a reply matched no pending request."""

    DUPLICATE = "duplicate"
    LATE = "late"
    UNKNOWN = "unknown"
    NO_ID = "no id"


@dataclass(slots=True)
class Pending:
    id: str
    waiter: Waiter
    deadline: float
    frozen: bool = False
    """Its deadline is suspended (a user question or host request is open)."""


class PendingRequests:
    """Owned by one ``ExtensionProcess``; ``timeout`` is its response timeout (None: wait
    forever). On asyncio one ``Timer`` watches every deadline; elsewhere each wait carries
    its own."""

    def __init__(self, timeout: float | None, fast: FastPath | None) -> None:
        self._timeout = math.inf if timeout is None else timeout
        self._fast = fast
        self._pending: dict[str, Pending] = {}
        self._timer: Timer | None = fast.timer(self._expire) if fast is not None else None
        self._answered: deque[str] = deque(maxlen=_REMEMBERED)
        self._answered_set: set[str] = set()
        self._abandoned: set[str] = set()
        self._frozen = 0

    def __len__(self) -> int:
        return len(self._pending)

    # ------------------------------------------------------------------ one request

    def open(self, request_id: str) -> Pending:
        now = anyio.current_time()
        if self._frozen:
            pending = Pending(request_id, new_waiter(self._fast), math.inf, frozen=True)
        else:
            pending = Pending(request_id, new_waiter(self._fast), now + self._timeout)
            if self._timer is not None:
                self._timer.arm(pending.deadline)
        self._pending[request_id] = pending
        return pending

    async def wait(self, pending: Pending) -> ResponseMessage:
        """The reply, or the error it failed with; ``TimeoutError`` past its deadline."""
        response: ResponseMessage = await pending.waiter.wait(pending.deadline)
        return response

    def close(self, pending: Pending, *, abandoned: bool) -> None:
        """The caller is done with it; ``abandoned``: it gave up (timeout, cancellation),
        so a reply that still comes is late."""
        self._pending.pop(pending.id, None)
        if abandoned:
            self._abandoned.add(pending.id)

    # ------------------------------------------------------------------ replies

    def match(self, response: ResponseMessage) -> Pending | Stray:
        """The request a reply answers, or why it answers none."""
        pending = self._pending.get(response.id)
        if pending is not None and not pending.waiter.done():
            return pending
        if response.id in self._answered_set or pending is not None:
            return Stray.DUPLICATE
        if response.id in self._abandoned:
            self._abandoned.discard(response.id)
            return Stray.LATE
        return Stray.UNKNOWN if response.id else Stray.NO_ID

    def deliver(self, pending: Pending, response: ResponseMessage) -> None:
        pending.waiter.resolve(response)
        self._remember(pending.id)

    def fail(self, request_id: str, error: ExtensionError) -> bool:
        """Fail one pending request now (a malformed reply); False if it is not pending."""
        pending = self._pending.get(request_id)
        if pending is None or pending.waiter.done():
            return False
        pending.waiter.fail(error)
        return True

    def fail_all(self, error: ExtensionError) -> None:
        for pending in self._pending.values():
            pending.waiter.fail(error)

    def _remember(self, request_id: str) -> None:
        if len(self._answered) == _REMEMBERED:
            self._answered_set.discard(self._answered[0])
        self._answered.append(request_id)
        self._answered_set.add(request_id)

    # ------------------------------------------------------------------ deadlines

    def freeze(self) -> None:
        """A question or host request opened: no deadline runs until ``thaw``."""
        self._frozen += 1
        if self._frozen > 1:
            return
        for pending in self._pending.values():
            if not math.isinf(pending.deadline):
                pending.frozen = True
                pending.deadline = math.inf
                pending.waiter.extend(math.inf)
        if self._timer is not None:
            self._timer.cancel()

    def thaw(self) -> None:
        """The last one was answered: every suspended request gets its full timeout again
        (current nimlet measures from the moment the question completed). One with nothing
        pending has nothing to do: a host request thaws every process of the gateway."""
        self._frozen -= 1
        if self._frozen or not self._pending:
            return
        now = anyio.current_time()
        for pending in self._pending.values():
            if pending.frozen:
                pending.frozen = False
                pending.deadline = now + self._timeout
                pending.waiter.extend(pending.deadline)
                if self._timer is not None:
                    self._timer.arm(pending.deadline)

    def _expire(self) -> None:
        """The asyncio timer fired: fail every wait past its deadline, re-arm for the next."""
        assert self._timer is not None
        now = anyio.current_time()
        earliest = math.inf
        for pending in self._pending.values():
            if pending.waiter.done():
                continue
            if pending.deadline <= now:
                pending.waiter.fail(TimeoutError())
            else:
                earliest = min(earliest, pending.deadline)
        self._timer.arm(earliest)
