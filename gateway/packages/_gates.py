"""The activation pipeline: installed → trusted → permissions granted → dependencies met →
enabled → active.

Each gate is checked for every installed package and each failure says why, so `status`
can show the whole picture rather than the first refusal. Packages depending on other
packages are ordered so their dependencies come first; a cycle of hard edges is refused,
and a package whose dependency is not active is blocked — nothing else is affected.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gateway.base import Diagnostic, find_code
from gateway.model import AdapterSet, CallPlan, CatalogEntry, Dependency, LaunchRefusal, LaunchSpec
from gateway.packages import _codes
from gateway.packages._adapters import plan_calls, plan_launch
from gateway.packages._aliases import recorded_source
from gateway.packages._last_start import recalled_load_failure
from gateway.packages.environment import environment_status
from gateway.packages.secrets import secret_status
from gateway.store import (
    ContentHashError,
    InstalledPackage,
    StateStore,
    content_hash,
    fingerprint_changed,
)

__all__ = ["PackageStatus", "evaluate_packages"]


@dataclass(slots=True)
class PackageStatus:
    package: InstalledPackage
    entry: CatalogEntry
    trusted: bool
    missing_permissions: list[str]
    unmet_dependencies: list[str]
    enabled: bool
    runtime: LaunchSpec | LaunchRefusal | None
    """None: no process of its own (the gateway runs nimlet's formats natively, and the
    ``calls``); a spec: a sidecar runs it; a refusal: it cannot run here, and why."""
    blocked_by: list[str] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    calls: CallPlan | None = None
    """What the gateway runs itself for it (per-call tools, prompt commands), when its
    adapter plans that (``CallPlanner``); None: nothing of the kind."""
    secrets: dict[str, bool] = field(default_factory=dict)
    """Each secret it declares: set or not (never the value)."""
    environment: dict[str, dict[str, bool]] = field(default_factory=dict)
    """Each variable it declares needing (``environment`` dependencies): set in the user's
    environment or not, granted to it (``env:NAME``) or not — never the value."""
    load_failure: str | None = None
    """Why its code did not load when it last started (this content), or in this gateway
    once started here; None: it loaded, or has not started yet."""
    files_missing: bool = False
    """Its installed folder is gone: nothing of it can run (nor be trusted) until it is
    installed again, whatever the user decided for it."""

    @property
    def id(self) -> str:
        return self.package.id

    @property
    def gates_passed(self) -> bool:
        return (
            self.trusted
            and not self.files_missing
            and not self.missing_permissions
            and not self.unmet_dependencies
            and self.enabled
            and not self.blocked_by
        )

    @property
    def runtime_available(self) -> bool:
        return not isinstance(self.runtime, LaunchRefusal)

    @property
    def ready(self) -> bool:
        """Every gate passed and its runtime available: what a gateway starts."""
        return self.gates_passed and self.runtime_available

    @property
    def active(self) -> bool:
        """Ready, and its code did not fail to load when it last started."""
        return self.ready and self.load_failure is None

    @property
    def reasons(self) -> list[str]:
        """Why it is not active, one short phrase per failed gate."""
        reasons = []
        if self.files_missing:  # then trust is not a reason: it cannot be given anyway
            reasons.append("its installed files are missing")
        elif not self.trusted:
            reasons.append("not trusted")
        if self.missing_permissions:
            reasons.append("permissions not granted: " + ", ".join(self.missing_permissions))
        if self.unmet_dependencies:
            reasons.append("dependencies not met: " + "; ".join(self.unmet_dependencies))
        if not self.enabled:
            reasons.append("disabled")
        if self.blocked_by:
            reasons.append("blocked by inactive " + ", ".join(self.blocked_by))
        if self.gates_passed and isinstance(self.runtime, LaunchRefusal):
            reasons.append(self.runtime.reason)
        if self.ready and self.load_failure is not None:
            reasons.append(f"failed to load: {self.load_failure}")
        return reasons

    @property
    def state(self) -> str:
        """One phrase: ``active``, ``failed to load at its last start: …`` (``--json`` has
        the whole reason) or ``inactive: …``."""
        if self.active:
            return "active"
        if self.ready:  # the reason's first line: a stack trace's head says what failed
            first = (self.load_failure or "").strip().splitlines() or [""]
            return f"failed to load at its last start: {first[0][:300]}"
        return "inactive: " + "; ".join(self.reasons)

    def to_dict(self) -> dict[str, Any]:
        record = self.package.record
        return {
            "id": record.id,
            "name": record.name,
            "version": record.version,
            "ecosystem": record.ecosystem,
            "runtime": self.entry.runtime,
            "path": str(record.path),
            "source": record.source,
            "gates": {
                "installed": not self.files_missing,
                "trusted": self.trusted,
                "permissions": not self.missing_permissions,
                "dependencies": not self.unmet_dependencies and not self.blocked_by,
                "enabled": self.enabled,
            },
            "requested_permissions": [p.name for p in self.entry.permissions],
            "granted_permissions": sorted(self.package.granted),
            "group": self.package.process_group,
            "secrets": {
                name: "set" if is_set else "unset" for name, is_set in self.secrets.items()
            },
            "environment": self.environment,
            "active": self.active,
            "load_failure": self.load_failure,
            "reasons": self.reasons,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


def _refresh_hash(store: StateStore, package: InstalledPackage) -> tuple[bool, Diagnostic | None]:
    """Re-hash only what changed (size, mtime) and revoke trust when the content moved."""
    record = package.record
    if not record.path.is_dir():
        return False, _codes.GATE_DEPENDENCY_MISSING(
            f"{record.id}: installed files are missing at {record.path}; install it again",
            package=record.id,
            hint=f"gateway install {recorded_source(package)}",
        )
    try:
        if not fingerprint_changed(record.path, record.hash_cache):
            return package.trusted_for(record.content_hash), None
        digest, cache = content_hash(record.path, record.hash_cache)
    except ContentHashError as error:
        if package.trusted:
            store.set_trusted(record.id, False)
        return False, _codes.PACKAGE_CHANGED(
            f"{record.id}: its files cannot be hashed ({error}); not trusted",
            package=record.id,
        )
    revoked = store.update_content_hash(record.id, digest, cache)
    if revoked:
        return False, _codes.PACKAGE_CHANGED(
            f"{record.id}: files changed since the package was trusted; trust revoked",
            package=record.id,
            hint=f"gateway trust {record.id}",
        )
    return package.trusted and package.trusted_hash == digest, None


def _check_dependency(
    dependency: Dependency, root: Path, installed: dict[str, str], stored: dict[str, bool]
) -> str | None:
    """None when met, else a short reason. ``stored``: the package's secrets, set or not."""
    kind, name, spec = dependency.kind, dependency.name, dependency.specifier or ""
    if kind == "python":
        # Imported here: importlib.metadata costs every command ~10-50 ms otherwise.
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as distribution_version

        try:
            found = distribution_version(name)
        except PackageNotFoundError:
            return f"python distribution {name} is not installed"
        return _version_problem(f"python {name}", found, spec)
    if kind == "npm":
        if dependency.provided_by_host:
            return None  # The sidecar supplies host SDK packages.
        if not (root / "node_modules" / name / "package.json").is_file():
            return f"npm module {name} is not installed in the package"
        return None
    if kind == "executable":
        return None if shutil.which(name) else f"executable {name} is not on PATH"
    if kind == "environment":
        # Presence only: the value reaches the package once granted (env:NAME), or as a
        # value the user stored for it (gateway secret set); never because it is declared.
        if os.environ.get(name) or stored.get(name):
            return None
        return f"environment variable {name} is not set"
    if kind == "extension":
        if name not in installed:
            return f"package {name} is not installed"
        return _version_problem(f"package {name}", installed[name], spec)
    return f"unknown dependency kind {kind!r}"


