"""The plugin host's protocol stdio (``adapters._stdio_channel``): the MCP servers it starts
get their own pipes from the MCP client and write their stderr to ours — into the
package's log, never the channel."""

from __future__ import annotations

from adapters._stdio_channel import Channel, logger

__all__ = ["Channel", "describe_error", "log", "take_stdio"]

log = logger("plugin-host")


def describe_error(error: BaseException, command: str | None = None) -> str:
    """The innermost message of an error or an exception group, one line. ``command``: the
    program being started, whose absence (not on PATH, no such file) or refusal to run is
    said in words rather than as ``FileNotFoundError: [Errno 2] …``."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    if command and isinstance(error, OSError) and error.filename == command:
        if isinstance(error, FileNotFoundError):
            return f"{command}: " + ("no such file" if "/" in command else "not found on PATH")
        if isinstance(error, PermissionError):
            return f"{command}: permission denied (is it executable?)"
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


def take_stdio() -> Channel:
    return Channel.take_stdio(log)
