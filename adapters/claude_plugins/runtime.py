"""How a Claude Code plugin with hooks or MCP servers starts: the plugin host
(``python -P -m adapters.plugin_host --config FILE``), one process per plugin, given a JSON
config written under ``GATEWAY_HOME/plugin_host/``:

``{"package", "root", "data_dir", "servers": {name: {command, args, env, cwd}},
"tool_names": "claude", "hooks": null | hooks.json object}``

``${CLAUDE_PLUGIN_ROOT}`` and ``${CLAUDE_PLUGIN_DATA}`` in the servers' fields are expanded
here (the installed folder and the package's data folder); the hook commands get them in
their environment, where the shell expands them. ``tool_names: "claude"``: the
servers' tools are named as Claude Code names a plugin's MCP tools,
``mcp__plugin_<plugin>_<server>__<tool>``.

The sandbox reads the host needs beyond the plugin folder: the gateway's Python and source,
the config, and what every program the hook commands and servers name needs to run
(``gateway.runtime.program_reads``: ``bash``, ``node``, ``uvx`` from a version manager, a
venv's Python), never the user's home itself, the gateway's home or a toolchain's
credential files.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from adapters.plugin_host import plan_remote, read_hooks, write_config
from gateway.model import CatalogEntry, LaunchSpec
from gateway.runtime import program_reads, shebang
from gateway.sandbox import package_dirs, python_runtime_paths

__all__ = ["HOST_COMMAND", "plan_plugin_host"]

HOST_COMMAND: Final = (sys.executable, "-P", "-m", "adapters.plugin_host")
SOURCE_ROOT: Final = Path(__file__).resolve().parents[2]
_ROOT, _DATA = "${CLAUDE_PLUGIN_ROOT}", "${CLAUDE_PLUGIN_DATA}"
_WRAPPERS: Final = frozenset({"env", "exec", "command", "sh", "bash", "zsh"})
DEFAULT_RESPONSE_TIMEOUT: Final = 30.0


def plan_plugin_host(entry: CatalogEntry, home: Path) -> LaunchSpec:
    data, _ = package_dirs(home, entry.id)
    root = entry.root
    servers = {
        name: _expand(server, root, str(data))
        for name, server in dict(entry.metadata.get("mcp_servers") or {}).items()
    }
    hooks = entry.metadata.get("hooks")
    remote = plan_remote(entry, home)
    config = {
        "package": entry.id,
        "root": root,
        "data_dir": str(data),
        "servers": servers,
        "tool_names": "claude",
        "hooks": hooks,
        **remote.document,
    }
    path = write_config(home, entry.id, config)
    commands = [
        str(h["command"]).replace(_ROOT, root)
        for groups in ((hooks or {}).get("hooks") or {}).values()
        if isinstance(groups, list)
        for group in groups
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for h in group["hooks"]
        if isinstance(h, dict) and isinstance(h.get("command"), str)
    ]
    programs = [*_programs(commands, Path(root)), *(s["command"] for s in servers.values())]
    hooks_only, _ = read_hooks(hooks) if hooks else ([], [])
    longest = max((hook.timeout for hook in hooks_only), default=0.0)
    return LaunchSpec(
        command=[*HOST_COMMAND, "--config", str(path)],
        # An event waits for its slowest hook (they run at once), up to its own timeout.
        response_timeout=max(DEFAULT_RESPONSE_TIMEOUT, longest + 5.0),
        reads=(
            *python_runtime_paths(),
            SOURCE_ROOT,
            path,
            *program_reads(
                programs,
                path_env=os.environ.get("PATH"),
                home=Path.home(),
                guarded=(home,),
                own=Path(root),
            ),
        ),
        writes=(data, *remote.writes),
        env=remote.env,
        diagnostics=list(remote.diagnostics),
        # What the servers and hooks run, as found on PATH now: a program installed later
        # starts the plugin again rather than serving what its last start found.
        programs=tuple(dict.fromkeys(programs)),
    )


def _expand(server: Mapping[str, Any], root: str, data: str) -> dict[str, Any]:
    def text(value: str) -> str:
        return value.replace(_ROOT, root).replace(_DATA, data)

    found: dict[str, Any] = {
        "command": text(server["command"]),
        "args": [text(a) for a in server.get("args", [])],
        "env": {k: text(v) for k, v in dict(server.get("env", {})).items()},
        "cwd": text(server["cwd"]) if server.get("cwd") else root,
    }
    return found


def _programs(commands: Iterable[str], root: Path) -> list[str]:
    """The programs a hook's shell command runs: its first word (past ``env``, ``bash``…),
    and the interpreter a script of the plugin names on its ``#!`` line."""
    found: list[str] = []
    for command in commands:
        try:
            words = shlex.split(command)
        except ValueError:
            continue
        for word in words:
            if "=" in word and not word.startswith("/"):
                continue  # VAR=value before the program
            found.append(word)
            if Path(word).name not in _WRAPPERS:
                break
        for word in words:
            if word.startswith(str(root)) and os.path.isfile(word):
                found += shebang(Path(word))
    return found
