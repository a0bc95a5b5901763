"""The heap of a long-running ``gateway serve``, kept out of the cyclic collector's way.

Once the gateway is open and its runtimes warm, almost everything in the process — the
imported modules (the MCP SDK's pydantic models alone are tens of thousands of objects),
the registry, the runtimes' clients, OpenTelemetry's providers — lives as long as the
server. CPython's collector still walks all of it in each full collection, and a server
that answers calls allocates enough to run one every few thousand calls (more often with
tracing on, whose spans outlive a call until they are exported): measured, about a third
of the collector's time per call. ``settle`` collects once and then freezes what is left
(``gc.freeze``: moved to a permanent generation the collector skips); objects made later
are collected as before. A package-set change (``_reload``) ``release``s the frozen
objects before it is applied, so what it drops is collected rather than kept forever (the
permanent generation is never collected); the server then collects its whole heap as any
process does.
"""

from __future__ import annotations

import gc

__all__ = ["release", "settle"]


def settle() -> None:
    """Collect, then freeze what survives: once the server is open, again after a reload."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def release() -> None:
    """Hand what ``settle`` froze back to the collector (the oldest generation)."""
    gc.unfreeze()
