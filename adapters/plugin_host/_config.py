"""The plugin host's configuration file, written by the adapters' launch planning
(``write_config``, from ``adapters/_host_plan.py``: Agent Plugins, Claude Code plugins,
Codex plugins, Gemini CLI extensions) at ``GATEWAY_HOME/plugin_host/<id>.json``;
its path is the only thing on the command line.

``{"package", "root", "data_dir", "servers": {name: {"command", "args", "env", "cwd",
"include_tools"?, "exclude_tools"?}}, "remote": {name: {"transport", "url", "headers",
"grant"}}, "sign_ins", "tool_names", "hooks", "hook_protocol", "hook_types", "commands",
"shell_timeout", "workspace_variable"}``: commands
already resolved to absolute paths, placeholders already expanded, ``PLUGIN_ROOT`` and
``PLUGIN_DATA`` already in each ``env``; remote servers as ``_remote_plan`` plans them
(header values still name their variables); ``hook_types``: the hook types the format
has (default ``["command"]``; Claude Code's adds ``http`` and ``mcp_tool``; Gemini CLI's are
command hooks only, whatever it says); ``commands``:
a Claude Code plugin's slash commands with ``!`` shell lines (``_shell_commands``),
``shell_timeout`` the seconds each line may take.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from adapters.plugin_host._naming import SCHEME, SCHEMES
from gateway.base import GatewayError, environment_seconds

__all__ = [
    "START_TIMEOUT_VARIABLE",
    "TIMEOUT_VARIABLE",
    "ConfigError",
    "HostConfig",
    "RemoteSpec",
    "ServerSpec",
    "config_path",
    "load_config",
    "response_timeout",
    "start_timeout",
    "write_config",
]

START_TIMEOUT_VARIABLE = "GATEWAY_PLUGIN_HOST_START_TIMEOUT"
"""Seconds each server gets to start, complete the MCP handshake and be listed (default 20;
the servers start together, so this bounds the whole start)."""
DEFAULT_START_TIMEOUT = 20.0
TIMEOUT_VARIABLE = "GATEWAY_PLUGIN_HOST_TIMEOUT"
"""Seconds the gateway waits for each reply of a plugin host (default 30; ``none`` waits
forever); a format's own longer limits (a hook's ``timeout``, a server's tool timeout)
widen it for that package."""
DEFAULT_TIMEOUT = 30.0


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


def response_timeout() -> float | None:
    return environment_seconds(TIMEOUT_VARIABLE, DEFAULT_TIMEOUT)


class ConfigError(GatewayError):
    """The file is missing or not the shape above (a gateway bug, or a hand-made file)."""


@dataclass(frozen=True, slots=True)
class ServerSpec:
    name: str
    command: str
    args: list[str]
    env: dict[str, str]
    cwd: str
    include_tools: list[str] | None = None
    """Only these tools are offered (Gemini's ``includeTools``, Codex's ``enabled_tools``)."""
    exclude_tools: list[str] = field(default_factory=list)
    """These are not (``excludeTools``, ``disabled_tools``); it wins over ``include_tools``."""
    missing: bool = False
    """The gateway found its command on no PATH and said so (``*.command_not_found``): its
    failure to start is not said a second time."""

    def offers(self, tool: str) -> bool:
        if tool in self.exclude_tools:
            return False
        return self.include_tools is None or tool in self.include_tools


@dataclass(frozen=True, slots=True)
class RemoteSpec:
    name: str
    transport: str  # "streamable-http" | "sse"
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    grant: str = ""
    """The permission that opens the sandbox to it: ``network:HOST:PORT``."""

    def offers(self, tool: str) -> bool:
        """Every tool: no format read here declares a tool filter for a remote server."""
        return True


@dataclass(frozen=True, slots=True)
class HostConfig:
    package: str
    root: str
    data_dir: str
    servers: list[ServerSpec] = field(default_factory=list)
    tool_names: str = SCHEME
    hooks: dict[str, Any] | None = None
    hook_protocol: str = "claude"
    """Whose hook protocol ``hooks`` speaks: ``claude`` (Claude Code, Codex) or ``gemini``."""
    hook_types: tuple[str, ...] = ("command",)
    remote: list[RemoteSpec] = field(default_factory=list)
    commands: list[Any] = field(default_factory=list)
    """Raw: ``_shell_commands`` reads them, loaded only when there are some."""
    shell_timeout: float = 20.0
    sign_ins: str | None = None
    """The package's sign-in folder (``gateway.packages.sign_ins``), when it has remote
    servers: the only place beside its data the host writes (refreshed tokens)."""
    workspace_variable: str | None = None
    """A placeholder (Gemini's ``${workspacePath}``) in the servers' ``args``, ``env``,
    ``cwd`` and in ``hooks`` that ``in_workspace`` fills with the session's workspace."""

    def in_workspace(self, workspace: str) -> HostConfig:
        """This configuration with ``workspace_variable`` replaced by ``workspace``."""
        variable = self.workspace_variable
        if not variable:
            return self

        def fill(value: Any) -> Any:
            if isinstance(value, str):
                return value.replace(variable, workspace)
            if isinstance(value, list):
                return [fill(item) for item in value]
            if isinstance(value, dict):
                return {key: fill(item) for key, item in value.items()}
            return value

        servers = [
            replace(spec, args=fill(spec.args), env=fill(spec.env), cwd=fill(spec.cwd))
            for spec in self.servers
        ]
        return replace(self, servers=servers, hooks=fill(self.hooks), workspace_variable=None)


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
                include_tools=None
                if raw.get("include_tools") is None
                else _strings(raw["include_tools"], f"{where}include_tools"),
                exclude_tools=_strings(raw.get("exclude_tools", []), f"{where}exclude_tools"),
                missing=raw.get("missing") is True,
            )
        )
    scheme = data.get("tool_names", SCHEME)
    if scheme not in SCHEMES:
        raise ConfigError(f"tool_names {scheme!r} is not a known scheme ({', '.join(SCHEMES)})")
    hooks = data.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise ConfigError("hooks must be an object or null")
    hook_protocol = data.get("hook_protocol", "claude")
    if hook_protocol not in ("claude", "gemini"):
        raise ConfigError(f"hook_protocol {hook_protocol!r} is neither claude nor gemini")
    hook_types = tuple(_strings(data.get("hook_types", ["command"]), "hook_types"))
    sign_ins = data.get("sign_ins")
    if sign_ins is not None and (not isinstance(sign_ins, str) or not os.path.isabs(sign_ins)):
        raise ConfigError("sign_ins must be an absolute path or null")
    commands = data.get("commands", [])
    if not isinstance(commands, list):
        raise ConfigError("commands must be a list")
    workspace_variable = data.get("workspace_variable")
    if workspace_variable is not None and (
        not isinstance(workspace_variable, str) or not workspace_variable
    ):
        raise ConfigError("workspace_variable must be a non-empty string or absent")
    shell_timeout = data.get("shell_timeout", 20.0)
    if not isinstance(shell_timeout, int | float) or shell_timeout <= 0:
        raise ConfigError("shell_timeout must be a positive number")
    return HostConfig(
        package=_text(data, "package", ""),
        root=_text(data, "root", ""),
        data_dir=_text(data, "data_dir", ""),
        servers=specs,
        tool_names=scheme,
        hooks=hooks,
        hook_protocol=hook_protocol,
        hook_types=hook_types,
        remote=_remote(data.get("remote", {})),
        sign_ins=sign_ins,
        commands=commands,
        shell_timeout=float(shell_timeout),
        workspace_variable=workspace_variable,
    )


def _remote(servers: object) -> list[RemoteSpec]:
    if not isinstance(servers, dict):
        raise ConfigError("remote must be an object")
    specs = []
    for name, raw in servers.items():
        if not isinstance(raw, dict):
            raise ConfigError(f"remote.{name} must be an object")
        where = f"remote.{name}."
        transport = _text(raw, "transport", where)
        if transport not in ("streamable-http", "sse"):
            raise ConfigError(f"{where}transport {transport!r} is not streamable-http or sse")
        specs.append(
            RemoteSpec(
                name=name,
                transport=transport,
                url=_text(raw, "url", where),
                headers=_string_map(raw.get("headers", {}), f"{where}headers"),
                grant=_text(raw, "grant", where),
            )
        )
    return specs
