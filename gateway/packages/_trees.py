"""Copying, unpacking and removing package trees within the install limits.

The limits (files, bytes, folder depth) are enforced *while* a tree is written, before each
file: a hostile package cannot fill the disk first and be refused afterwards. Everything
here walks iteratively, so a folder nested a thousand levels deep is a refusal, not a
``RecursionError``. Files are written 0600 (0700 when executable) in 0700 folders: an
installed package is readable by its user only, like everything under ``GATEWAY_HOME``.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from gateway.packages._verify import InstallLimits, VerifyError

__all__ = ["Budget", "copy_tree", "file_mode", "remove_tree", "staged_root"]

_CHUNK = 1024 * 1024


_FOLDER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}\Z")


def staged_root(staging: Path, name: str) -> Path:
    """Where a fetched package is staged: ``staging/package/NAME``, named as its source
    names it (the folder, the repository, a tarball's top folder), since a package without
    a name of its own (a folder of skills, a Codex plugin without ``name``) is named after
    its folder — never after the staging folder. The parent is made; a name that is not
    one plain folder name is ``package``."""
    parent = staging / "package"
    parent.mkdir(mode=0o700, exist_ok=True)
    return parent / (name if _FOLDER_NAME.match(name) and name not in (".", "..") else "package")


def file_mode(mode: int) -> int:
    """0700 for a file its owner may execute, 0600 otherwise."""
    return 0o700 if mode & stat.S_IXUSR else 0o600


@dataclass(slots=True)
class Budget:
    """What is left of the limits while a tree is written."""

    limits: InstallLimits
    files: int = 0
    bytes: int = 0
    entries: int = 0

    def entry(self, relative: str) -> None:
        """One more file, folder or link at ``relative``: count it and check its depth."""
        self.entries += 1
        if self.entries > self.limits.max_entries:
            raise VerifyError(f"more than {self.limits.max_entries} files, folders and links")
        if relative.count("/") >= self.limits.max_depth:
            raise VerifyError(f"folders nested deeper than {self.limits.max_depth} levels")

    def file(self, size: int) -> None:
        self.files += 1
        if self.files > self.limits.max_files:
            raise VerifyError(f"more than {self.limits.max_files} files")
        self.spend(size)

    def expect(self, size: int) -> None:
        """Refuse, before anything is written, what would cross the byte limit as
        announced (a tar header's size); ``spend`` still counts what is really written."""
        if self.bytes + size > self.limits.max_bytes:
            raise VerifyError(f"larger than {self.limits.max_bytes} bytes")

    def spend(self, size: int) -> None:
        self.bytes += size
        if self.bytes > self.limits.max_bytes:
            raise VerifyError(f"larger than {self.limits.max_bytes} bytes")


def _copy_file(source: str, target: str, mode: int, budget: Budget) -> None:
    """Copy within the byte budget. The size the file declares is checked before the copy
    is created (a sparse file of 4 GiB costs nothing to make and would otherwise fill the
    disk up to the limit), and what is read is counted before each chunk is written: a
    file can grow while it is copied."""
    reading = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    writing = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW
    with open(os.open(source, reading), "rb") as reader:
        info = os.fstat(reader.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise VerifyError(f"{source} is not a regular file")
        budget.expect(info.st_size)
        with open(os.open(target, writing, mode), "wb") as writer:
            while chunk := reader.read(_CHUNK):
                budget.spend(len(chunk))
                writer.write(chunk)


def copy_tree(source: Path, target: Path, limits: InstallLimits) -> Budget:
    """Copy ``source`` to the new folder ``target``: files, folders and symlinks (as
    links, never followed). Raises ``VerifyError`` for a limit or a special file."""
    budget = Budget(limits)
    os.mkdir(target, 0o700)
    stack: list[tuple[str, str, str]] = [(os.fspath(source), os.fspath(target), "")]
    while stack:
        from_dir, to_dir, prefix = stack.pop()
        with os.scandir(from_dir) as entries:
            for entry in entries:
                relative = prefix + entry.name
                budget.entry(relative)
                info = entry.stat(follow_symlinks=False)
                destination = os.path.join(to_dir, entry.name)
                if stat.S_ISLNK(info.st_mode):
                    os.symlink(os.readlink(entry.path), destination)
                elif stat.S_ISDIR(info.st_mode):
                    os.mkdir(destination, 0o700)
                    stack.append((entry.path, destination, relative + "/"))
                elif stat.S_ISREG(info.st_mode):
                    budget.file(0)
                    budget.expect(info.st_size)  # before the file is even opened
                    _copy_file(entry.path, destination, file_mode(info.st_mode), budget)
                else:
                    raise VerifyError(f"{relative} is not a regular file, folder or symlink")
    return budget


def remove_tree(path: Path) -> None:
    """Remove a tree bottom-up without recursion and without following symlinks; errors
    are ignored (what cannot be removed now is collected at the next start)."""
    stack: list[tuple[str, bool]] = [(os.fspath(path), False)]
    while stack:
        folder, emptied = stack.pop()
        if emptied:
            with contextlib.suppress(OSError):
                os.rmdir(folder)
            continue
        stack.append((folder, True))
        try:
            with os.scandir(folder) as scan:
                entries = list(scan)
        except NotADirectoryError:
            stack.pop()
            _unlink(folder)
            continue
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                stack.append((entry.path, False))
            else:
                _unlink(entry.path)


def _unlink(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
