"""One pause for every extension's deadlines: while any extension waits on the user (a
``ui_request``) or on the host (a ``host_request``), no pending request of any extension
can time out; when the last one is answered, every pending request starts over with its
full response timeout (current nimlet's rule; the older document's "time spent waiting for
a user question does not count" is the lenient reading of the same).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

__all__ = ["DeadlinePause", "Pausable"]


class Pausable(Protocol):
    def freeze(self) -> None: ...

    def thaw(self) -> None: ...


class DeadlinePause:
    """Shared by the processes of one gateway (each joins with its ``PendingRequests``)."""

    def __init__(self) -> None:
        self._members: set[Pausable] = set()
        self._open = 0

    @property
    def paused(self) -> bool:
        return self._open > 0

    def join(self, member: Pausable) -> None:
        self._members.add(member)
        if self._open:
            member.freeze()

    def leave(self, member: Pausable) -> None:
        if member in self._members:
            self._members.discard(member)
            if self._open:
                member.thaw()

    @contextmanager
    def hold(self) -> Iterator[None]:
        """While the block runs (a question or host request is open), nothing times out."""
        self._open += 1
        if self._open == 1:
            for member in list(self._members):
                member.freeze()
        try:
            yield
        finally:
            self._open -= 1
            if self._open == 0:
                for member in list(self._members):
                    member.thaw()
