"""How a Codex plugin with stdio MCP servers or hooks starts: the plugin host, one process
per plugin (``adapters/_host_plan.py``), its tools named as Codex names them
(``mcp__<server>__<tool>``), its hooks run as Claude Code command hooks (Codex's hook
protocol is Claude Code's), with ``PLUGIN_ROOT``/``PLUGIN_DATA`` and their ``CLAUDE_``
twins in their environment.

A server of a root Agent Plugin's ``mcp.json`` has Agent Plugins' placeholders
(``${PLUGIN_ROOT}``, ``${PLUGIN_DATA}``) expanded, as Codex does; a ``.mcp.json`` server's
fields are used as written, a relative ``cwd`` (and the default) being the plugin's folder.
Every server gets ``PLUGIN_ROOT`` and ``PLUGIN_DATA``, and the variables its ``env_vars``
names from the values stored with ``gateway secret set`` (Codex passes them from its own
environment; the gateway never hands its environment to a package).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adapters._host_plan import plan_plugin_host, stored_secrets
from adapters.codex import _codes as codes
from gateway.model import CatalogEntry, LaunchSpec
from gateway.sandbox import package_dirs

__all__ = ["plan_plugin"]


def plan_plugin(entry: CatalogEntry, home: Path) -> LaunchSpec | None:
    servers: dict[str, dict[str, Any]] = entry.metadata.get("stdio_servers") or {}
    hooks = entry.metadata.get("hooks")
    if not servers and not hooks:
        return None  # skills only: the gateway lists them itself
    root, (data, _) = entry.root, package_dirs(home, entry.id)
    passed, diagnostics = stored_secrets(entry, home, lambda name: codes.CODEX_ENV_VAR_NOT_SET(
        f"env_vars: {name} has no stored value; the servers start without it",
        package=entry.id, contribution=name, hint=f"gateway secret set {entry.id} {name}",
    ))  # fmt: skip

    def text(value: str, placeholders: bool) -> str:
        if not placeholders:
            return value
        return value.replace("${PLUGIN_ROOT}", root).replace("${PLUGIN_DATA}", str(data))

    resolved = {}
    longest = 0.0
    for name, server in servers.items():
        expand = server.get("placeholders") == "agent-plugins"
        cwd = server.get("cwd")
        resolved[name] = {
            "command": text(server["command"], expand),
            "args": [text(arg, expand) for arg in server.get("args", [])],
            "env": {
                **passed,
                **{k: text(v, expand) for k, v in server.get("env", {}).items()},
                "PLUGIN_ROOT": root,
                "PLUGIN_DATA": str(data),
            },
            "cwd": text(cwd, expand) if isinstance(cwd, str) else None,
            "include_tools": server.get("enabled_tools"),
            "exclude_tools": list(server.get("disabled_tools", [])),
        }
        longest = max(longest, float(server.get("tool_timeout_sec", 0)))
    return plan_plugin_host(
        entry, home, resolved, tool_names="codex", diagnostics=diagnostics,
        not_found=lambda name, command: codes.CODEX_SERVER_INVALID(
            f"MCP server {name!r}: command {command!r} is neither on PATH nor in the plugin",
            package=entry.id, contribution=name,
        ),
        longest_call=longest, hooks=hooks,
    )  # fmt: skip
