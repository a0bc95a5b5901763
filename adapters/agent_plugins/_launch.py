"""How an Agent Plugin starts: the plugin host (``adapters/plugin_host``), one process per
plugin, given a configuration file that holds each stdio server resolved for this machine
and its remote servers (``adapters.plugin_host._remote_plan``).

At plan time each server's command is resolved — ``./path`` inside the plugin, or a bare
name on PATH — and its real executable and runtime (the Python installation, Node's) are
added to the launch's ``reads`` so the confined servers can execute them. ``${PLUGIN_ROOT}``
and ``${PLUGIN_DATA}`` are expanded in ``args``, ``env`` and ``cwd``; ``PLUGIN_DATA`` is the
package's data folder (``GATEWAY_HOME/data/<id>``), the one place it may write.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

from adapters.agent_plugins import _codes as codes
from adapters.nanobot import SOURCE_ROOT, response_timeout
from adapters.plugin_host._config import config_path, start_timeout, write_config
from adapters.plugin_host._naming import SCHEME
from adapters.plugin_host._remote_plan import plan_remote
from gateway.base import Diagnostic, private_dir
from gateway.model import CatalogEntry, LaunchSpec
from gateway.sandbox import node_runtime_paths, package_dirs, python_runtime_paths

__all__ = ["HOST_COMMAND", "config_file", "plan_plugin_host", "resolve_command"]

HOST_COMMAND: tuple[str, ...] = (sys.executable, "-P", "-m", "adapters.plugin_host")
"""``-P``: the workspace (the working directory) is not on ``sys.path``."""


def config_file(home: Path, package_id: str) -> Path:
    """Where a plugin's host configuration is (``adapters.plugin_host._config``)."""
    return config_path(home, package_id)


def resolve_command(command: str, root: Path) -> Path | None:
    """``./x`` inside the plugin (its real path inside the real root), or a bare name on
    the gateway's PATH; None when neither."""
    if command.startswith("./"):
        real_root = Path(os.path.realpath(root))
        candidate = Path(os.path.realpath(root / command[2:]))
        inside = candidate.is_relative_to(real_root)
        return candidate if inside and candidate.is_file() else None
    found = shutil.which(command)
    return Path(found) if found else None


def runtime_reads(executable: Path) -> list[Path]:
    """The executable and the installation it runs from."""
    real = Path(os.path.realpath(executable))
    reads = [executable, real]
    if real == Path(os.path.realpath(sys.executable)):
        reads += python_runtime_paths()  # the gateway's own Python (a venv of it included)
    elif real.name.startswith("python"):
        venv = executable.parent.parent
        if (venv / "pyvenv.cfg").is_file():
            reads.append(venv)
        reads.append(real.parent.parent)
    elif real.name in ("node", "bun", "deno") or executable.name in ("npx", "npm", "node"):
        reads += node_runtime_paths(executable)
    return reads


def _expand(value: str, root: Path, data: Path) -> str:
    return value.replace("${PLUGIN_ROOT}", str(root)).replace("${PLUGIN_DATA}", str(data))


def _cwd(raw: object, root: Path, data: Path) -> Path:
    if not isinstance(raw, str):
        return root
    if raw.startswith("./"):
        return root / raw[2:]
    path = Path(_expand(raw, root, data))
    if raw.startswith("${PLUGIN_DATA}"):
        private_dir(path)  # a rule and a cwd need it there
    return path


def plan_plugin_host(entry: CatalogEntry, home: Path) -> LaunchSpec | None:
    servers: dict[str, dict[str, Any]] = entry.metadata.get("stdio_servers") or {}
    remote = plan_remote(entry, home)
    if not servers and not remote.servers:
        return None  # skills only: the gateway serves them itself
    root = Path(entry.root)
    data, _ = package_dirs(home, entry.id)
    diagnostics: list[Diagnostic] = list(remote.diagnostics)
    reads: list[Path] = [*python_runtime_paths(), SOURCE_ROOT]
    resolved: dict[str, dict[str, Any]] = {}
    for name, server in servers.items():
        command = str(server["command"])
        executable = resolve_command(command, root)
        if executable is None:
            diagnostics.append(codes.AGENT_PLUGINS_COMMAND_NOT_FOUND(
                f"MCP server {name!r}: command {command!r} is not on PATH", contribution=name,
                package=entry.id,
            ))  # fmt: skip
        else:
            reads += runtime_reads(executable)
        env = {key: _expand(value, root, data) for key, value in server.get("env", {}).items()}
        resolved[name] = {
            "command": str(executable) if executable is not None else command,
            "args": [_expand(arg, root, data) for arg in server.get("args", [])],
            "env": {
                **env,
                "PYTHONDONTWRITEBYTECODE": "1",
                "PLUGIN_ROOT": str(root),
                "PLUGIN_DATA": str(data),
            },
            "cwd": str(_cwd(server.get("cwd"), root, data)),
        }
    document = {
        "package": entry.id,
        "root": str(root),
        "data_dir": str(data),
        "servers": resolved,
        "tool_names": SCHEME,
        "hooks": entry.metadata.get("hooks"),
        **remote.document,
    }
    path = write_config(home, entry.id, document)
    named = [str(server["command"]) for server in servers.values()]
    return LaunchSpec(
        command=[*HOST_COMMAND, "--config", str(path)],
        response_timeout=response_timeout(),
        # The host registers once every server has started or failed (each bounded).
        start_timeout=start_timeout() + 15,
        diagnostics=diagnostics,
        reads=tuple(dict.fromkeys([*reads, path])),
        writes=(data, *remote.writes),
        env=remote.env,
        # A server whose command was missing starts once it is there (the cache is keyed
        # on what each name resolves to). One inside the plugin is its content.
        programs=tuple(dict.fromkeys(c for c in named if not c.startswith("./"))),
    )
