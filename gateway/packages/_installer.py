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
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from gateway.base import (
    MAX_NAME_BYTES,
    Diagnostic,
    Progress,
    Severity,
    lone_surrogate,
    no_progress,
    private_dir,
    safe_join,
)
from gateway.model import CatalogEntry
from gateway.packages._adapters import NoAdapters, load_adapters, stage_install
from gateway.packages._aliases import install_aliases
from gateway.packages._install_report import InstallError, InstallReport
from gateway.packages._locks import held, lock_path
from gateway.packages._offered import adapters_offered, offered_package
from gateway.packages._placing import StagedInstall
from gateway.packages._replacing import OtherSource, id_taken, installed_under
from gateway.packages._sources import FetchError, SourceError, fetch, parse_source
from gateway.packages._trees import remove_tree
from gateway.packages._verify import InstallLimits, VerifyError, verify_tree
from gateway.packages.secrets import secrets_path
from gateway.store import ContentHashError, InstalledPackage, StateStore, content_hash

__all__ = [
    "STAGING",
    "InstallError",
    "InstallReport",
    "StagedInstall",
    "install",
    "packages_dir",
    "staged_install",
    "uninstall",
]

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
Claim = Callable[[CatalogEntry], None]
"""Told the fetched package's entry before its package's lock is taken; raising
``InstallError`` refuses it."""


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
    with staged_install(
        home, source_text, kind=kind, inspector=inspector, limits=limits,
        checkpoint=checkpoint, progress=progress, stage=stage, expect=expect,
        follows=follows, other_source=other_source,
    ) as staged:  # fmt: skip
        report = staged.place()
    if prepare is not None:  # it says what it does (most formats: nothing)
        installed = dataclasses.replace(report.entry, root=str(report.package.record.path))
        report.diagnostics.extend(prepare(installed))
    return report


@contextlib.contextmanager
def staged_install(
    home: Path,
    source_text: str,
    *,
    kind: str | None,
    inspector: Callable[[Path], CatalogEntry],
    limits: InstallLimits | None = None,
    checkpoint: Checkpoint = _noop,
    progress: Progress = no_progress,
    stage: Stage | None = None,
    expect: Expect | None = None,
    follows: str | None = None,
    other_source: OtherSource = "refuse",
    claim: Claim | None = None,
) -> Iterator[StagedInstall]:
    """``install`` up to the moment it places the package: fetched once, verified,
    inspected, staged, hashed and accepted by ``expect``, holding its staging folder's lock
    and its package's lock. Raises ``InstallError``. Inside the block, ``place()`` installs
    it; on leaving, whatever was not placed is removed and the locks are let go. ``claim``
    is told the package's id before its lock is taken (and may refuse it: a caller holding
    several packages' locks must not wait for its own)."""
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
            yield from _staged(
                home, source, staging, inspector, limits or InstallLimits(), checkpoint,
                progress, stage or _adapters_stage, expect, follows, other_source, claim,
            )  # fmt: skip
        finally:
            remove_tree(staging)
            with contextlib.suppress(OSError):
                lock_path(packages, f"staging-{name}").unlink()


def _staged(
    home: Path,
    source: Any,
    staging: Path,
    inspector: Callable[[Path], CatalogEntry],
    limits: InstallLimits,
    checkpoint: Checkpoint,
    progress: Progress,
    stage: Stage,
    expect: Expect | None,
    follows: str | None,
    other_source: OtherSource,
    claim: Claim | None,
) -> Iterator[StagedInstall]:
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
    if claim is not None:
        claim(entry)
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
        yield StagedInstall(
            home, source, fetched, entry, folder, aliases, replaced, fetched_hash, digest,
            cache, files, size, shown, follows, checkpoint, progress,
        )  # fmt: skip


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
