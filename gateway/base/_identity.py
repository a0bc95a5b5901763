"""What a start depends on, told apart without reading it: a file as the kernel knows it
(real path, inode, size, modification time) — a command replaced on PATH, a runtime
upgraded in place, a configuration rewritten all change it — and a bare command's
resolution on a PATH. Used to key the registration cache (``gateway.host``) and by adapters
naming what their packages' configurations run (``LaunchSpec.depends_on``)."""

from __future__ import annotations

import os
import shutil

__all__ = ["command_identity", "file_identity"]


def file_identity(path: str | os.PathLike[str]) -> str | None:
    """``<real path> <inode>:<size>:<mtime ns>`` of the file ``path`` leads to; None when
    there is none."""
    try:
        real = os.path.realpath(path)
        found = os.stat(real)
    except (OSError, ValueError):
        return None
    return f"{real} {found.st_ino}:{found.st_size}:{found.st_mtime_ns}"


def command_identity(command: str, search_path: str | None = None) -> str:
    """What ``command`` runs: a path as it is, a bare name as found on ``search_path``
    (default: this process's ``PATH``); ``<command> -> <identity>``, or ``-> not found``."""
    if os.sep in command:
        found: str | None = command
    else:
        found = shutil.which(command, path=search_path)
    identity = file_identity(found) if found is not None else None
    return f"{command} -> {identity or 'not found'}"
