"""An install's second half: a package fetched, verified, inspected and hashed in its
staging folder (``StagedInstall``), moved into the home and recorded by ``place`` — the
store's commit is the moment the install takes effect (``_installer`` explains the layout).

Apart so that a caller can hold several staged packages and place them only when all of
them passed its checks (``gateway sync``: each package fetched once, checked against the
lockfile, then placed)."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gateway.base import Diagnostic, Progress, private_dir
from gateway.model import DECLARES_PERMISSIONS, CatalogEntry
from gateway.packages import _codes
from gateway.packages._aliases import source_version
from gateway.packages._install_report import InstallReport
from gateway.packages._instructions import decision_notices
from gateway.packages._native import unbuilt_native_addons
from gateway.packages._observed import forget_registrations
from gateway.packages._replacing import record_install
from gateway.packages._sources import Fetched
from gateway.packages._trees import remove_tree
from gateway.packages.secrets import secrets_path
from gateway.sandbox import grant_hints
from gateway.store import HashCache, InstalledPackage, InstallResult, PackageRecord

__all__ = ["StagedInstall"]


@dataclass(slots=True)
class StagedInstall:
    """A package ready to place, its checks passed (the caller's ``expect`` too), while
    ``install``'s staging folder and the package's lock are held; nothing of it is in the
    home yet. ``place`` it at most once; unplaced, it is removed with its staging."""

    home: Path
    source: Any  # a Source of kind local, git or npm (``PackageRecord.source_kind``)
    fetched: Fetched
    entry: CatalogEntry
    folder: Path  # the package's folder (``package_folder``)
    aliases: frozenset[str]
    replaced: InstalledPackage | None  # the package of another source it replaces
    fetched_hash: str | None  # the source's own content (``outdated`` compares it)
    digest: str
    cache: HashCache
    files: int
    size: int
    shown: list[Diagnostic]
    follows: str | None
    checkpoint: Callable[[str], None]
    progress: Progress

    def place(self) -> InstallReport:
        """Move the staged package into the home and record it; raises what the store
        raises, leaving nothing of it behind."""
        entry, source, fetched = self.entry, self.source, self.fetched
        version_dir = private_dir(self.folder) / uuid.uuid4().hex
        fetched.root.rename(version_dir)
        record = PackageRecord(
            id=entry.id,
            name=entry.name,
            version=entry.version,
            ecosystem=entry.ecosystem,
            source=_describe(source.describe(self.follows), fetched.resolved),
            source_kind=source.kind,
            path=version_dir,
            content_hash=self.digest,
            hash_cache=self.cache,
            source_integrity=fetched.integrity,
            source_version=source_version(source.kind, version_dir),
            source_hash=self.fetched_hash,
            source_member=source.member,
        )
        try:
            self.checkpoint("placed")
            anew = self.replaced is not None
            result, previous = record_install(self.home, entry, record, self.aliases, anew=anew)
        except BaseException:
            # Nothing is left behind of an install that was not recorded.
            remove_tree(version_dir)
            with contextlib.suppress(OSError):
                self.folder.rmdir()  # only when no other version lives there
            raise
        forget_registrations(self.home, [entry.id])  # a reinstall or update starts it for real
        self.checkpoint("recorded")
        if self.replaced is not None:  # as uninstall does: credentials do not outlive it
            secrets_path(self.home, entry.id).unlink(missing_ok=True)
        if previous is not None and previous != version_dir:
            remove_tree(previous)
        return self._report(result, version_dir)

    def _report(self, result: InstallResult, version_dir: Path) -> InstallReport:
        entry = self.entry
        diagnostics = list(self.shown)
        if result.trust_revoked:
            diagnostics.append(
                _codes.PACKAGE_CHANGED(
                    f"{entry.id}: the new content differs from what was trusted; trust revoked",
                    package=entry.id,
                    hint=f"gateway trust {entry.id}",
                )
            )
        if entry.ecosystem != "nimlet":  # a nimlet package's trust accepts its capabilities
            self.progress("reading what its code appears to need from its sandbox")
            # What it asks for is granted at the permissions gate; what it does not ask for
            # (a Pi or OpenClaw package asks for nothing) is said now, with the command.
            known = result.package.granted | {p.name for p in entry.permissions}
            # A package that declares its permissions is widened only explicitly.
            declares = entry.ecosystem in DECLARES_PERMISSIONS
            diagnostics += grant_hints(
                version_dir, entry.id, frozenset(known), widen=declares, entries=entry.entries
            )
        # What it gives the model to read, and native addons it cannot load, before trust.
        diagnostics += decision_notices(entry, version_dir, result.package.granted)
        diagnostics += unbuilt_native_addons(version_dir, entry.id)
        replaced = None if self.replaced is None else self.replaced.record
        return InstallReport(
            result.package, result, entry, self.files, self.size, diagnostics, replaced
        )


def _describe(source: str, resolved: str) -> str:
    return source if resolved in ("", source) else f"{source} ({resolved})"
