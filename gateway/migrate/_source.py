"""PKG as ``gateway install`` takes it — a folder, a tarball, an npm spec, a git URL — or an
installed id, resolved to a package the migration can read (and, for targets that run it
through ``gateway serve``, serve). Nothing here runs package code: installing never does."""

from __future__ import annotations

from pathlib import Path

from gateway.base import GatewayConfig
from gateway.migrate._model import Package
from gateway.packages import (
    InstallError,
    SourceError,
    evaluate_packages,
    install,
    load_adapters,
)
from gateway.packages import PackageStatus as _Status
from gateway.store import STATE_FILE, StateStore, StoreError

__all__ = ["installed_package", "resolve"]


def _status(home: Path, package_id: str) -> _Status | None:
    if not (home / STATE_FILE).exists():
        return None
    try:
        statuses = evaluate_packages(home, load_adapters())
    except StoreError as error:
        raise SourceError(f"the gateway home {home} is unusable: {error}") from None
    return next((status for status in statuses if status.id == package_id), None)


def _installed_ids(home: Path) -> set[str]:
    if not (home / STATE_FILE).exists():
        return set()
    with StateStore.open(home) as store:
        return {package.id for package in store.list_packages()}


def pending_gates(status: _Status) -> list[str]:
    """The commands that pass the gates ``status`` has not passed."""
    steps = []
    if status.missing_permissions:
        steps.append(f"gateway permissions {status.id} {' '.join(status.missing_permissions)}")
    if not status.trusted:
        steps.append(f"gateway trust {status.id}")
    if not status.enabled:
        steps.append(f"gateway enable {status.id}")
    steps += [f"(dependency) {reason}" for reason in status.unmet_dependencies]
    steps += [f"(blocked by) {name}" for name in status.blocked_by]
    return steps


def installed_package(home: Path, package_id: str) -> Package:
    status = _status(home, package_id)
    if status is None:
        raise SourceError(f"{package_id} is not installed in {home}")
    return Package(
        status.entry,
        status.package.record.path,
        installed=True,
        active=status.active,
        pending_gates=pending_gates(status),
    )


def resolve(source: str, config: GatewayConfig, *, serve: bool, scratch: Path) -> Package:
    """An installed id is used as it is. Anything else is installed — into the gateway home
    when the output serves it (``serve``), else into ``scratch``, a throwaway home, only to
    have a verified copy of its files to read and copy."""
    if source in _installed_ids(config.home):
        return installed_package(config.home, source)
    home = config.home if serve else scratch
    try:
        report = install(home, source, kind=None, inspector=load_adapters().inspect)
    except InstallError as error:
        raise SourceError(str(error), error.diagnostics) from None
    if serve:
        return installed_package(home, report.package.id)
    return Package(report.entry, report.package.record.path, installed=False)