def _version_problem(what: str, found: str, spec: str) -> str | None:
    if not spec:
        return None
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    try:
        if Version(found) in SpecifierSet(spec):
            return None
    except (InvalidSpecifier, InvalidVersion):
        return f"{what} {found} cannot be checked against {spec!r}"
    return f"{what} {found} does not satisfy {spec}"


def _order(statuses: dict[str, PackageStatus]) -> tuple[list[str], set[str]]:
    """Dependencies first; returns the order and the ids caught in hard cycles."""
    edges = {
        package_id: [
            d.name
            for d in status.entry.dependencies
            if d.kind == "extension" and not d.optional and d.name in statuses
        ]
        for package_id, status in statuses.items()
    }
    order: list[str] = []
    state: dict[str, int] = {}  # 1 visiting, 2 done
    cyclic: set[str] = set()

    def visit(node: str, path: list[str]) -> None:
        if state.get(node) == 2:
            return
        if state.get(node) == 1:
            cyclic.update(path[path.index(node) :])
            return
        state[node] = 1
        for target in edges[node]:
            visit(target, [*path, target])
        state[node] = 2
        order.append(node)

    for node in sorted(statuses):
        visit(node, [node])
    return order, cyclic


def evaluate_packages(home: Path, adapters: AdapterSet) -> list[PackageStatus]:
    """Every installed package with its gates, in activation order."""
    with StateStore.open(home) as store:
        packages = store.list_packages()
        statuses: dict[str, PackageStatus] = {}
        versions = {p.id: p.record.version for p in packages}
        for package in packages:
            trusted, problem = _refresh_hash(store, package)
            # Content the user trusted is the content its install read: its recorded
            # ecosystem is what detection would find (~9 ms of a 31-package home's load
            # asked every adapter again). Anything else is detected afresh.
            entry = adapters.inspect(
                package.record.path, package.record.ecosystem if trusted else None
            )
            # An optional permission holds back only what needs it, never the package.
            requested = [p.name for p in entry.permissions if not p.optional]
            secrets = secret_status(home, package.id, entry.secrets)
            # Its hash refreshed, and the decisions its gates were evaluated on (enabled,
            # trust, grants, group: ``package`` as listed): a write made meanwhile is not in
            # it, so a gateway recording what it runs never records a later state.
            current = replace(package, record=store.get_package(package.id).record)
            status = PackageStatus(
                package=current,
                entry=entry,
                trusted=trusted,
                missing_permissions=[p for p in requested if p not in package.granted],
                unmet_dependencies=[
                    reason
                    for dependency in entry.dependencies
                    if not dependency.optional
                    and (
                        reason := _check_dependency(
                            dependency, package.record.path, versions, secrets
                        )
                    )
                ],
                enabled=package.enabled,
                files_missing=not package.record.path.is_dir(),
                runtime=plan_launch(adapters, entry, home),
                calls=plan_calls(adapters, entry, home),
                load_failure=recalled_load_failure(home, package.id, current.record.content_hash),
                secrets=secrets,
                environment=environment_status(
                    [d.name for d in entry.dependencies if d.kind == "environment"],
                    package.granted,
                ),
            )
            # What install said about the package and still holds is said again.
            status.diagnostics += [d for d in entry.diagnostics if _lasting(d)]
            if problem is not None:
                status.diagnostics.append(problem)
            statuses[package.id] = status
    order, cyclic = _order(statuses)
    for package_id in order:
        status = statuses[package_id]
        if package_id in cyclic:
            status.blocked_by.append("(dependency cycle)")
            status.diagnostics.append(
                _codes.GATE_DEPENDENCY_CYCLE(
                    f"{package_id}: part of a dependency cycle among " + ", ".join(sorted(cyclic)),
                    package=package_id,
                )
            )
        for dependency in status.entry.dependencies:
            target = statuses.get(dependency.name)
            if (
                dependency.kind == "extension"
                and not dependency.optional
                and target is not None
                and package_id not in cyclic
                and not target.ready
            ):
                status.blocked_by.append(dependency.name)
        status.diagnostics.extend(_gate_diagnostics(status))
    return [statuses[package_id] for package_id in order]


