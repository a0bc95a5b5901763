"""Garbage collection of the package folders: version folders no record names, and the
staging of installs that died (``gateway.packages._installer`` explains the layout)."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from gateway.packages._installer import STAGING, packages_dir
from gateway.packages._locks import LOCKS, lock_path, try_lock
from gateway.packages._trees import remove_tree
from gateway.store import STATE_FILE, StateStore

__all__ = ["collect_garbage"]


def _unlink(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


def collect_garbage(home: Path, min_age: float = 0.0) -> list[Path]:
    """Delete version folders no record names, and the staging of installs that died.

    A package whose install lock is held is skipped: its unrecorded version folder belongs
    to a live install. ``min_age`` (seconds) spares younger folders as well.
    """
    root = packages_dir(home)
    if not root.is_dir():
        return []
    removed = _collect_staging(root)
    cutoff = time.time() - min_age
    # No store yet: nothing is recorded, so every unlocked version folder is left over.
    has_store = (home / STATE_FILE).exists()
    with StateStore.open(home) if has_store else contextlib.nullcontext() as store:
        for folder in sorted(root.iterdir()):
            if folder.name in (STAGING, LOCKS) or not folder.is_dir():
                continue
            with try_lock(lock_path(root, folder.name)) as free:
                if not free:
                    continue  # an install or uninstall of this package is under way
                packages = store.list_packages() if store is not None else []
                in_use = {package.record.path for package in packages}
                for version in sorted(folder.iterdir()):
                    if version not in in_use and _mtime(version) <= cutoff:
                        remove_tree(version)
                        removed.append(version)
                if not any(folder.iterdir()):
                    folder.rmdir()
            _unlink(lock_path(root, folder.name))
    return removed


def _collect_staging(root: Path) -> list[Path]:
    """Staging folders whose install is gone (its lock is free), and their lock files."""
    removed: list[Path] = []
    staging = root / STAGING
    if staging.is_dir():
        for folder in sorted(staging.iterdir()):
            lock = lock_path(root, f"staging-{folder.name}")
            with try_lock(lock) as free:
                if free:
                    remove_tree(folder)
                    removed.append(folder)
            if free:
                _unlink(lock)
    return removed


def _mtime(path: Path) -> float:
    try:
        return path.lstat().st_mtime
    except OSError:
        return 0.0
