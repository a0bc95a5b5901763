"""A Claude Code plugin's hooks and MCP servers, read at inspection.

Hooks come from ``hooks/hooks.json`` and the manifest's ``hooks`` (paths or inline
objects); they are merged into one hooks.json object, event by event, in that order, and
checked with the plugin host's own reader (``adapters.plugin_host._hook_config``), so what
``inspect`` reports is what will run. MCP servers come from ``.mcp.json`` and the
manifest's ``mcpServers``, in Claude's format — ``{"mcpServers": {name: {...}}}`` or the
servers at the top level; stdio servers (``command``, ``args``, ``env``, ``cwd``) run in
the plugin host; ``http``/``sse`` servers are connected by it (``_remote``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from adapters import _codes as adapters_codes
from adapters._files import ABSENT, Inspection, safe_is_file, type_name
from adapters.claude_plugins import _codes as codes
from adapters.claude_plugins._remote import REMOTE_TYPES, read_remote
from adapters.plugin_host import (
    EVENT_OF,
    HOOK_KINDS,
    HttpHook,
    McpToolHook,
    network_grant,
    own_server,
    read_hooks,
)
from gateway.model import Permission

__all__ = ["HOOKS_FILE", "MCP_FILE", "hook_needs", "read_hook_sources", "read_mcp_servers"]

_HEADER_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")

HOOKS_FILE: Final = "hooks/hooks.json"
MCP_FILE: Final = ".mcp.json"


def read_hook_sources(
    inspection: Inspection, extra: list[Any]
) -> tuple[dict[str, Any] | None, list[str]]:
    """The plugin's hooks as one hooks.json object of the events the gateway has (None:
    nothing that can run; every problem is already a diagnostic), and the events it has
    hooks for that never run in the gateway."""
    sources: list[tuple[str, Any]] = []
    if safe_is_file(inspection.root / HOOKS_FILE):
        sources.append((HOOKS_FILE, inspection.read_json(HOOKS_FILE)))
    for item in extra:
        if isinstance(item, str):
            if item != HOOKS_FILE:
                sources.append((item, inspection.read_json(item)))
        else:
            sources.append(("plugin.json hooks", item))
    merged: dict[str, list[Any]] = {}
    skipped: list[str] = []
    for label, data in sources:
        if not isinstance(data, Mapping):
            if data is not ABSENT:
                inspection.add(
                    adapters_codes.CLAUDE_HOOKS_INVALID(
                        f"{label}: {type_name(data)}, not an object"
                    )
                )
            continue
        _, problems = read_hooks(data, HOOK_KINDS)
        for problem in problems:
            message = problem.message.replace("hooks.json", label, 1)
            inspection.add(adapters_codes.declared(problem.code)(message))
        events = data.get("hooks", data)
        if not isinstance(events, Mapping):
            continue
        for event, groups in events.items():
            if event in EVENT_OF and isinstance(groups, list):
                merged.setdefault(str(event), []).extend(groups)
            elif event not in EVENT_OF and str(event) not in skipped:
                skipped.append(str(event))
    # Only what can run: the events the gateway has, with at least one hook that runs.
    runnable, _ = read_hooks({"hooks": merged}, HOOK_KINDS)
    return ({"hooks": merged} if runnable else None), skipped


def hook_needs(
    inspection: Inspection, hooks: dict[str, Any] | None, plugin: str, servers: list[str]
) -> tuple[list[Permission], list[str]]:
    """What the plugin's http and mcp_tool hooks need: an optional ``network:HOST:PORT``
    permission per http hook destination, and the variables their headers take from
    ``allowedEnvVars`` (the package's secrets: ``gateway secret set``). An mcp_tool hook
    naming a server that is not the plugin's own is said here (it never runs)."""
    found, _ = read_hooks(hooks, HOOK_KINDS) if hooks else ([], [])
    permissions: dict[str, Permission] = {}
    secrets: list[str] = []
    for hook in found:
        if isinstance(hook, HttpHook):
            grant = network_grant(hook.url)
            reason = f"its {hook.event} http hook posts events to {hook.url}"
            permissions.setdefault(grant, Permission(grant, reason=reason, optional=True))
            for value in hook.headers.values():
                for match in _HEADER_VARIABLE.finditer(value):
                    name = match.group(1) or match.group(2)
                    if name in hook.allowed_env and name not in secrets:
                        secrets.append(name)
        elif isinstance(hook, McpToolHook) and own_server(hook.server, plugin, servers) is None:
            inspection.add(adapters_codes.declared("claude.hook_mcp_server_unknown")(
                f"hooks: {hook.where} calls a tool of MCP server {hook.server!r}, which is not "
                f"one of the plugin's own ({', '.join(servers) or 'it has none'}); it never runs"
            ))  # fmt: skip
    return list(permissions.values()), secrets


def read_mcp_servers(
    inspection: Inspection, extra: list[Any]
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """The stdio servers (raw: ``${CLAUDE_PLUGIN_ROOT}`` is expanded when the plugin
    starts, its folder known) and the remote ones (``_remote``)."""
    sources: list[tuple[str, Any]] = []
    if safe_is_file(inspection.root / MCP_FILE):
        sources.append((MCP_FILE, inspection.read_json(MCP_FILE)))
    for item in extra:
        if isinstance(item, str):
            if item != MCP_FILE:
                sources.append((item, inspection.read_json(item)))
        else:
            sources.append(("plugin.json mcpServers", item))
    stdio: dict[str, dict[str, Any]] = {}
    remote: dict[str, dict[str, Any]] = {}
    invalid = codes.CLAUDE_MCP_INVALID
    for label, data in sources:
        if not isinstance(data, Mapping):
            if data is not ABSENT:
                inspection.add(invalid(f"{label}: {type_name(data)}, not an object"))
            continue
        servers = data.get("mcpServers", data)
        if not isinstance(servers, Mapping):
            inspection.add(invalid(f"{label}: `mcpServers` is not an object"))
            continue
        for name, server in servers.items():
            where = f"{label}: server {name!r}"
            if not isinstance(server, Mapping):
                inspection.add(invalid(f"{where} is not an object"))
                continue
            kind = server.get("type", "stdio")
            if kind in REMOTE_TYPES or ("url" in server and "command" not in server):
                found = read_remote(inspection, where, server)
                if found is not None:
                    remote[str(name)] = found
                continue
            checked = _stdio(server)
            if isinstance(checked, str):
                inspection.add(invalid(f"{where}: {checked}"))
                continue
            stdio[str(name)] = checked
    return stdio, remote


def _stdio(server: Mapping[str, Any]) -> dict[str, Any] | str:
    command = server.get("command")
    if not isinstance(command, str) or not command.strip():
        return "no `command`"
    args = server.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return "`args` is not a list of strings"
    env = server.get("env", {})
    if not isinstance(env, Mapping) or not all(isinstance(v, str) for v in env.values()):
        return "`env` is not an object of strings"
    cwd = server.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        return "`cwd` is not a string"
    found: dict[str, Any] = {"command": command, "args": list(args), "env": dict(env)}
    if cwd is not None:
        found["cwd"] = cwd
    return found
