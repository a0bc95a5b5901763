"""What a plugin host's sandbox must let it read beyond the plugin folder, for the programs
its servers and hooks run: a resolved server command and the installation it runs from
(the gateway's own Python, another Python's prefix, Node's installation), and for each bare
program name on ``PATH`` the installation it belongs to (the folder above its ``bin``),
never the user's home itself or the gateway's home. Used by ``adapters/_host_plan.py``."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from gateway.sandbox import node_runtime_paths, python_runtime_paths

__all__ = ["find_command", "hook_programs", "program_paths", "runtime_reads"]

_WRAPPERS: Final = frozenset({"env", "exec", "command", "sh", "bash", "zsh"})
_ROOT_PLACEHOLDERS: Final = ("${CLAUDE_PLUGIN_ROOT}", "${PLUGIN_ROOT}")


def find_command(command: str, root: Path) -> Path | None:
    """A ``./`` path inside the package (its real path inside the real root), an absolute
    path to a file (inside the package or not), or a bare name on PATH; None when none is."""
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


def hook_programs(hooks: object, root: Path) -> list[str]:
    """The programs a ``hooks.json`` object's command hooks run: each command's first word
    (past ``env``, ``bash``…, with the plugin root in place of its placeholder), and the
    interpreter a script of the plugin names on its ``#!`` line."""
    events = hooks.get("hooks") if isinstance(hooks, dict) else None
    commands: list[str] = []
    for groups in (events or {}).values() if isinstance(events, dict) else ():
        for group in groups if isinstance(groups, list) else []:
            for hook in group.get("hooks", []) if isinstance(group, dict) else []:
                command = hook.get("command") if isinstance(hook, dict) else None
                if isinstance(command, str):
                    for placeholder in _ROOT_PLACEHOLDERS:
                        command = command.replace(placeholder, str(root))
                    commands.append(command)
    return _programs(commands, root)


def _programs(commands: Iterable[str], root: Path) -> list[str]:
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
