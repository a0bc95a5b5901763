"""How a Gemini CLI extension with stdio MCP servers or hooks starts: the plugin host, one
process per extension (``adapters/_host_plan.py``), its tools named as Gemini CLI names them
(``mcp_<server>_<tool>``), its ``hooks/hooks.json`` run by Gemini CLI's hook protocol
(``adapters.plugin_host._gemini_hooks``), hydrated as Gemini CLI hydrates it (the variables
below and each setting's ``${ENVVAR}``), the settings' values in each hook's environment.

Each server entry is hydrated as Gemini CLI does (``variables.ts``): ``${extensionPath}`` is
the installed folder, ``${workspacePath}`` the session's workspace (filled by the plugin host
when it starts: a launch is planned before the workspace is known; a ``command`` naming it
is refused), ``${/}`` and ``${pathSeparator}`` the path separator; then ``$VAR``,
``${VAR}`` and ``${VAR:-default}`` in ``env``, ``args`` and ``cwd`` from the extension's
settings (``envResolver.ts``; here the values stored with ``gateway secret set``; the
gateway's own environment is never read for them).
Settings reach every server's environment, as in Gemini CLI. A server without ``cwd`` runs in
the extension's folder (Gemini CLI: its own working directory, which the sandbox may not let
a server read). ``timeout`` (ms) widens the response timeout; ``includeTools`` and
``excludeTools`` filter the tools offered.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Final

from adapters._host_plan import plan_plugin_host, stored_secrets
from adapters.gemini import _codes as codes
from adapters.gemini._inspect import hydrate
from gateway.model import CatalogEntry, LaunchSpec

__all__ = ["WORKSPACE", "hydrate_all", "plan_extension", "resolve_env_vars"]

WORKSPACE: Final = "${workspacePath}"
"""Filled by the plugin host with the session's workspace (``HostConfig.in_workspace``)."""

_ENV_REF: Final = re.compile(
    r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))"
)


def resolve_env_vars(value: str, values: dict[str, str]) -> str:
    """``$VAR``, ``${VAR}``, ``${VAR:-default}``; an unknown one without a default is kept."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(3)
        if name in values:
            return values[name]
        return match.group(2) if match.group(2) is not None else match.group(0)

    return _ENV_REF.sub(replace, value)


def hydrate_all(value: Any, variables: dict[str, str]) -> Any:
    """Gemini's ``recursivelyHydrateStrings``: every string in ``value``, at any depth."""
    if isinstance(value, str):
        return hydrate(value, variables)
    if isinstance(value, list):
        return [hydrate_all(item, variables) for item in value]
    if isinstance(value, dict):
        return {key: hydrate_all(item, variables) for key, item in value.items()}
    return value


def plan_extension(entry: CatalogEntry, home: Path) -> LaunchSpec | None:
    servers: dict[str, dict[str, Any]] = entry.metadata.get("stdio_servers") or {}
    hooks: dict[str, Any] | None = entry.metadata.get("hooks")
    if not servers and not hooks:
        return None  # context files, skills and commands: the gateway serves them itself
    settings, diagnostics = stored_secrets(entry, home, lambda name: (
        codes.GEMINI_SETTING_NOT_SUPPLIED(
            f"setting {name} has no stored value; its servers start without it",
            package=entry.id, contribution=name, hint=f"gateway secret set {entry.id} {name}",
        )
    ))  # fmt: skip
    # ${workspacePath} is left for the plugin host, which knows the session's workspace
    # (the gateway plans a launch before it knows which workspace will start it).
    variables = {"extensionPath": entry.root, "/": os.sep, "pathSeparator": os.sep}

    def text(value: str) -> str:
        return resolve_env_vars(hydrate(value, variables), settings)

    resolved = {}
    longest = 0.0
    for name, server in servers.items():
        cwd = server.get("cwd")
        if WORKSPACE in server["command"]:
            diagnostics.append(codes.GEMINI_SERVER_INVALID(
                f"MCP server {name!r}: its command names ${{workspacePath}}; the gateway "
                "finds a server's program when it plans the launch, before a workspace is "
                "known, and runs nothing the workspace holds as a package's program",
                package=entry.id, contribution=name,
            ))  # fmt: skip
            continue
        resolved[name] = {
            "command": hydrate(server["command"], variables),
            "args": [text(arg) for arg in server.get("args", [])],
            "env": {**settings, **{k: text(v) for k, v in server.get("env", {}).items()}},
            "cwd": text(cwd) if isinstance(cwd, str) else None,
            "include_tools": server.get("includeTools"),
            "exclude_tools": list(server.get("excludeTools", [])),
        }
        longest = max(longest, float(server.get("timeout", 0)) / 1000)
    if hooks is not None:
        # Gemini CLI hydrates its hooks with the settings' values too, and gives every
        # command hook the settings in its environment (here: the plugin host's, which
        # its hooks inherit).
        hooks = {"hooks": hydrate_all(hooks.get("hooks"), {**settings, **variables})}
    return plan_plugin_host(
        entry, home, resolved, tool_names="gemini", diagnostics=diagnostics,
        hooks=hooks, hook_protocol="gemini", env=settings, workspace_variable=WORKSPACE,
        not_found=lambda name, command: codes.GEMINI_SERVER_INVALID(
            f"MCP server {name!r}: command {command!r} is neither on PATH nor a file",
            package=entry.id, contribution=name,
        ),
        longest_call=longest,
    )  # fmt: skip
