"""``gateway sync``: make a home hold exactly the packages of a lockfile.

All or nothing where it can be: every package to install or update is fetched once into
the home's staging (``staged_install``) and checked there against the lockfile (id,
version, content hash, an npm tarball's integrity); only when all of them match is the
real home changed — each staged copy, the one checked, moved into place and recorded.
Then the packages the lockfile does not name are uninstalled. Trust, grants, enabled state
and process groups are the user's decisions: they are applied only when ``accept`` says
the user accepted them; otherwise the differences are reported with the command that
accepts them.

Each staged package holds its package's lock until it is placed, so one sync holds several
at once, taken in the order its fetches name the ids: two syncs of one home, each holding a
lock the other waits for, would wait for ever. A home's syncs take its ``sync`` lock first,
one after another; an install holds one package's lock at a time and cannot close a cycle.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gateway.base import Diagnostic, GatewayError, Progress, no_progress
from gateway.model import CatalogEntry
from gateway.packages import _codes
from gateway.packages._installer import (
    Claim,
    InstallError,
    InstallReport,
    Prepare,
    StagedInstall,
    packages_dir,
    staged_install,
    uninstall,
)
from gateway.packages._lockfile import LockedPackage, Lockfile, config_digest
from gateway.packages._locks import held, lock_path
from gateway.packages._rewrites import HOOKS_REWRITE
from gateway.packages._sync_differences import (
    decisions,
    differences,
    held_differences,
    installed,
    pin,
    predicted,
    restore_held,
)
from gateway.packages.environment import env_grant_name
from gateway.sandbox import SANDBOX_PERMISSIONS, is_sandbox_grant
from gateway.store import StateStore

__all__ = ["SyncRefused", "SyncReport", "sync"]

_EXACT = re.compile(r"^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$")
_NPM_NAME = re.compile(r"^(?P<name>(?:@[^/@\s]+/)?[^/@\s:]+)(?:@[^/\s:]*)?$")
_TARBALL = (".tgz", ".tar.gz", ".tar")
Inspector = Callable[[Path], CatalogEntry]


class SyncRefused(GatewayError):
    """Sync did not change the home (unless ``partial``); ``diagnostics`` say why."""

    def __init__(self, diagnostics: list[Diagnostic], *, partial: bool = False) -> None:
        super().__init__(diagnostics[0].message)
        self.diagnostics = diagnostics
        self.partial = partial


@dataclass(slots=True)
class SyncReport:
    installed: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    """Each decision of the lockfile this home did not have: applied, or pending."""
    accepted: bool = False
    differences: list[str] = field(default_factory=list)
    """What still differs from the lockfile afterwards (``--frozen`` fails on any)."""
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "installed": self.installed,
            "updated": self.updated,
            "removed": self.removed,
            "unchanged": self.unchanged,
            "decisions": self.decisions,
            "accepted": self.accepted,
            "differences": self.differences,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


@dataclass(frozen=True, slots=True)
class _Fetch:
    package: LockedPackage
    text: str
    kind: str
    resolving: bool  # the source is not exact: the registry or the remote chooses
    follows: str | None = None  # git fetched at the locked commit: the ref it follows


class _Mismatch(InstallError):
    pass


def _looks_like_path(text: str) -> bool:
    return text.startswith(("/", "./", "../", "~"))


def _fetch_of(package: LockedPackage) -> _Fetch | Diagnostic:
    """What to install for ``package``, pinned where the lockfile says exactly what."""
    source = package.source
    # A collection's plugin (a Claude Code marketplace's): the collection, then #PLUGIN.
    member = f"#{source.plugin}" if source.plugin is not None else ""
    if source.kind == "local":
        if not Path(source.location).is_dir():
            return _missing(package, source.location)
        return _Fetch(package, f"{source.location}{member}", "local", False)
    if source.kind == "git":
        if _looks_like_path(source.location) and not Path(source.location).expanduser().exists():
            return _missing(package, source.location)
        ref = source.resolved or source.ref
        text = f"{source.location}#{ref}" if ref else source.location
        if member:
            text = f"{source.location}#{ref or ''}{member}"
        # Fetched at the commit, recorded as following the locked ref: `outdated` and
        # `update` then see that ref's new commits, as in the home the lockfile came from.
        follows = (source.ref or "") if source.resolved is not None else None
        return _Fetch(package, text, "git", source.resolved is None, follows)
    spec = source.location
    if _looks_like_path(spec) or spec.endswith(_TARBALL):
        if not Path(spec).expanduser().is_file():
            return _missing(package, spec)
        return _Fetch(package, spec, "npm", False)
    named = _NPM_NAME.match(spec)
    version = _npm_version(package, named["name"] if named else None)
    if named and version and _EXACT.match(version):
        return _Fetch(package, f"{named['name']}@{version}", "npm", False)
    return _Fetch(package, spec, "npm", True)


def _npm_version(package: LockedPackage, name: str | None) -> str | None:
    """The version npm published: the lockfile's, else (written before it was recorded) the
    one in the tarball's name npm gave it (``scope-name-1.4.0.tgz``), else the package's
    own — npm's for every format but a Claude plugin's."""
    source = package.source
    if source.version is not None:
        return source.version
    if name is not None and source.resolved is not None:
        stem = name.removeprefix("@").replace("/", "-") + "-"
        tarball = source.resolved
        if tarball.startswith(stem) and tarball.endswith(".tgz"):
            return tarball[len(stem) : -len(".tgz")] or None
    return package.version


def _missing(package: LockedPackage, path: str) -> Diagnostic:
    return _codes.LOCK_SOURCE_MISSING(
        f"{package.id}: its source {path} does not exist on this machine",
        package=package.id,
        hint="put the package there, or install it by hand and run `gateway lock` again",
    )


def _expect(package: LockedPackage) -> Callable[[CatalogEntry, str, str | None], None]:
    def check(entry: CatalogEntry, digest: str, tarball: str | None) -> None:
        locked = package.source.tarball_integrity
        if locked is not None and tarball is not None and tarball != locked:
            raise _Mismatch(
                f"{package.id}: the fetched npm tarball's integrity {tarball[:23]}… differs "
                f"from the locked {locked[:23]}…"
            )
        found = (entry.id, entry.version or None, digest)
        wanted = (package.id, package.version, package.integrity)
        if found != wanted:
            names = ("id", "version", "content")
            pairs = zip(names, found, wanted, strict=True)
            what = [f"{name} {f!r} (locked {w!r})" for name, f, w in pairs if f != w]
            raise _Mismatch(f"{package.id}: fetched package differs: {', '.join(what)}")

    return check


def _allowed(entry: CatalogEntry, grants: tuple[str, ...]) -> set[str]:
    own = {p.name for p in entry.permissions}
    anyone = {*SANDBOX_PERMISSIONS, HOOKS_REWRITE}  # what any package may be granted
    named = {g for g in grants if env_grant_name(g) or is_sandbox_grant(g)}
    return own | anyone | named


def _refused_grants(package: LockedPackage, entry: CatalogEntry) -> Diagnostic | None:
    extra = sorted(set(package.grants) - _allowed(entry, package.grants))
    if not extra:
        return None
    return _codes.LOCK_GRANT_REFUSED(
        f"{package.id}: the lockfile grants {', '.join(extra)}, which it does not request",
        package=package.id,
    )


def _stage(
    home: Path,
    fetches: list[_Fetch],
    inspector: Inspector,
    accept: bool,
    progress: Progress,
    stack: contextlib.ExitStack,
) -> tuple[list[StagedInstall], list[Diagnostic]]:
    """Fetch each once into the home's staging and check it against the lockfile; nothing
    is placed. What is staged stays (with its locks) until ``stack`` closes."""
    staged: list[StagedInstall] = []
    problems: list[Diagnostic] = []
    claimed: set[str] = set()
    for fetch in fetches:
        package = fetch.package
        try:
            ready = stack.enter_context(staged_install(
                home, fetch.text, kind=fetch.kind, inspector=inspector, progress=progress,
                expect=_expect(package), follows=fetch.follows, other_source="reinstall",
                claim=_claim(package, claimed)))  # fmt: skip
        except _Mismatch as error:
            problems.append(_codes.LOCK_INTEGRITY_MISMATCH(str(error), package=package.id))
            continue
        except InstallError as error:
            said = f"{package.id}: {error}"
            problems.append(_codes.LOCK_FETCH_FAILED(said, package=package.id))
            continue
        staged.append(ready)
        refused = _refused_grants(package, ready.entry) if accept else None
        problems += [refused] if refused else []
    return staged, problems


def _claim(package: LockedPackage, claimed: set[str]) -> Claim:
    """Two fetches of one id would wait for each other's lock: the second is no package
    the lockfile names under its id (ids are unique there), refused before its lock."""

    def claim(entry: CatalogEntry) -> None:
        if entry.id in claimed:
            raise _Mismatch(
                f"{package.id}: fetched package differs: id {entry.id!r} (locked {package.id!r})"
            )
        claimed.add(entry.id)

    return claim


def _apply_decisions(home: Path, package: LockedPackage, inspector: Inspector) -> None:
    with StateStore.open(home) as store:
        have = store.get_package(package.id)
        store.set_trusted(package.id, package.trusted)
        restore_held(home, package)  # what the user trusted there: its pins and its text
        wanted = frozenset(package.grants)
        if have.granted - wanted:
            store.revoke(package.id, have.granted - wanted)
        if wanted - have.granted:
            allowed = _allowed(inspector(have.record.path), package.grants)
            store.grant(package.id, wanted - have.granted, allowed)
        store.set_enabled(package.id, package.enabled)
        store.set_group([package.id], package.process_group)


def sync(
    home: Path,
    lock: Lockfile,
    *,
    inspector: Inspector,
    frozen: bool = False,
    accept: bool = False,
    prepare: Prepare | None = None,
    progress: Progress = no_progress,
    accept_command: str = "gateway sync --accept",
) -> SyncReport:
    """Raises ``SyncRefused`` (nothing changed, unless ``partial``)."""
    have = installed(home)
    report = SyncReport(accepted=accept)
    fetches: list[_Fetch] = []
    problems: list[Diagnostic] = []
    for package in sorted(lock.packages, key=lambda p: p.id):
        current = have.get(package.id)
        same = current is not None and pin(current.record) == (package.version, package.integrity)
        if same:
            report.unchanged.append(package.id)
            continue
        fetch = _fetch_of(package)
        if isinstance(fetch, Diagnostic):
            problems.append(fetch)
        elif frozen and fetch.resolving:
            problems.append(_codes.LOCK_NEEDS_RESOLVING(
                f"{package.id}: {fetch.text} is not an exact version or commit",
                package=package.id))  # fmt: skip
        else:
            fetches.append(fetch)
            (report.updated if current else report.installed).append(package.id)
    removed = sorted(set(have) - {p.id for p in lock.packages})
    if frozen and not accept:
        pending = [line for p in lock.packages for line in decisions(p, predicted(p, have))]
        withheld = _held(home, lock, report.unchanged, have, accept_command)
        pending += [f"{d.package}'s {_HELD[d.code]}" for d in withheld]
        if pending:
            problems += [*withheld, _codes.LOCK_HOME_DIFFERS(
                f"the lockfile's decisions would be left unapplied: {'; '.join(pending)}",
                hint=accept_command)]  # fmt: skip
    if accept:
        for package in lock.packages:
            current = have.get(package.id)
            if package.id in report.unchanged and current is not None:
                refused = _refused_grants(package, inspector(current.record.path))
                problems += [refused] if refused else []
    if problems:
        raise SyncRefused(problems)
    with contextlib.ExitStack() as stack:
        stack.enter_context(held(lock_path(packages_dir(home), SYNC_LOCK)))
        staged, problems = _stage(home, fetches, inspector, accept, progress, stack)
        if problems:
            raise SyncRefused(problems)
        reports = _place(staged, progress)
    report.diagnostics += _prepare(reports, prepare)
    for package_id in removed:
        progress(f"uninstalling {package_id}")
        uninstall(home, package_id)
    report.removed = removed
    after = installed(home)
    for package in sorted(lock.packages, key=lambda p: p.id):
        report.decisions += decisions(package, after.get(package.id))
        if accept:
            _apply_decisions(home, package, inspector)
        if package.config_digest != config_digest(home, package.id):
            report.diagnostics.append(_codes.LOCK_CONFIG_DIFFERS(
                f"{package.id}: its configuration here differs from the lockfile's",
                package=package.id, hint=f"gateway config {package.id}"))  # fmt: skip
    if not accept:  # a pending decision too, said with its own code
        report.diagnostics += _held(home, lock, report.unchanged, have, accept_command)
    if report.decisions and not accept:
        report.diagnostics.append(_codes.LOCK_DECISIONS_PENDING(
            f"not applied without --accept: {'; '.join(report.decisions)}",
            hint=accept_command))  # fmt: skip
    report.differences = differences(home, lock, decisions_too=accept)
    return report


SYNC_LOCK = "sync"
"""The lock a sync holds while it stages and places (not a package's: their names are
``packages_dir`` folder names, never this)."""

_HELD = {"lock.pins_differ": "pinned tools", "lock.accepted_text_differs": "accepted text"}


def _held(
    home: Path, lock: Lockfile, unchanged: list[str], have: dict[str, Any], accept_command: str
) -> list[Diagnostic]:
    """The pins and accepted text of the packages sync leaves as they are, trusted both
    here and in the lockfile, that differ from the lockfile's (a package sync installs or
    updates is untrusted until ``--accept``: its trust is the pending decision)."""
    return [
        found
        for package in sorted(lock.packages, key=lambda p: p.id)
        if package.id in unchanged
        and have[package.id].trusted_for(have[package.id].record.content_hash)
        for found in held_differences(home, package, accept_command)
    ]


def _place(staged: list[StagedInstall], progress: Progress) -> list[InstallReport]:
    """Each staged package into place, in turn: ``SyncRefused`` (``partial``) when one
    cannot be, the ones before it installed, nothing of it or the rest left behind."""
    reports: list[InstallReport] = []
    for ready in staged:
        package_id = ready.entry.id
        progress(f"installing {package_id}")
        try:
            reports.append(ready.place())
        except (OSError, GatewayError) as error:
            diagnostic = _codes.LOCK_FETCH_FAILED(
                f"{package_id}: {error} (after {len(reports)} of the changes were made)",
                package=package_id)  # fmt: skip
            raise SyncRefused([diagnostic], partial=True) from None
    return reports


def _prepare(reports: list[InstallReport], prepare: Prepare | None) -> list[Diagnostic]:
    """``install``'s last step, once the packages are placed and their locks let go; what
    it said (a compile that failed: the package's first start compiles instead)."""
    said: list[Diagnostic] = []
    if prepare is None:
        return said
    for report in reports:
        said += prepare(dataclasses.replace(report.entry, root=str(report.package.record.path)))
    return said
