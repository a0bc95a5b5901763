"""The plugin host's configuration file, written by the adapters' launch planning
(``write_config``: Agent Plugins, Claude Code plugins) at ``GATEWAY_HOME/plugin_host/<id>.json``;
its path is the only thing on the command line.

``{"package", "root", "data_dir", "servers": {name: {"command", "args", "env", "cwd"}},
"tool_names", "hooks"}``: commands already resolved to absolute paths, placeholders
already expanded, ``PLUGIN_ROOT`` and ``PLUGIN_DATA`` already in each ``env``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adapters.plugin_host._naming import SCHEME, SCHEMES
from gateway.base import GatewayError

__all__ = [
    "START_TIMEOUT_VARIABLE",
    "ConfigError",
    "HostConfig",
    "ServerSpec",
    "config_path",
    "load_config",
    "start_timeout",
    "write_config",
]

START_TIMEOUT_VARIABLE = "GATEWAY_PLUGIN_HOST_START_TIMEOUT"
"""Seconds each server gets to start, complete the MCP handshake and be listed (default 20;
the servers start together, so this bounds the whole start)."""
DEFAULT_START_TIMEOUT = 20.0


def config_path(home: Path, package_id: str) -> Path:
    """``GATEWAY_HOME/plugin_host/<id>.json``: outside the plugin's writable data."""
    from gateway.sandbox import safe_name

    return home / "plugin_host" / f"{safe_name(package_id)}.json"


def write_config(home: Path, package_id: str, document: dict[str, Any]) -> Path:
    """Write a plugin's host configuration (0600, replaced whole, never half-written) and
    return its path. Called by the adapters in the gateway, never by the host."""
    from gateway.base import private_dir, write_json_atomically

    path = config_path(home, package_id)
    private_dir(path.parent)
    write_json_atomically(path, document, indent=1)
    return path


def start_timeout() -> float:
    try:
        value = float(os.environ.get(START_TIMEOUT_VARIABLE, "") or DEFAULT_START_TIMEOUT)
    except ValueError:
        return DEFAULT_START_TIMEOUT
    return value if value > 0 else DEFAULT_START_TIMEOUT


class ConfigError(GatewayError):
    """The file is missing or not the shape above (a gateway bug, or a hand-made file)."""


@dataclass(frozen=True, slots=True)
class ServerSpec:
    name: str
    command: str
    args: list[str]
    env: dict[str, str]
    cwd: str


@dataclass(frozen=True, slots=True)
class HostConfig:
    package: str
    root: str
    data_dir: str
    servers: list[ServerSpec] = field(default_factory=list)
    tool_names: str = SCHEME
    hooks: dict[str, Any] | None = None


def _strings(value: object, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{what} must be a list of strings")
    return list(value)


def _string_map(value: object, what: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ConfigError(f"{what} must be an object of strings")
    return dict(value)


def _text(data: dict[str, Any], key: str, what: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{what}{key} must be a non-empty string")
    return value


def load_config(path: str) -> HostConfig:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError) as error:
        raise ConfigError(f"cannot read {path}: {error}") from None
    if not isinstance(data, dict):
        raise ConfigError("the configuration must be a JSON object")
    servers = data.get("servers", {})
    if not isinstance(servers, dict):
        raise ConfigError("servers must be an object")
    specs = []
    for name, raw in servers.items():
        if not isinstance(raw, dict):
            raise ConfigError(f"servers.{name} must be an object")
        where = f"servers.{name}."
        specs.append(
            ServerSpec(
                name=name,
                command=_text(raw, "command", where),
                args=_strings(raw.get("args", []), f"{where}args"),
                env=_string_map(raw.get("env", {}), f"{where}env"),
                cwd=_text(raw, "cwd", where),
            )
        )
    scheme = data.get("tool_names", SCHEME)
    if scheme not in SCHEMES:
        raise ConfigError(f"tool_names {scheme!r} is not a known scheme ({', '.join(SCHEMES)})")
    hooks = data.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise ConfigError("hooks must be an object or null")
    return HostConfig(
        package=_text(data, "package", ""),
        root=_text(data, "root", ""),
        data_dir=_text(data, "data_dir", ""),
        servers=specs,
        tool_names=scheme,
        hooks=hooks,
    )
