"""A Codex plugin's components beside its skills: MCP servers (``.mcp.json`` or an inline
``mcpServers``; each entry a Codex MCP server config, the keys of ``config.toml``'s
``[mcp_servers.<name>]``), apps (``.app.json``) and hooks (Claude Code's ``hooks.json`` shape).

Observed in ``codex mcp list --json`` (0.171.0): ``type`` is ignored (a ``url`` is always
streamable HTTP), Claude's ``headers`` is ignored, an entry with neither ``command`` nor
``url`` is dropped (here: reported); a relative ``cwd`` is the plugin's folder's.
"""

from __future__ import annotations

from typing import Any, Final

from adapters._files import Inspection, safe_is_file, type_name
from adapters.codex import _codes as codes
from adapters.codex._reading import PluginReading
from gateway.model import Contribution

__all__ = ["read_apps", "read_hooks", "read_servers"]

_TYPES: Final[dict[str, type | tuple[type, ...]]] = {
    "command": str, "args": list, "env": dict, "env_vars": list, "cwd": str, "url": str,
    "bearer_token_env_var": str, "http_headers": dict, "env_http_headers": dict,
    "startup_timeout_sec": (int, float), "tool_timeout_sec": (int, float),
    "enabled_tools": list, "disabled_tools": list, "enabled": bool,
}  # fmt: skip


def _problem(raw: object) -> str | None:
    if not isinstance(raw, dict):
        return f"is {type_name(raw)}, not an object"
    for key, kind in _TYPES.items():
        if key in raw and not isinstance(raw[key], kind):
            return f"{key} is {type_name(raw[key])}"
    for key in ("args", "env_vars", "enabled_tools", "disabled_tools"):
        if not all(isinstance(item, str) for item in raw.get(key, [])):
            return f"{key} holds something other than strings"
    if not all(isinstance(v, str) for v in raw.get("env", {}).values()):
        return "env holds a value that is not a string"
    if "command" not in raw and "url" not in raw:
        return "neither `command` (stdio) nor `url` (streamable HTTP)"
    return None


def read_servers(
    inspection: Inspection, reading: PluginReading, inline: dict[str, Any] | None, paths: list[str]
) -> None:
    servers: dict[str, Any] = dict(inline or {})
    where = "plugin.json mcpServers"
    for rel in paths:
        if not safe_is_file(inspection.root / rel):
            continue
        data = inspection.read_json_object(rel)
        if data is None:
            continue
        where = rel
        found = data.get("mcpServers")
        if not isinstance(found, dict):
            inspection.add(codes.CODEX_SERVER_INVALID(f"{rel}: mcpServers is not an object"))
            continue
        servers.update(found)
    for name, raw in servers.items():
        problem = _problem(raw)
        if problem is not None:
            inspection.add(codes.CODEX_SERVER_INVALID(
                f"{where}: server {name!r} {problem}; skipped", contribution=name
            ))  # fmt: skip
            continue
        if raw.get("enabled") is False:
            continue
        if "url" in raw:
            reading.remote[name] = "streamable-http"
            reading.contributions.append(Contribution(
                kind="mcp_server", name=name, description="streamable-http MCP server",
                detail={"transport": "streamable-http", "path": where},
            ))  # fmt: skip
            inspection.add(codes.CODEX_REMOTE_SERVER(
                f"{where}: streamable-http server {name!r} is listed, not connected",
                contribution=name,
            ))  # fmt: skip
            continue
        spec = {
            key: raw[key]
            for key in (
                "command",
                "args",
                "env",
                "cwd",
                "enabled_tools",
                "disabled_tools",
                "tool_timeout_sec",
            )
            if key in raw
        }
        reading.stdio[name] = spec
        reading.env_vars += [v for v in raw.get("env_vars", []) if v not in reading.env_vars]
        command = " ".join([raw["command"], *raw.get("args", [])])
        reading.contributions.append(Contribution(
            kind="mcp_server", name=name, description=f"stdio MCP server: {command}",
            detail={"transport": "stdio", "path": where},
        ))  # fmt: skip


def read_apps(inspection: Inspection, reading: PluginReading, paths: list[str]) -> None:
    for rel in paths:
        if not safe_is_file(inspection.root / rel):
            continue
        data = inspection.read_json_object(rel)
        apps = data.get("apps") if data is not None else None
        if not isinstance(apps, dict):
            if data is not None:
                inspection.add(codes.CODEX_APP_UNSUPPORTED(f"{rel}: apps is not an object"))
            continue
        for name, app in apps.items():
            app_id = app.get("id") if isinstance(app, dict) else None
            reading.contributions.append(Contribution(
                kind="app", name=name, description=f"ChatGPT app connector {app_id}",
                detail={"path": rel, "id": app_id},
            ))  # fmt: skip
            inspection.add(codes.CODEX_APP_UNSUPPORTED(
                f"{rel}: app {name!r} ({app_id}) is a ChatGPT connector Codex reaches through "
                "its hosted codex_apps server under ChatGPT sign-in; not run",
                contribution=name,
            ))  # fmt: skip


def read_hooks(
    inspection: Inspection, reading: PluginReading, field: object, paths: list[str]
) -> None:
    """Every hooks document (the files, and inline objects in the manifest's ``hooks``),
    merged event by event, for the plugin host's Claude Code command hooks."""
    documents: list[tuple[str, object]] = []
    inline = field if isinstance(field, list) else [field]
    documents += [("plugin.json hooks", item) for item in inline if isinstance(item, dict)]
    for rel in paths:
        if safe_is_file(inspection.root / rel):
            data = inspection.read_json_object(rel)
            if data is not None:
                documents.append((rel, data))
    merged: dict[str, list[Any]] = {}
    for where, document in documents:
        hooks = document.get("hooks") if isinstance(document, dict) else None
        if not isinstance(hooks, dict) or not all(isinstance(v, list) for v in hooks.values()):
            inspection.add(codes.CODEX_HOOKS_INVALID(
                f'{where}: not {{"hooks": {{Event: [...]}}}}; no hook of it is read'
            ))  # fmt: skip
            continue
        for event, groups in hooks.items():
            merged.setdefault(str(event), []).extend(groups)
    if merged:
        reading.hooks = {"hooks": merged}
        reading.contributions += [
            Contribution(kind="hook", name=event, detail={"path": "hooks"}) for event in merged
        ]
