"""How a Claude Code plugin with hooks or MCP servers starts: the plugin host
(``adapters/_host_plan.py``), one process per plugin, running its stdio servers, its remote
servers and its command hooks (``hooks.json``) on the gateway's hook chain; the servers'
tools named as Claude Code names a plugin's MCP tools,
``mcp__plugin_<plugin>_<server>__<tool>`` (``tool_names: "claude"``).

Claude Code's own rules (its plugins reference): ``${CLAUDE_PLUGIN_ROOT}`` and
``${CLAUDE_PLUGIN_DATA}`` are substituted in a server's ``command``, ``args``, ``env`` and
``cwd`` (the installed folder and the package's data folder; the reference's own example
names a server's ``command`` by ``${CLAUDE_PLUGIN_ROOT}``); other ``${VAR}`` references are
passed as written (the gateway never hands its environment to a package). The hook commands
get both in their environment, where the shell expands them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from adapters._host_plan import plan_plugin_host
from adapters.claude_plugins import _codes as codes
from gateway.model import CatalogEntry, LaunchSpec
from gateway.sandbox import package_dirs

__all__ = ["plan_plugin"]

_ROOT, _DATA = "${CLAUDE_PLUGIN_ROOT}", "${CLAUDE_PLUGIN_DATA}"
TOOL_NAMES: Final = "claude"


def plan_plugin(entry: CatalogEntry, home: Path) -> LaunchSpec | None:
    data, _ = package_dirs(home, entry.id)
    servers = {
        name: _expand(server, entry.root, str(data))
        for name, server in dict(entry.metadata.get("mcp_servers") or {}).items()
    }
    return plan_plugin_host(
        entry, home, servers, tool_names=TOOL_NAMES, hooks=entry.metadata.get("hooks"),
        remote=True,
        not_found=lambda name, command: codes.CLAUDE_COMMAND_NOT_FOUND(
            f"MCP server {name!r}: command {command!r} is neither a file nor on PATH",
            package=entry.id, contribution=name,
        ),
    )  # fmt: skip


def _expand(server: Mapping[str, Any], root: str, data: str) -> dict[str, Any]:
    def text(value: str) -> str:
        return value.replace(_ROOT, root).replace(_DATA, data)

    return {
        "command": text(server["command"]),
        "args": [text(a) for a in server.get("args", [])],
        "env": {k: text(v) for k, v in dict(server.get("env", {})).items()},
        "cwd": text(server["cwd"]) if server.get("cwd") else None,
    }
