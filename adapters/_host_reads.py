"""The programs a plugin host runs: a server's command as found (inside the package, an
absolute path, or a bare name on ``PATH``) and the programs its command hooks start. What
running them needs to read is ``gateway.runtime.program_reads``'s to say. Used by
``adapters/_host_plan.py``."""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from gateway.runtime import shebang

__all__ = ["find_command", "hook_programs", "line_programs", "missing_command_hint"]

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


def missing_command_hint(command: str) -> str:
    """What to do about a server command ``find_command`` did not find: the one hint of a
    ``*.command_not_found`` diagnostic, which ``status`` prints and ``doctor`` repeats for a
    package that failed to start."""
    if command.startswith("./") or os.path.isabs(command) or "/" in command:
        return f"{command} is not a file the plugin ships: fix the server's command, or reinstall"
    return (
        f"install {command} (or put the folder holding it on PATH), or ship the server inside "
        "the plugin (./...)"
    )


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


def line_programs(lines: Iterable[str], root: Path) -> list[str]:
    """The programs shell lines run (a command's ``!`` lines), found as a hook's are."""
    return _programs([line.replace("${CLAUDE_PLUGIN_ROOT}", str(root)) for line in lines], root)


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
                found += shebang(Path(word))
    return found
