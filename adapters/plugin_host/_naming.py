"""Gateway names for MCP tools, prompts and resources, by the scheme of the config's
``tool_names`` — the reference host of the package's format, so a plugin's tools have the
same names here as there.

``nanobot`` (Agent Plugins; released nanobot 0.3.x, ``nanobot/agent/tools/mcp.py`` and
``nanobot/agent/plugins.py``):

- The server's *host name* is the plugin's name when its ``mcp.json`` has one stdio
  server, else ``<plugin>--<server>`` (``--`` never occurs in a valid plugin name).
- A tool is ``mcp_<host>_<tool>``, a resource ``mcp_<host>_resource_<name>``, a prompt
  ``mcp_<host>_prompt_<name>``; every character outside ``[A-Za-z0-9_-]`` becomes ``_``,
  runs of ``_`` collapse to one, and a name over 64 characters is cut to 55 plus ``_`` and
  the first 8 hex digits of the SHA-1 of the full name.

``claude`` (Claude Code plugins): a plugin server is ``plugin:<plugin>:<server>``; a tool
is ``mcp__<server>__<tool>`` with every character outside ``[A-Za-z0-9_-]`` as ``_``, so
``mcp__plugin_<plugin>_<server>__<tool>`` (docs/claude-plugins.md); a prompt (a command) the
same; a resource ``mcp__plugin_<plugin>_<server>__resource_<name>``.

``gemini`` (Gemini CLI extensions): ``mcp_<server>_<tool>``, the name Gemini CLI's hooks and
policies see, sanitised and cut as ``nanobot``'s (prompts and resources likewise).

``codex`` (Codex plugins): ``mcp__<server>__<tool>``, Codex's qualified MCP tool name, each
part's characters outside ``[A-Za-z0-9_-]`` as ``_``.
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["SCHEME", "SCHEMES", "Namer", "host_name", "mcp_name", "namer"]

SCHEME = "nanobot"
"""The default scheme (Agent Plugins)."""
CLAUDE = "claude"
GEMINI = "gemini"
CODEX = "codex"
SCHEMES = (SCHEME, CLAUDE, GEMINI, CODEX)

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


class Namer:
    """The names of one server's items under one scheme."""

    def __init__(self, scheme: str, plugin: str, server: str, server_count: int) -> None:
        self.scheme = scheme
        if scheme == CLAUDE:
            self.host = _OUTSIDE.sub("_", f"plugin:{plugin}:{server}")
        elif scheme in (GEMINI, CODEX):
            self.host = server
        else:
            self.host = host_name(plugin, server, server_count)

    def __call__(self, name: str, kind: str = "") -> str:
        """``kind``: "" for a tool, ``resource`` or ``prompt``."""
        if self.scheme in (CLAUDE, CODEX):
            item = _OUTSIDE.sub("_", f"resource_{name}" if kind == "resource" else name)
            return f"mcp__{_OUTSIDE.sub('_', self.host)}__{item}"
        return mcp_name(self.host, name, kind)


def namer(scheme: str, plugin: str, server: str, server_count: int) -> Namer:
    return Namer(scheme, plugin, server, server_count)
