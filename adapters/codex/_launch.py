"""How a Codex plugin with stdio MCP servers or hooks starts: the plugin host, one process
per plugin (``adapters/_host_plan``), its tools named as Codex names them
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

import os
import shlex
from pathlib import Path
from typing import Any

from adapters._host_plan import plan_servers, stored_secrets
from adapters.codex import _codes as codes
from gateway.model import CatalogEntry, LaunchSpec
from gateway.runtime import program_reads
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
            "cwd": str(Path(root) / text(cwd, expand)) if isinstance(cwd, str) else root,
            "include_tools": server.get("enabled_tools"),
            "exclude_tools": list(server.get("disabled_tools", [])),
        }
        longest = max(longest, float(server.get("tool_timeout_sec", 0)))
    return plan_servers(
        entry, home, resolved, tool_names="codex", data=data, diagnostics=diagnostics,
        not_found=lambda name, command: codes.CODEX_SERVER_INVALID(
            f"MCP server {name!r}: command {command!r} is neither on PATH nor in the plugin",
            package=entry.id, contribution=name,
        ),
        response_seconds=longest or None, hooks=hooks,
        extra_reads=program_reads(_hook_programs(hooks), path_env=os.environ.get("PATH"),
                                  home=Path.home(), guarded=(home,), own=Path(root)),
    )  # fmt: skip


def _hook_programs(hooks: object) -> list[str]:
    events = hooks.get("hooks") if isinstance(hooks, dict) else None
    found = []
    for groups in (events or {}).values():
        for group in groups if isinstance(groups, list) else []:
            for hook in group.get("hooks", []) if isinstance(group, dict) else []:
                command = hook.get("command") if isinstance(hook, dict) else None
                try:
                    words = shlex.split(command) if isinstance(command, str) else []
                except ValueError:
                    continue
                found += words[:1]
    return found
