"""The heap of a long-running ``gateway serve``, kept out of the cyclic collector's way.

Once the gateway is open and its runtimes warm, almost everything in the process — the
imported modules (the MCP SDK's pydantic models alone are tens of thousands of objects),
the registry, the runtimes' clients, OpenTelemetry's providers — lives as long as the
server. CPython's collector still walks all of it in each full collection, and a server
that answers calls allocates enough to run one every few thousand calls (more often with
tracing on, whose spans outlive a call until they are exported): measured, about a third
of the collector's time per call. ``settle`` collects once and then freezes what is left
(``gc.freeze``: moved to a permanent generation the collector skips); objects made later
are collected as before. A package-set change (``_reload``, through ``Resettle``)
``release``s the frozen objects before it is applied, so what it drops is collected rather
than kept forever (the permanent generation is never collected); once a minute has passed
without another change — the retired packages' calls in flight have had their 30 seconds —
the heap is settled again.
"""

from __future__ import annotations

import gc

import anyio

__all__ = ["SETTLE_AFTER", "Resettle", "release", "settle"]

SETTLE_AFTER = 60.0
"""Seconds without a package-set change before the heap is settled again."""


def settle() -> None:
    """Collect, then freeze what survives: once the server is open, again after a reload."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def release() -> None:
    """Hand what ``settle`` froze back to the collector (the oldest generation)."""
    gc.unfreeze()


class Resettle:
    """The heap across package-set changes: ``changed`` releases it (call it as a change is
    told, before it is applied); ``run`` settles it again once ``delay`` seconds pass
    without another change."""

    def __init__(self, delay: float = SETTLE_AFTER) -> None:
        self._delay = delay
        self._changed = anyio.Event()
        self.settled = anyio.Event()
        """Set each time the heap was settled again (a fresh event after each change)."""

    def changed(self) -> None:
        release()
        if self.settled.is_set():
            self.settled = anyio.Event()
        self._changed.set()

    async def run(self) -> None:
        """Until cancelled."""
        while True:
            await self._changed.wait()
            self._changed = anyio.Event()
            await anyio.sleep(self._delay)
            if not self._changed.is_set():  # else another change came: wait on
                settle()
                self.settled.set()
