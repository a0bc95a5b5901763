"""A package's files copied into a migration's output: real files and folders under the
output, never a link, never one file written over another.

An installed package may hold symlinks (install keeps those that stay inside it). The output
holds none, so nothing written later and nothing a user copies it into is led elsewhere by
one: a link to a file is copied as that file, a link to a folder as its content — unless the
folder is one being copied already (a loop) — and a link that leads out of the package is
left out. Links cannot multiply a package either: the copy stops at the install limits.

The names of the package's own files are copied as they are: each is one name read from a
folder (never a separator, ``.`` or ``..``), and the package works by them. Where one would
land on a file already written — two names one file system takes for one, such as
``README.md`` and ``readme.md`` on macOS — the later one is left out, and said.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from gateway.base import GatewayError
from gateway.packages import InstallLimits

__all__ = ["Skipped", "copy_file", "copy_tree"]

_CHUNK = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Skipped:
    """A file left out of the copy: ``relative`` (to the folder copied) and why."""

    relative: str
    reason: str
    clash: bool = False
    """It would have been written over a file already there."""


class _Stop(GatewayError):
    """A limit was crossed: nothing more is copied."""


@dataclass(slots=True)
class _Budget:
    limits: InstallLimits
    files: int = 0
    bytes: int = 0

    def file(self) -> None:
        self.files += 1
        if self.files > self.limits.max_files:
            raise _Stop(f"more than {self.limits.max_files} files")

    def spend(self, size: int) -> None:
        self.bytes += size
        if self.bytes > self.limits.max_bytes:
            raise _Stop(f"more than {self.limits.max_bytes} bytes")


def copy_file(source: str, target: Path, budget: _Budget | None = None) -> None:
    """``source`` (a link followed) as the new regular file ``target``: never through a
    link at ``target``, never over a file there (``FileExistsError``)."""
    reading = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
    writing = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    with open(os.open(source, reading), "rb") as reader:
        info = os.fstat(reader.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise IsADirectoryError(f"{source} is not a regular file")
        with open(os.open(target, writing, stat.S_IMODE(info.st_mode)), "wb") as writer:
            while chunk := reader.read(_CHUNK):
                if budget is not None:
                    budget.spend(len(chunk))
                writer.write(chunk)


def _inside(root: str, path: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def copy_tree(
    source: Path,
    target: Path,
    *,
    package_root: Path,
    skip: frozenset[str] = frozenset(),
    limits: InstallLimits | None = None,
) -> list[Skipped]:
    """Copy the folder ``source`` (inside ``package_root``) into ``target``, made if missing
    (the caller has checked it is under the output). Returns what was left out."""
    root = os.path.realpath(package_root)
    start = os.path.realpath(source)
    budget = _Budget(limits or InstallLimits())
    skipped: list[Skipped] = []
    target.mkdir(parents=True, exist_ok=True)
    # (real folder to read, folder to write, relative prefix, real folders being copied)
    stack: list[tuple[str, Path, str, frozenset[str]]] = [(start, target, "", frozenset({start}))]
    try:
        while stack:
            from_dir, to_dir, prefix, copying = stack.pop()
            with os.scandir(from_dir) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
            for entry in entries:
                if entry.name in skip:
                    continue
                relative = prefix + entry.name
                if relative.count("/") >= budget.limits.max_depth:
                    raise _Stop(f"folders nested deeper than {budget.limits.max_depth} levels")
                real = os.path.join(from_dir, entry.name)
                if entry.is_symlink():
                    real = os.path.realpath(real)
                    if not _inside(root, real):
                        skipped.append(Skipped(relative, "a link that leads out of the package"))
                        continue
                destination = to_dir / entry.name
                if os.path.lexists(destination):
                    skipped.append(
                        Skipped(relative, f"{destination} is written already", clash=True)
                    )
                    continue
                try:
                    info = os.stat(real)
                except OSError:
                    skipped.append(Skipped(relative, "a link to nothing"))
                    continue
                if stat.S_ISDIR(info.st_mode):
                    if real in copying:
                        skipped.append(Skipped(relative, "a link back into a folder it is in"))
                        continue
                    os.mkdir(destination)
                    stack.append((real, destination, relative + "/", copying | {real}))
                elif stat.S_ISREG(info.st_mode):
                    budget.file()
                    copy_file(real, destination, budget)
                else:
                    skipped.append(Skipped(relative, "not a regular file or folder"))
    except _Stop as stop:
        skipped.append(Skipped(".", f"the copy stopped at the install limits: {stop}"))
    return skipped
