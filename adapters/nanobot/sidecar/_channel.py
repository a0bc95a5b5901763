"""The nanobot sidecar's protocol stdio (``adapters._stdio_channel``).

Before ``register`` the sidecar reads ``initialize`` with plain blocking reads (no event
loop has been imported yet); ``Channel.take_buffer`` hands whatever was read past that line
to the event-loop reader in ``_server``."""

from __future__ import annotations

from adapters._stdio_channel import Channel, logger

__all__ = ["Channel", "log", "take_stdio"]

log = logger("nanobot-sidecar")


def take_stdio() -> Channel:
    return Channel.take_stdio(log)
