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
the config, and the installation of every program the hook commands and servers name that
is not a system folder (``bash``, ``node``, ``uvx`` from a version manager), never the
user's home itself or the gateway's home.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from adapters.plugin_host import plan_remote, read_hooks, write_config
from gateway.model import CatalogEntry, LaunchSpec
from gateway.sandbox import package_dirs, python_runtime_paths

__all__ = ["HOST_COMMAND", "plan_plugin_host", "program_paths"]

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
    guarded = (Path.home(), home)
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
            *program_paths(programs, os.environ.get("PATH"), guarded),
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
                found += _shebang(Path(word))
    return found


def _shebang(path: Path) -> list[str]:
    try:
        with open(path, "rb") as handle:
            head = handle.read(256)
    except OSError:
        return []
    if not head.startswith(b"#!"):
        return []
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if words and Path(words[0]).name == "env":
        return [w for w in words[1:] if not w.startswith("-")][:1]
    return words[:1]


def program_paths(
    programs: Iterable[str], path_env: str | None, guarded: Iterable[Path]
) -> tuple[Path, ...]:
    """The installation each bare program name belongs to on ``PATH`` (the folder above
    its ``bin``), never a folder holding a guarded one; names with a ``/`` are the
    plugin's own files or system paths, not looked up."""
    protected = [Path(os.path.realpath(p)) for p in guarded]
    found: list[Path] = []
    for program in dict.fromkeys(programs):
        if "/" in program:
            continue
        located = shutil.which(program, path=path_env)
        if not located:
            continue
        for candidate in (Path(located).absolute(), Path(os.path.realpath(located))):
            parent = candidate.parent
            top = parent.parent if parent.name in ("bin", "shims") else parent
            if not any(p == top or top in p.parents for p in protected):
                found.append(top)
    return tuple(dict.fromkeys(found))
