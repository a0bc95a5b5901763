"""Locks in the package store: one per package, one per staging folder.

``flock`` locks, on files under ``GATEWAY_HOME/packages/.locks``: the kernel releases them
when their holder exits, however it exits, so a killed install never leaves a lock behind
and the next start can tell a dead install's staging (its lock is free) from a live one's.

- An install holds its package's lock from the moment it places the new version folder
  until the store has recorded it and the previous version is gone; a second install of
  the same package waits, and garbage collection skips a package whose lock is held.
- Each install holds the lock of its staging folder for its whole run; garbage collection
  removes staging folders whose lock it can take.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["LOCKS", "held", "lock_path", "try_lock"]

LOCKS = ".locks"


def lock_path(packages: Path, name: str) -> Path:
    return packages / LOCKS / f"{name}.lock"


def _open(path: Path) -> int:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)


@contextlib.contextmanager
def held(path: Path) -> Iterator[None]:
    """Hold the lock at ``path``, waiting for another holder to let go."""
    fd = _open(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


@contextlib.contextmanager
def try_lock(path: Path) -> Iterator[bool]:
    """Take the lock if it is free (yields True) without waiting; yields False when a live
    process holds it."""
    fd = _open(path)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)
