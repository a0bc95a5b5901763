"""Gateway names for MCP tools, prompts and resources: released nanobot's scheme (0.3.x,
``nanobot/agent/tools/mcp.py`` and ``nanobot/agent/plugins.py``), so a plugin's tools have
the same names here as in the reference host.

- The server's *host name* is the plugin's name when its ``mcp.json`` has one stdio
  server, else ``<plugin>--<server>`` (``--`` never occurs in a valid plugin name).
- A tool is ``mcp_<host>_<tool>``, a resource ``mcp_<host>_resource_<name>``, a prompt
  ``mcp_<host>_prompt_<name>``; every character outside ``[A-Za-z0-9_-]`` becomes ``_``,
  runs of ``_`` collapse to one, and a name over 64 characters is cut to 55 plus ``_`` and
  the first 8 hex digits of the SHA-1 of the full name.
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["SCHEME", "host_name", "mcp_name"]

SCHEME = "nanobot"
"""The only scheme there is (the config's ``tool_names``)."""

_OUTSIDE = re.compile(r"[^a-zA-Z0-9_-]")
_RUNS = re.compile(r"_+")
_MAX = 64
_HASH = 8


def host_name(plugin: str, server: str, server_count: int) -> str:
    return plugin if server_count == 1 else f"{plugin}--{server}"


def mcp_name(host: str, name: str, kind: str = "") -> str:
    """``kind``: "" for a tool, ``resource`` or ``prompt``."""
    raw = f"mcp_{host}_{kind}_{name}" if kind else f"mcp_{host}_{name}"
    clean = _RUNS.sub("_", _OUTSIDE.sub("_", raw))
    if len(clean) <= _MAX:
        return clean
    digest = hashlib.sha1(clean.encode("utf-8")).hexdigest()[:_HASH]
    return f"{clean[: _MAX - _HASH - 1]}_{digest}"
