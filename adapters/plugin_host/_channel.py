"""The plugin host's protocol stdio (``adapters._stdio_channel``): the MCP servers it starts
get their own pipes from the MCP client and write their stderr to ours — into the
package's log, never the channel."""

from __future__ import annotations

from adapters._stdio_channel import Channel, logger

__all__ = ["Channel", "log", "take_stdio"]

log = logger("plugin-host")


def take_stdio() -> Channel:
    return Channel.take_stdio(log)
