"""The names MCP allows a tool, and the name the gateway offers for one it does not: plain
text rules, kept apart from the MCP SDK's types (``gateway migrate`` checks names without
importing them)."""

from __future__ import annotations

import hashlib
import re

__all__ = ["MCP_TOOL_NAME", "mcp_name"]

MCP_TOOL_NAME = re.compile(r"^[A-Za-z0-9._-]{1,128}$")
"""The MCP tool-name rule (SEP-986)."""


def mcp_name(name: str) -> str:
    """``name`` when MCP allows it, else a name it allows, the same for the same ``name``:
    forbidden characters as ``_``, cut to fit, and 8 hex digits of the original's digest so
    two names that clean up alike stay apart."""
    if MCP_TOOL_NAME.match(name):
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "_", name)[: 128 - 9]
    return f"{cleaned}-{digest}"
