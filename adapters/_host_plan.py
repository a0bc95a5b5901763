"""The plugin host's launch for a package whose stdio MCP servers are already resolved for
this machine (Gemini CLI extensions, Codex plugins): commands found (an absolute path, or a
bare name on the gateway's PATH), each runtime's installation added to the sandbox's reads,
the configuration written (``adapters.plugin_host``), one process per package.

Also the stored values of the secrets a package declares (Gemini's ``settings``, Codex's
``env_vars``), which reach its servers' environments and nothing else.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from adapters.agent_plugins._launch import runtime_reads
from adapters.nanobot import SOURCE_ROOT, response_timeout
from adapters.plugin_host._config import start_timeout, write_config
from gateway.base import Diagnostic
from gateway.model import CatalogEntry, LaunchSpec
from gateway.packages.secrets import SecretsError, read_secrets
from gateway.sandbox import python_runtime_paths

__all__ = ["HOST_COMMAND", "find_command", "plan_servers", "stored_secrets"]

HOST_COMMAND: Final = (sys.executable, "-P", "-m", "adapters.plugin_host")
"""``-P``: the workspace (the working directory) is not on ``sys.path``."""


def find_command(command: str, root: Path) -> Path | None:
    """An absolute path to a file (inside the package or not), a ``./`` path inside the
    package, or a bare name on PATH; None when none is."""
    if command.startswith("./"):
        real_root = Path(os.path.realpath(root))
        candidate = Path(os.path.realpath(root / command[2:]))
        return candidate if candidate.is_relative_to(real_root) and candidate.is_file() else None
    if os.path.isabs(command):
        return Path(command) if os.path.isfile(command) else None
    if "/" in command:
        return None
    found = shutil.which(command)
    return Path(found) if found else None


def stored_secrets(
    entry: CatalogEntry, home: Path, missing: Callable[[str], Diagnostic]
) -> tuple[dict[str, str], list[Diagnostic]]:
    """The values stored (``gateway secret set``) for the secrets ``entry`` declares, and a
    diagnostic (``missing(name)``) for each one that has none."""
    try:
        stored = read_secrets(home, entry.id)
    except SecretsError as error:
        return {}, [missing(f"its secrets cannot be read: {error}")]
    values = {name: stored[name] for name in entry.secrets if name in stored}
    return values, [missing(name) for name in entry.secrets if name not in stored]


def plan_servers(
    entry: CatalogEntry,
    home: Path,
    servers: dict[str, dict[str, Any]],
    *,
    tool_names: str,
    data: Path,
    not_found: Callable[[str, str], Diagnostic],
    diagnostics: list[Diagnostic],
    response_seconds: float | None = None,
    hooks: dict[str, Any] | None = None,
    extra_reads: tuple[Path, ...] = (),
) -> LaunchSpec:
    """``servers``: name → ``{command, args, env, cwd, include_tools?, exclude_tools?}``
    with every placeholder expanded; ``not_found(server, command)`` says a command is
    missing (that server then fails to start, the others run); ``hooks``: a Claude-protocol
    ``hooks.json`` object the host runs on the gateway's hook chain (Codex's)."""
    root = Path(entry.root)
    reads: list[Path] = [*python_runtime_paths(), SOURCE_ROOT]
    resolved: dict[str, dict[str, Any]] = {}
    for name, server in servers.items():
        executable = find_command(server["command"], root)
        if executable is None:
            diagnostics.append(not_found(name, server["command"]))
        else:
            reads += runtime_reads(executable)
        resolved[name] = {
            **server,
            "command": str(executable) if executable is not None else server["command"],
            "env": {**server.get("env", {}), "PYTHONDONTWRITEBYTECODE": "1"},
        }
    document = {"package": entry.id, "root": str(root), "data_dir": str(data),
                "servers": resolved, "tool_names": tool_names, "hooks": hooks}  # fmt: skip
    path = write_config(home, entry.id, document)
    timeout = response_timeout()
    if timeout is not None and response_seconds is not None:
        timeout = max(timeout, response_seconds)
    return LaunchSpec(
        command=[*HOST_COMMAND, "--config", str(path)],
        response_timeout=timeout,
        start_timeout=start_timeout() + 15,  # every server started or failed, each bounded
        diagnostics=diagnostics,
        reads=tuple(dict.fromkeys([*reads, *extra_reads, path])),
        writes=(data,),
    )