def _lasting(diagnostic: Diagnostic) -> bool:
    code = find_code(diagnostic.code)
    return code is not None and code.lasting


def _gate_diagnostics(status: PackageStatus) -> Iterable[Diagnostic]:
    package = status.id
    if not status.trusted and not status.files_missing:  # missing files: said, with the fix
        yield _codes.GATE_UNTRUSTED(
            f"{package}: not trusted; nothing of it runs",
            package=package,
            hint=f"gateway inspect {package}; gateway trust {package}",
        )
    if status.missing_permissions:
        yield _codes.GATE_PERMISSION_MISSING(
            f"{package}: permissions not granted: {', '.join(status.missing_permissions)}",
            package=package,
            hint=f"gateway permissions {package} {' '.join(status.missing_permissions)}",
        )
    for reason in status.unmet_dependencies:
        yield _codes.GATE_DEPENDENCY_MISSING(f"{package}: {reason}", package=package)
    if not status.enabled:
        yield _codes.GATE_DISABLED(
            f"{package}: disabled", package=package, hint=f"gateway enable {package}"
        )
    named = [name for name in status.blocked_by if not name.startswith("(")]
    if named:
        yield _codes.GATE_BLOCKED(
            f"{package}: blocked because {', '.join(named)} is not active", package=package
        )
    if isinstance(status.runtime, LaunchRefusal):
        # A refusal whose own code says its reason (the OpenClaw SDK not installed) is said
        # once, under that code and this package: not again as runtime.unavailable, nor
        # once more for no package.
        said = [
            replace(d, package=package) if d.package is None else d
            for d in status.runtime.diagnostics
        ]
        # (its code's message may leave the remedy to its hint: the reason starts with it)
        if status.gates_passed and not any(
            status.runtime.reason.startswith(d.message) for d in said
        ):
            yield _codes.RUNTIME_UNAVAILABLE(
                f"{package}: {status.runtime.reason}", package=package, hint=status.runtime.hint
            )
        yield from said
    elif isinstance(status.runtime, LaunchSpec):
        yield from status.runtime.diagnostics
    if status.calls is not None:
        yield from status.calls.diagnostics
