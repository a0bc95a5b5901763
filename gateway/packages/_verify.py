"""Checks on a fetched package tree before it is installed.

Symlinks that leave the package, special files, and trees over the size or file-count
limits are refused: an install must not become a way to read or fill the disk elsewhere.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

__all__ = ["InstallLimits", "VerifyError", "verify_tree"]


class VerifyError(Exception):
    pass


@dataclass(frozen=True, slots=True)
class InstallLimits:
    max_files: int = 100_000
    max_bytes: int = 1024 * 1024 * 1024


def verify_tree(root: Path, limits: InstallLimits) -> tuple[int, int]:
    """Return (files, bytes); raise ``VerifyError`` naming the first problem."""
    real_root = os.path.realpath(root)
    files = total = 0
    for directory, subdirectories, names in os.walk(root, followlinks=False):
        for name in [*subdirectories, *names]:
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, root)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                target = os.path.realpath(path)
                if os.path.commonpath([real_root, target]) != real_root:
                    raise VerifyError(f"symlink {relative} points outside the package")
                continue
            if stat.S_ISDIR(info.st_mode):
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
