"""Install and uninstall: fetch to staging, verify, inspect, then swap into place.

Layout under ``GATEWAY_HOME/packages``: each package has a folder named after its id, and
each install of it a fresh version folder inside; the store's record names the version in
use. The commit of the store transaction is the one moment an install or uninstall takes
effect, so a process killed at any step leaves either the old package or the new one,
never half of either. Folders no record names are collected later.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import shutil
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import _codes
from .._progress import Progress, no_progress
from ..catalog import CatalogEntry
from ..diagnostics import Diagnostic, Severity
from ..store import InstalledPackage, InstallResult, PackageRecord, StateStore, content_hash
from ._sources import FetchError, fetch, parse_source
from ._verify import InstallLimits, VerifyError, verify_tree

__all__ = ["InstallError", "InstallReport", "collect_garbage", "install", "uninstall"]

_STAGING = ".staging"
Checkpoint = Callable[[str], None]
"""Called with the name of each step; tests use it to kill the process between steps."""


class InstallError(Exception):
    """``str()`` is the whole reason in one message; ``subject`` ("cannot install SRC") is
    its head, for a display that lists the package's ``diagnostics`` under it instead."""

    def __init__(
        self, message: str, diagnostics: list[Diagnostic] | None = None, subject: str = ""
    ) -> None:
        super().__init__(message)
        self.diagnostics = diagnostics or []
        self.subject = subject or message


@dataclass(slots=True)
class InstallReport:
    package: InstalledPackage
    result: InstallResult
    entry: CatalogEntry
    files: int
    size: int
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        record = self.package.record
        return {
            "id": record.id,
            "name": record.name,
            "version": record.version,
            "ecosystem": record.ecosystem,
            "source": record.source,
            "source_kind": record.source_kind,
            "path": str(record.path),
            "content_hash": record.content_hash,
            "files": self.files,
            "bytes": self.size,
            "created": self.result.created,
            "content_changed": self.result.hash_changed,
            "trust_revoked": self.result.trust_revoked,
            "trusted": self.package.trusted,
            "enabled": self.package.enabled,
            "granted": sorted(self.package.granted),
            "requested_permissions": [p.name for p in self.entry.permissions],
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


def packages_dir(home: Path) -> Path:
    return home / "packages"


def package_folder(home: Path, package_id: str) -> Path:
    # Ids may hold '@' and '/' (npm scopes); the digest keeps distinct ids apart.
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", package_id).strip("._") or "package"
    digest = hashlib.sha256(package_id.encode()).hexdigest()[:8]
    return packages_dir(home) / f"{slug}-{digest}"


def _noop(step: str) -> None:
    pass


def install(
    home: Path,
    source_text: str,
    *,
    kind: str | None,
    inspector: Callable[[Path], CatalogEntry],
    limits: InstallLimits | None = None,
    checkpoint: Checkpoint = _noop,
    progress: Progress = no_progress,
) -> InstallReport:
    """Install a package; nothing it contains runs. Raises ``InstallError``. ``progress``
    is told each step as it begins (fetching, installing dependencies, verifying, …)."""
    try:
        source = parse_source(source_text, kind)
    except FetchError as error:
        raise InstallError(str(error)) from None
    staging = packages_dir(home) / _STAGING / uuid.uuid4().hex
    staging.mkdir(parents=True)
    try:
        try:
            fetched = fetch(source, staging, progress)
            checkpoint("fetched")
            progress("verifying the files (links, special files, limits)")
            files, size = verify_tree(fetched.root, limits or InstallLimits())
        except (FetchError, VerifyError) as error:
            raise InstallError(f"cannot install {source.describe()}: {error}") from None
        checkpoint("verified")
        progress("reading the package's metadata")
        entry = inspector(fetched.root)
        # Diagnostics name the staging folder; the user knows the package by its source.
        shown = _at_source(entry.diagnostics, fetched.root, source.describe())
        problems = [d for d in shown if d.severity is Severity.ERROR]
        if entry.ecosystem == "unknown" or problems:
            reason = problems[0].message if problems else "no package metadata found"
            subject = f"cannot install {source.describe()}"
            raise InstallError(f"{subject}: {reason}", shown, subject)
        progress("recording the install")
        digest, cache = content_hash(fetched.root)
        version_dir = package_folder(home, entry.id) / uuid.uuid4().hex
        version_dir.parent.mkdir(parents=True, exist_ok=True)
        fetched.root.rename(version_dir)
        checkpoint("placed")
        record = PackageRecord(
            id=entry.id,
            name=entry.name,
            version=entry.version,
            ecosystem=entry.ecosystem,
            source=_describe(source.describe(), fetched.resolved),
            source_kind=source.kind,  # type: ignore[arg-type]
            path=version_dir,
            content_hash=digest,
            hash_cache=cache,
        )
        with StateStore.open(home) as store:
            previous = _previous_path(store, entry.id)
            result = store.record_install(record, requested=[p.name for p in entry.permissions])
        checkpoint("recorded")
        if previous is not None and previous != version_dir:
            shutil.rmtree(previous, ignore_errors=True)
        diagnostics = list(shown)
        if result.trust_revoked:
            diagnostics.append(
                _codes.PACKAGE_CHANGED(
                    f"{entry.id}: the new content differs from what was trusted; trust revoked",
                    package=entry.id,
                    hint=f"gateway trust {entry.id}",
                )
            )
        return InstallReport(result.package, result, entry, files, size, diagnostics)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _at_source(diagnostics: Any, staged: Path, source: str) -> list[Diagnostic]:
    """The diagnostics with the staging path replaced by the source the user gave."""
    shown: list[Diagnostic] = []
    for diagnostic in diagnostics:
        message = diagnostic.message.replace(str(staged), source)
        shown.append(dataclasses.replace(diagnostic, message=message))
    return shown


def _describe(source: str, resolved: str) -> str:
    return source if resolved in ("", source) else f"{source} ({resolved})"


def _previous_path(store: StateStore, package_id: str) -> Path | None:
    existing = {package.id: package for package in store.list_packages()}.get(package_id)
    return existing.record.path if existing is not None else None


def uninstall(home: Path, package_id: str, checkpoint: Checkpoint = _noop) -> InstalledPackage:
    """Remove the record (the moment it takes effect), then the files."""
    with StateStore.open(home) as store:
        package = store.get_package(package_id)
        store.remove_package(package_id)
    checkpoint("unrecorded")
    shutil.rmtree(package.record.path, ignore_errors=True)
    folder = package.record.path.parent
    if folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
    return package


def collect_garbage(home: Path, min_age: float = 3600.0) -> list[Path]:
    """Delete version folders no record names, and staging left by killed installs.

    Only folders older than ``min_age`` seconds go: a concurrent install's version folder
    exists, unrecorded, for the moment between its rename and its store commit.
    """
    root = packages_dir(home)
    if not root.is_dir():
        return []
    with StateStore.open(home) as store:
        in_use = {package.record.path for package in store.list_packages()}
    cutoff = time.time() - min_age
    removed: list[Path] = []
    for folder in sorted(root.iterdir()):
        if not folder.is_dir():
            continue
        for version in sorted(folder.iterdir()):
            if version not in in_use and _mtime(version) <= cutoff:
                shutil.rmtree(version, ignore_errors=True)
                removed.append(version)
        if folder.name != _STAGING and not any(folder.iterdir()):
            folder.rmdir()
    return removed


def _mtime(path: Path) -> float:
    try:
        return path.lstat().st_mtime
    except OSError:
        return 0.0
