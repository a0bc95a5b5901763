"""Extension log files: named safely, private, and capped by rotation.

A log's name comes from names a package controls, so it is built from sanitized parts
only and always lands in the logs folder. Its size is capped: when a log reaches
``max_bytes`` it becomes ``NAME.1`` (``NAME.1`` becomes ``NAME.2`` …, the oldest beyond
``keep`` is deleted), so one extension costs at most ``max_bytes * (keep + 1)`` of disk.

Two ways to write one:
- :func:`open_log` rotates once, at open, and returns a file to hand a child as its
  stderr: the child writes to it directly, so within one run it is not capped;
- :class:`RotatingLog` is written by the gateway (a task draining the child's stderr
  pipe) and rotates whenever a write would pass the cap, so it is capped within a run too.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from gateway.base import MAX_NAME_BYTES, private_dir, private_file, safe_join
from gateway.sandbox import safe_name

__all__ = ["LogLimits", "RotatingLog", "calls_log", "log_path", "open_log", "rotate", "runtime_log"]


@dataclass(frozen=True, slots=True)
class LogLimits:
    max_bytes: int = 10 * 1024 * 1024
    keep: int = 2
    """Rotated files kept beside the current one."""


def log_path(logs_dir: Path, *parts: str) -> Path:
    """``logs_dir/<part>-<part>….log``, each part sanitized: never outside ``logs_dir``."""
    name = "-".join(safe_name(part) for part in parts if part) or "extension"
    if len(name) + len(".log.NN") > MAX_NAME_BYTES:  # many long parts: one file name still
        name = safe_name(name)
    return safe_join(logs_dir, f"{name}.log", portable=False)


def runtime_log(logs_dir: Path, kind: str, name: str, folder: str = "") -> Path:
    """The stderr log of a runtime the gateway starts: an installed package's (``kind``
    ``package``, ``folder`` the name of its install folder), a process shared by the group
    ``name`` (``shared``) or an extension an adapter discovered (``discovered``, ``name``
    its id, e.g. ``pi:notes.ts``). One name for the planner and ``gateway logs``."""
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return log_path(logs_dir, kind, folder or name, digest)


def calls_log(logs_dir: Path, package_id: str) -> Path:
    """The log of a package's per-call tools (stderr of each call that wrote any)."""
    return logs_dir / f"calls-{safe_name(package_id)}.log"


def _rotated(path: Path, index: int) -> Path:
    return path.with_name(f"{path.name}.{index}")


def rotate(path: Path, limits: LogLimits) -> None:
    """Shift ``path`` to ``path.1`` (and older ones up), dropping the oldest."""
    if limits.keep <= 0:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return
    with contextlib.suppress(FileNotFoundError):
        _rotated(path, limits.keep).unlink()
    for index in range(limits.keep - 1, 0, -1):
        with contextlib.suppress(FileNotFoundError):
            os.replace(_rotated(path, index), _rotated(path, index + 1))
    with contextlib.suppress(FileNotFoundError):
        os.replace(path, _rotated(path, 1))


def _size(path: Path) -> int:
    try:
        return path.lstat().st_size
    except FileNotFoundError:
        return 0


def open_log(path: Path, limits: LogLimits | None = None) -> BinaryIO:
    """Open a log for appending, 0600 in a 0700 folder, rotated first if it is full."""
    limits = limits or LogLimits()
    private_dir(path.parent)
    if _size(path) >= limits.max_bytes:
        rotate(path, limits)
    return open(private_file(path, append=True), "ab")


class RotatingLog:
    """A log the gateway writes itself, capped within a run."""

    def __init__(self, path: Path, limits: LogLimits | None = None) -> None:
        self.path = path
        self.limits = limits or LogLimits()
        self._file = open_log(path, self.limits)
        self._size = _size(path)

    def write(self, data: bytes) -> None:
        while data:
            room = self.limits.max_bytes - self._size
            if room <= 0:
                self._file.close()
                rotate(self.path, self.limits)
                self._file = open(private_file(self.path, append=True), "ab")  # noqa: SIM115
                self._size = 0
                room = self.limits.max_bytes
            chunk, data = data[:room], data[room:]
            self._file.write(chunk)
            self._size += len(chunk)
        self._file.flush()

    def write_record(self, data: bytes) -> None:
        """Write ``data`` whole into one file: rotate first when it does not fit in what is
        left (a record larger than the limit gets a file of its own). For logs read record
        by record (JSON lines), where ``write`` would split one across two files."""
        if self._size and self._size + len(data) > self.limits.max_bytes:
            self._file.close()
            rotate(self.path, self.limits)
            self._file = open(private_file(self.path, append=True), "ab")  # noqa: SIM115
            self._size = 0
        self._file.write(data)
        self._size += len(data)
        self._file.flush()

    def fileno(self) -> int:
        return self._file.fileno()

    def close(self) -> None:
        self._file.close()
