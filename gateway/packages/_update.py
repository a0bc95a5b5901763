"""``gateway update``: a package whose source has something newer (``check_outdated``) is
reinstalled through the normal install pipeline. Trust stays only when the new version
requests no permission the old one did not: when they grew, trust is revoked and the
diagnostic names the command that gives it back (``gateway trust ID``)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gateway.base import Diagnostic, Progress, no_progress
from gateway.model import CatalogEntry
from gateway.packages import _codes
from gateway.packages._adapters import load_adapters, prepare_install
from gateway.packages._installer import InstallReport, install
from gateway.packages._outdated import Outdated, check_outdated
from gateway.store import InstalledPackage, StateStore

__all__ = ["Updated", "update_package"]


@dataclass(slots=True)
class Updated:
    check: Outdated
    report: InstallReport | None = None
    trust_kept: bool = False
    grown: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data = self.check.to_dict()
        data["updated"] = self.report is not None
        if self.report is not None:
            record = self.report.package.record
            data |= {"version": record.version, "content_hash": record.content_hash,
                     "trusted": self.report.package.trusted, "trust_kept": self.trust_kept,
                     "permissions_grown": self.grown,
                     "diagnostics": [d.to_dict() for d in self.report.diagnostics]}  # fmt: skip
        return data


def update_package(
    home: Path,
    package: InstalledPackage,
    *,
    latest: bool = False,
    inspector: Callable[[Path], CatalogEntry] | None = None,
    progress: Progress = no_progress,
) -> Updated:
    """Check ``package`` and reinstall it when something is newer. Raises ``InstallError``
    (the previous version is left intact)."""
    check = check_outdated(home, package, latest=latest)
    if not check.outdated:
        return Updated(check)
    adapters = load_adapters()
    inspect = inspector or adapters.inspect
    before = {p.name for p in inspect(package.record.path).permissions}
    prepare = functools.partial(prepare_install, adapters, home, progress=progress)
    report = install(
        home, check.install_source, kind=package.record.source_kind, inspector=inspect,
        progress=progress, prepare=prepare,
        other_source="reinstall",  # the package recorded under its id, from its source
    )  # fmt: skip
    grown = sorted({p.name for p in report.entry.permissions} - before)
    updated = Updated(check, report, grown=grown)
    if not report.result.trust_revoked:
        return updated
    if not grown:
        with StateStore.open(home) as store:
            store.set_trusted(package.id, True)
            report.package = store.get_package(package.id)
        report.diagnostics = [d for d in report.diagnostics if d.code != "gate.content_changed"]
        updated.trust_kept = True
        return updated
    report.diagnostics = [_grew(package.id, grown), *report.diagnostics]
    report.diagnostics = [d for d in report.diagnostics if d.code != "gate.content_changed"]
    return updated


def _grew(package_id: str, grown: list[str]) -> Diagnostic:
    return _codes.UPDATE_PERMISSIONS_GREW(
        f"{package_id}: the new version requests more permissions ({', '.join(grown)}); "
        "trust revoked",
        package=package_id,
        hint=f"gateway trust {package_id}",
    )
