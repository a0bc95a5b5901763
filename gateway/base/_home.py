"""``GATEWAY_HOME``: made private, checked usable, and the private folders and files in it.

Everything under the gateway home is the user's alone — trust decisions, grants, sessions
(what was said to a model), logs, package configuration with API keys — so every folder is
created 0700 and every file 0600, by explicit modes rather than the umask: the gateway may
be embedded in a program whose umask is not ours to change, and the children it starts
inherit the umask they should have for the user's workspace.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from gateway.base import _codes
from gateway.base.diagnostics import Diagnostic
from gateway.base.errors import GatewayError

__all__ = ["HomeUnusable", "ensure_home", "private_dir", "private_file"]


class HomeUnusable(GatewayError):
    """``GATEWAY_HOME`` is not a folder, or cannot be created or written."""

    def diagnostic(self) -> Diagnostic:
        return _codes.HOME_UNUSABLE(str(self), hint="set GATEWAY_HOME to a folder you can write")


def private_dir(path: Path) -> Path:
    """Create ``path`` and any missing parent as 0700 folders (existing ones are left)."""
    missing: list[Path] = []
    current = path
    while not current.exists() and current != current.parent:
        missing.append(current)
        current = current.parent
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by another process
            folder.mkdir(mode=0o700)
    return path


def private_file(path: Path, *, exclusive: bool = False, append: bool = False) -> int:
    """Open ``path`` for writing, creating it 0600; returns the descriptor. A symlink
    at ``path`` is refused (O_NOFOLLOW): a name under the home must not write elsewhere."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
    if exclusive:
        flags |= os.O_EXCL
    if append:
        flags |= os.O_APPEND
    fd = os.open(path, flags, 0o600)
    info = os.fstat(fd)
    if stat.S_IMODE(info.st_mode) & 0o077 and info.st_uid == os.geteuid():
        os.fchmod(fd, 0o600)  # a file an older gateway made with the umask's mode
    return fd


def ensure_home(home: Path, *, write: bool = True) -> Path:
    """Make ``home`` exist as a private folder the gateway can write; raise
    ``HomeUnusable`` with a one-line reason otherwise. With ``write=False`` (a command
    that only reads state) a missing home is fine and nothing is created or probed."""
    try:
        info = os.stat(home)
    except FileNotFoundError:
        if not write:
            return home
        try:
            private_dir(home)
        except OSError as error:
            raise HomeUnusable(f"cannot create GATEWAY_HOME {home}: {error.strerror}") from None
        info = os.stat(home)
    except OSError as error:
        raise HomeUnusable(f"GATEWAY_HOME {home} cannot be used: {error.strerror}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise HomeUnusable(f"GATEWAY_HOME {home} is not a folder")
    if not write:
        return home
    if stat.S_IMODE(info.st_mode) & 0o077 and info.st_uid == os.geteuid():
        with contextlib.suppress(OSError):
            os.chmod(home, 0o700)  # made by an older gateway with the umask's mode
    # access() says nothing under a sandbox or a read-only mount: try a write.
    probe = home / f".write-probe-{os.getpid()}"
    try:
        os.close(private_file(probe, exclusive=True))
        probe.unlink()
    except FileExistsError:
        with contextlib.suppress(OSError):
            probe.unlink()
    except OSError as error:
        raise HomeUnusable(f"GATEWAY_HOME {home} is not writable: {error.strerror}") from None
    return home
