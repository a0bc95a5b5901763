"""The plugin host's protocol stdio (``adapters._stdio_channel``): the MCP servers it starts
get their own pipes from the MCP client and write their stderr to ours — into the
package's log, never the channel."""

from __future__ import annotations

from adapters._stdio_channel import Channel, logger

__all__ = ["Channel", "describe_error", "log", "take_stdio"]

log = logger("plugin-host")


def describe_error(error: BaseException) -> str:
    """The innermost message of an error or an exception group, one line."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


def take_stdio() -> Channel:
    return Channel.take_stdio(log)
