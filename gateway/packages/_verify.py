"""Checks on a fetched package tree before it is installed.

Symlinks that leave the package, special files, and trees over the limits (files, bytes,
entries, folder depth) are refused: an install must not become a way to read or fill the
disk elsewhere. The same limits are enforced while a tree is copied or unpacked
(``_trees``); this check covers what other tools wrote (git, npm).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from gateway.base import GatewayError

__all__ = ["InstallLimits", "VerifyError", "verify_tree"]


class VerifyError(GatewayError):
    pass


@dataclass(frozen=True, slots=True)
class InstallLimits:
    max_files: int = 100_000
    max_bytes: int = 1024 * 1024 * 1024
    max_entries: int = 250_000
    """Files, folders and symlinks together."""
    max_depth: int = 100
    """Folders nested in folders; node_modules trees stay far below."""


def verify_tree(root: Path, limits: InstallLimits) -> tuple[int, int]:
    """Return (files, bytes); raise ``VerifyError`` naming the first problem."""
    real_root = os.path.realpath(root)
    files = total = entries = 0
    stack: list[tuple[str, str]] = [(os.fspath(root), "")]
    while stack:
        directory, prefix = stack.pop()
        with os.scandir(directory) as scan:
            for entry in scan:
                relative = prefix + entry.name
                entries += 1
                if entries > limits.max_entries:
                    raise VerifyError(f"more than {limits.max_entries} files, folders and links")
                if relative.count("/") >= limits.max_depth:
                    raise VerifyError(f"folders nested deeper than {limits.max_depth} levels")
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISLNK(info.st_mode):
                    target = os.path.realpath(entry.path)
                    if os.path.commonpath([real_root, target]) != real_root:
                        raise VerifyError(f"symlink {relative} points outside the package")
                    continue
                if stat.S_ISDIR(info.st_mode):
                    stack.append((entry.path, relative + "/"))
                    continue
                if not stat.S_ISREG(info.st_mode):
                    raise VerifyError(f"{relative} is not a regular file, folder or symlink")
                files += 1
                total += info.st_size
                if files > limits.max_files:
                    raise VerifyError(f"more than {limits.max_files} files")
                if total > limits.max_bytes:
                    raise VerifyError(f"larger than {limits.max_bytes} bytes")
    return files, total
