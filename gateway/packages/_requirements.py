"""After ``install COLLECTION#NAME``: the packages it names as dependencies, installed from
the same collection (a Claude Code plugin's ``dependencies`` from its marketplace), each
through ``install`` as if the user had named ``COLLECTION#DEPENDENCY``: fetched and
verified, nothing of it run, untrusted until trusted. A version range is checked against
the version the collection offers before it is recorded; one already installed in range is
kept. What cannot be resolved is a diagnostic naming it; the package itself stays
installed (as Claude Code leaves a dependency unresolved)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gateway.base import Diagnostic, Progress, no_progress
from gateway.model import AdapterSet, CatalogEntry, PackageRequirement, RequiresPackages
from gateway.packages import _codes
from gateway.packages._installer import InstallError, InstallReport, install
from gateway.packages._sources import FetchError, parse_source
from gateway.store import StateStore

__all__ = ["RequirementsReport", "install_requirements"]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,213}$")
"""A name that is only a name: never ``#``, ``/`` or ``@`` that would change the source."""
MOST = 50
"""Dependencies installed for one install, transitive ones included (a bound on a hostile
collection's chain)."""


@dataclass(slots=True)
class RequirementsReport:
    added: list[InstallReport] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    """Dependencies installed already, in range: not reinstalled."""
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "added": [
                {"id": r.entry.id, "version": r.entry.version, "source": r.package.record.source}
                for r in self.added
            ],
            "kept": list(self.kept),
        }


def install_requirements(
    home: Path,
    source_text: str,
    kind: str | None,
    report: InstallReport,
    adapters: AdapterSet,
    *,
    progress: Progress = no_progress,
    prepare: Callable[[CatalogEntry], list[Diagnostic]] | None = None,
) -> RequirementsReport:
    """Install what ``report``'s package needs from the collection ``source_text`` named
    (nothing when it named no collection's member)."""
    result = RequirementsReport()
    try:
        source = parse_source(source_text, kind)
    except FetchError:
        return result
    member = report.package.record.source_member
    if member is None:
        return result
    if source.member is None:  # git's URL#NAME: NAME was no ref but the collection's member
        source = dataclasses.replace(source, ref=None, member=member)
    pending = [(report.entry, r) for r in _requirements(adapters, report.entry)]
    seen = {report.entry.id}
    while pending:
        needed_by, requirement = pending.pop(0)
        if requirement.name in seen:
            continue
        seen.add(requirement.name)
        if len(result.added) >= MOST:
            result.diagnostics.append(
                _unresolved(needed_by, requirement, f"more than {MOST} dependencies to install")
            )
            continue
        if not _NAME.match(requirement.name):
            why = "that is not a package name the installer takes"
            result.diagnostics.append(_unresolved(needed_by, requirement, why))
            continue
        installed = _installed_version(home, requirement.name)
        if installed is not None:
            _check_installed(result, needed_by, requirement, installed)
            continue
        if requirement.collection is not None:
            result.diagnostics.append(
                _unresolved(
                    needed_by, requirement,
                    f"it is named in marketplace {requirement.collection!r}, which the "
                    "gateway cannot reach by name",
                    hint=f"gateway install MARKETPLACE#{requirement.name} (that marketplace's "
                    "folder or git URL)",
                )
            )  # fmt: skip
            continue
        wanted = dataclasses.replace(source, member=requirement.name).describe()
        progress(f"installing dependency {requirement.name} of {needed_by.id} from {wanted}")
        try:
            added = install(
                home, wanted, kind=source.kind, inspector=adapters.inspect, progress=progress,
                prepare=prepare, expect=_expect(requirement),
            )  # fmt: skip
        except InstallError as error:
            result.diagnostics.append(
                _unresolved(needed_by, requirement, str(error), hint=f"gateway install {wanted}")
            )
            continue
        result.added.append(added)
        result.diagnostics += added.diagnostics
        pending += [(added.entry, r) for r in _requirements(adapters, added.entry)]
    return result


def _requirements(adapters: AdapterSet, entry: CatalogEntry) -> list[PackageRequirement]:
    adapter = adapters.adapter(entry.ecosystem)
    if not isinstance(adapter, RequiresPackages):
        return []
    return adapter.package_requirements(entry)


def _installed_version(home: Path, package_id: str) -> str | None:
    with StateStore.open(home) as store:
        for package in store.list_packages():
            if package.id == package_id:
                return package.record.version
    return None


def _check_installed(
    result: RequirementsReport,
    needed_by: CatalogEntry,
    requirement: PackageRequirement,
    version: str,
) -> None:
    if requirement.accepts(version):
        result.kept.append(requirement.name)
        return
    how = "cannot be checked against" if requirement.accepts(version) is None else "is outside"
    result.diagnostics.append(
        _codes.REQUIREMENT_VERSION_UNSATISFIED(
            f"{needed_by.id} needs {requirement.name} {requirement.constraint}; the installed "
            f"{requirement.name} {version or '(no version)'} {how} that range and is kept",
            package=needed_by.id,
        )
    )


def _expect(requirement: PackageRequirement) -> Callable[[CatalogEntry, str, str | None], None]:
    def expect(entry: CatalogEntry, digest: str, integrity: str | None) -> None:
        if entry.id != requirement.name:
            raise InstallError(f"the collection's {requirement.name!r} is a package {entry.id!r}")
        accepted = requirement.accepts(entry.version)
        if not accepted:
            how = "cannot be checked against" if accepted is None else "does not satisfy"
            raise InstallError(
                f"the version the collection offers, {entry.version or '(none)'}, {how} "
                f"{requirement.constraint}"
            )

    return expect


def _unresolved(
    needed_by: CatalogEntry, requirement: PackageRequirement, why: str, hint: str = ""
) -> Diagnostic:
    constraint = f" {requirement.constraint}" if requirement.constraint else ""
    return _codes.REQUIREMENT_UNRESOLVED(
        f"{needed_by.id} needs {requirement.name}{constraint}, not installed: {why}",
        package=needed_by.id,
        hint=hint or None,
    )
