"""Install and uninstall: fetch to staging, verify, inspect, then swap into place.

Layout under ``GATEWAY_HOME/packages``: each package has a folder named after its id, and
each install of it a fresh version folder inside; the store's record names the version in
use. The commit of the store transaction is the one moment an install or uninstall takes
effect, so a process killed at any step leaves either the old package or the new one,
never half of either. Folders no record names are collected later.

Two installs of one package take turns (a lock per package, in the store's ``.locks``
folder), and garbage collection never touches a package whose lock is held: a version
folder placed but not yet recorded belongs to a live install. Each install also holds a
lock on its staging folder, so the next start removes the staging of an install that died
— and only of one that died.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gateway.base import (
    MAX_NAME_BYTES,
    Diagnostic,
    GatewayError,
    Progress,
    Severity,
    lone_surrogate,
    no_progress,
    private_dir,
    safe_join,
)
from gateway.model import CatalogEntry
from gateway.packages import _codes
from gateway.packages._adapters import NoAdapters, load_adapters, stage_install
from gateway.packages._aliases import install_aliases, source_version
from gateway.packages._instructions import decision_notices
from gateway.packages._locks import held, lock_path
from gateway.packages._native import unbuilt_native_addons
from gateway.packages._observed import forget_registrations
from gateway.packages._offered import adapters_offered, offered_package
from gateway.packages._replacing import OtherSource, id_taken, installed_under, record_install
from gateway.packages._sources import FetchError, SourceError, fetch, parse_source
from gateway.packages._trees import remove_tree
from gateway.packages._verify import InstallLimits, VerifyError, verify_tree
from gateway.packages.environment import env_grant
from gateway.packages.secrets import secrets_path
from gateway.sandbox import grant_hints
from gateway.store import (
    ContentHashError,
    InstalledPackage,
    InstallResult,
    PackageRecord,
    StateStore,
    content_hash,
)

__all__ = ["STAGING", "InstallError", "InstallReport", "install", "packages_dir", "uninstall"]

STAGING = ".staging"
Checkpoint = Callable[[str], None]
"""Called with the name of each step; tests use it to kill the process between steps."""
Prepare = Callable[[CatalogEntry], list[Diagnostic]]
"""Work on an installed package that runs none of its code (``prepare_install``)."""
Stage = Callable[[CatalogEntry, Path, "Path | None"], list[Diagnostic]]
"""The adapter's step on the staged package before it is hashed, given the installed
version it replaces (``stage_install``: Nu bundles its tools); runs no package code."""
Expect = Callable[[CatalogEntry, str, str | None], None]
"""Told the staged package's entry, content hash and (npm) tarball integrity before it is
placed; raising ``InstallError`` refuses it (``gateway sync``: the lockfile's integrity)."""


class InstallError(GatewayError):
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
    replaced: PackageRecord | None = None
    """The package of another ecosystem or source it replaced (``--replace``)."""

    def to_dict(self) -> dict[str, Any]:
        record = self.package.record
        return {
            "id": record.id,
            "name": record.name,
            "version": record.version,
            "ecosystem": record.ecosystem,
            "source": record.source,
            "source_kind": record.source_kind,
            "aliases": sorted(self.package.aliases),
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
            # Each variable it declares needing: the grant that passes it through.
            "environment": {
                d.name: f"gateway permissions {record.id} {env_grant(d.name)}"
                for d in self.entry.dependencies
                if d.kind == "environment"
            },
            "replaced": None if self.replaced is None else {
                "id": self.replaced.id, "version": self.replaced.version,
                "ecosystem": self.replaced.ecosystem, "source": self.replaced.source,
                "source_kind": self.replaced.source_kind,
            },
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }  # fmt: skip


def packages_dir(home: Path) -> Path:
    return home / "packages"


_SLUG_BYTES = MAX_NAME_BYTES - len("-12345678.lock")
"""A package's folder and its lock file (``<folder>.lock``) are each one file name."""


def package_folder(home: Path, package_id: str) -> Path:
    # Ids may hold '@' and '/' (npm scopes), or be any length; the digest keeps distinct
    # ids apart. The slug is cut only where the folder could not have been made before.
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", package_id).strip("._")[:_SLUG_BYTES] or "package"
    digest = hashlib.sha256(package_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return safe_join(packages_dir(home), f"{slug}-{digest}", portable=False)


def _noop(step: str) -> None: ...


def install(
    home: Path,
    source_text: str,
    *,
    kind: str | None,
    inspector: Callable[[Path], CatalogEntry],
    limits: InstallLimits | None = None,
    checkpoint: Checkpoint = _noop,
    progress: Progress = no_progress,
    prepare: Prepare | None = None,
    stage: Stage | None = None,
    expect: Expect | None = None,
    follows: str | None = None,
    other_source: OtherSource = "refuse",
) -> InstallReport:
    """Install a package; nothing it contains runs. Raises ``InstallError``. ``progress``
    is told each step as it begins (fetching, installing dependencies, verifying, …).
    ``prepare`` (e.g. ``prepare_install`` of the adapters) runs once it is recorded, on the
    entry rooted at its installed folder; what it reports joins the report's diagnostics.
    ``stage`` runs on the staged package before it is hashed (default: the installed
    adapters' ``stage_install``); ``expect`` may refuse it once hashed; ``follows``: the
    git ref recorded (``Source.describe``) for a source that names its commit;
    ``other_source``: what to do when its id is installed from another source."""
    if not source_text.strip():
        # Path("") is the current folder: an empty argument must not install it.
        raise InstallError("no source given: name a folder, a git URL or an npm spec")
    try:
        source = parse_source(source_text, kind)
    except FetchError as error:
        raise InstallError(str(error)) from None
    packages = private_dir(packages_dir(home))
    name = uuid.uuid4().hex
    staging = packages / STAGING / name
    with held(lock_path(packages, f"staging-{name}")):
        private_dir(staging)
        try:
            report = _install(
                home, source, staging, inspector, limits, checkpoint, progress,
                stage or _adapters_stage, expect, follows, other_source,
            )  # fmt: skip
        finally:
            remove_tree(staging)
            with contextlib.suppress(OSError):
                lock_path(packages, f"staging-{name}").unlink()
    if prepare is not None:
        progress("preparing it to run (e.g. compiling its TypeScript; nothing of it runs)")
        installed = dataclasses.replace(report.entry, root=str(report.package.record.path))
        report.diagnostics.extend(prepare(installed))
    return report


def _install(
    home: Path,
    source: Any,
    staging: Path,
    inspector: Callable[[Path], CatalogEntry],
    limits: InstallLimits | None,
    checkpoint: Checkpoint,
    progress: Progress,
    stage: Stage,
    expect: Expect | None,
    follows: str | None,
    other_source: OtherSource,
) -> InstallReport:
    limits = limits or InstallLimits()
    try:
        fetched = fetch(source, staging, home=home, limits=limits, progress=progress,
                        is_package=lambda root: inspector(root).ecosystem != "unknown")  # fmt: skip
        source = fetched.source  # git's URL#NAME may name a member, not a ref
        checkpoint("fetched")
        progress("verifying the files (links, special files, limits)")
        files, size = verify_tree(fetched.root, limits)
    except (FetchError, VerifyError) as error:
        raise InstallError(f"cannot install {source.describe()}: {error}") from None
    checkpoint("verified")
    try:
        fetched = offered_package(source, fetched, staging, home, limits, progress)
    except SourceError as error:
        subject = f"cannot install {source.describe()}"
        raise InstallError(str(error), error.diagnostics, subject) from None
    progress("reading the package's metadata")
    entry = inspector(fetched.root)
    # Diagnostics name the staging folder; the user knows the package by its source.
    shown = _at_source(entry.diagnostics, fetched.root, source.describe())
    problems = [d for d in shown if d.severity is Severity.ERROR]
    offered = adapters_offered(fetched.root, None) if entry.ecosystem == "unknown" else None
    if isinstance(offered, list):
        # A collection (a marketplace) is no package: what it offers is the useful hint.
        problems = _at_source(offered, fetched.root, source.describe())
        shown = problems + [d for d in shown if d.code != "package.not_detected"]
    if entry.ecosystem == "unknown" or problems:
        reason = problems[0].message if problems else "no package metadata found"
        subject = f"cannot install {source.describe()}"
        raise InstallError(f"{subject}: {reason}", shown, subject)
    # Every adapter's reader refuses a lone surrogate; this holds for one that did not.
    not_text = lone_surrogate([entry.id, entry.name, entry.version])
    if not_text is not None:
        raise InstallError(
            f"cannot install {source.describe()}: its id, name or version is not text "
            f"(a lone surrogate): \u201c{not_text}\u201d"
        )
    folder = package_folder(home, entry.id)
    # A marketplace's plugin is known by its own folder's name, not the marketplace's.
    kind, origin = (source.kind, source.location) if source.member is None else (
        "local", str(fetched.root))  # fmt: skip
    aliases = install_aliases(kind, origin, fetched.root, entry)
    with held(lock_path(packages_dir(home), folder.name)):
        replaced, previous = installed_under(home, entry, source, fetched.root, other_source)
        if replaced is not None and other_source == "refuse":
            taken = id_taken(replaced, entry, source)
            subject = f"cannot install {source.describe()}"
            raise InstallError(f"{subject}: {taken.message}", [taken], subject)
        # A folder's content before the install step adds to it (Nu's bundles): what
        # `outdated` compares the folder with. Git and npm sources compare commits, versions.
        fetched_hash = _source_hash(source, fetched.root)
        # Under the package's lock: the version it replaces stays in place meanwhile.
        staged = stage(entry, fetched.root, None if replaced else previous)
        shown += _at_source(staged, fetched.root, source.describe())
        checkpoint("prepared")
        progress("recording the install")
        digest, cache = content_hash(fetched.root)
        if expect is not None:
            expect(entry, digest, fetched.integrity)
        version_dir = private_dir(folder) / uuid.uuid4().hex
        fetched.root.rename(version_dir)
        record = PackageRecord(
            id=entry.id,
            name=entry.name,
            version=entry.version,
            ecosystem=entry.ecosystem,
            source=_describe(source.describe(follows), fetched.resolved),
            source_kind=source.kind,
            path=version_dir,
            content_hash=digest,
            hash_cache=cache,
            source_integrity=fetched.integrity,
            source_version=source_version(source.kind, version_dir),
            source_hash=fetched_hash,
            source_member=source.member,
        )
        try:
            checkpoint("placed")
            anew = replaced is not None
            result, previous = record_install(home, entry, record, aliases, anew=anew)
        except BaseException:
            # Nothing is left behind of an install that was not recorded.
            remove_tree(version_dir)
            with contextlib.suppress(OSError):
                folder.rmdir()  # only when no other version lives there
            raise
        forget_registrations(home, [entry.id])  # a reinstall or update starts it for real
        checkpoint("recorded")
        if replaced is not None:  # as uninstall does: credentials do not outlive a package
            secrets_path(home, entry.id).unlink(missing_ok=True)
        if previous is not None and previous != version_dir:
            remove_tree(previous)
    diagnostics = list(shown)
    if result.trust_revoked:
        diagnostics.append(
            _codes.PACKAGE_CHANGED(
                f"{entry.id}: the new content differs from what was trusted; trust revoked",
                package=entry.id,
                hint=f"gateway trust {entry.id}",
            )
        )
    if entry.ecosystem != "nimlet":  # a nimlet package's trust accepts its capabilities
        progress("reading what its code appears to need from its sandbox")
        # What it asks for is granted at the permissions gate; what it does not ask for
        # (a Pi or OpenClaw package asks for nothing) is said now, with the command.
        known = result.package.granted | {p.name for p in entry.permissions}
        # A package that declares its permissions (nanobot's manifest) is widened only
        # explicitly; Pi, OpenClaw and Nu packages declare none.
        declares = entry.ecosystem == "nanobot"
        diagnostics += grant_hints(
            version_dir, entry.id, frozenset(known), widen=declares, entries=entry.entries
        )
    # What it gives the model to read, and native addons it cannot load, before it is trusted.
    diagnostics += decision_notices(entry, version_dir, result.package.granted)
    diagnostics += unbuilt_native_addons(version_dir, entry.id)
    replaced_record = None if replaced is None else replaced.record
    return InstallReport(result.package, result, entry, files, size, diagnostics, replaced_record)


def _source_hash(source: Any, root: Path) -> str | None:
    if source.kind != "local" and source.member is None:
        return None
    try:
        return content_hash(root)[0]
    except ContentHashError as error:
        raise InstallError(f"cannot install {source.describe()}: {error}") from None


def _adapters_stage(entry: CatalogEntry, root: Path, previous: Path | None) -> list[Diagnostic]:
    try:
        adapters = load_adapters()
    except NoAdapters:
        return []  # the inspector reported it already
    return stage_install(adapters, entry, root, previous)


def _at_source(diagnostics: Any, staged: Path, source: str) -> list[Diagnostic]:
    """The diagnostics with the staging path replaced by the source the user gave."""
    shown: list[Diagnostic] = []
    for diagnostic in diagnostics:
        message = diagnostic.message.replace(str(staged), source)
        shown.append(dataclasses.replace(diagnostic, message=message))
    return shown


def _describe(source: str, resolved: str) -> str:
    return source if resolved in ("", source) else f"{source} ({resolved})"


def uninstall(home: Path, package_id: str, checkpoint: Checkpoint = _noop) -> InstalledPackage:
    """Remove the record (the moment it takes effect), then the files and its secrets
    (credentials do not outlive the package; its settings stay, as a reinstall expects)."""
    folder = package_folder(home, package_id)
    with held(lock_path(packages_dir(home), folder.name)):
        with StateStore.open(home) as store:
            package = store.get_package(package_id)
            store.remove_package(package_id)
        checkpoint("unrecorded")
        secrets_path(home, package_id).unlink(missing_ok=True)
        remove_tree(package.record.path)
        parent = package.record.path.parent
        if parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()
    return package
