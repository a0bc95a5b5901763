"""How an Agent Plugin starts: the plugin host (``adapters/_host_plan.py``), one process per
plugin, its stdio servers and its remote servers (``adapters.plugin_host._remote_plan``), its
tools named as nanobot, the reference client, names them.

Agent Plugins' own rules (the specification 1.0.0 and nanobot 0.3's loader):
``${PLUGIN_ROOT}`` and ``${PLUGIN_DATA}`` are expanded once, textually, in ``args``, ``env``
values and ``cwd`` — never in ``command``, one token (``./path`` inside the plugin, or a bare
name); ``PLUGIN_ROOT`` and ``PLUGIN_DATA`` are set in every server's environment over its
own ``env``. ``PLUGIN_DATA`` is the package's data folder (``GATEWAY_HOME/data/<id>``), the
one place it may write.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from adapters._host_plan import plan_plugin_host
from adapters.agent_plugins import _codes as codes
from adapters.plugin_host import SCHEME
from gateway.model import CatalogEntry, LaunchSpec
from gateway.sandbox import package_dirs

__all__ = ["plan_plugin"]


def plan_plugin(entry: CatalogEntry, home: Path) -> LaunchSpec | None:
    servers: dict[str, dict[str, Any]] = entry.metadata.get("stdio_servers") or {}
    root = entry.root
    data, _ = package_dirs(home, entry.id)
    return plan_plugin_host(
        entry, home, {name: _expand(server, root, str(data)) for name, server in servers.items()},
        tool_names=SCHEME, remote=True,
        not_found=lambda name, command: codes.AGENT_PLUGINS_COMMAND_NOT_FOUND(
            f"MCP server {name!r}: command {command!r} is not on PATH", contribution=name,
            package=entry.id,
        ),
    )  # fmt: skip


def _expand(server: Mapping[str, Any], root: str, data: str) -> dict[str, Any]:
    def text(value: str) -> str:
        return value.replace("${PLUGIN_ROOT}", root).replace("${PLUGIN_DATA}", data)

    cwd = server.get("cwd")
    return {
        "command": str(server["command"]),
        "args": [text(arg) for arg in server.get("args", [])],
        "env": {
            **{key: text(value) for key, value in server.get("env", {}).items()},
            "PLUGIN_ROOT": root,
            "PLUGIN_DATA": data,
        },
        "cwd": text(cwd) if isinstance(cwd, str) else None,
    }
