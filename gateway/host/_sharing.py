"""Installed packages that share one process — only when the user grouped them.

Each package runs in its own process, with its own sandbox and data folder, by default: in
one Node process a package can patch ``JSON.stringify``, ``fs`` or a stream writer at load
and so forge another's results or read what another reads. Sharing one process (one Node
and one copy of the host modules for several packages) is what a user opts into for the
packages they group explicitly (``gateway group NAME ID…``, ``InstalledPackage.process_group``).

Within a group, packages share only what can be shared safely: a runtime that can host
several packages marks its launch specs with a ``share_key`` and its adapter plans one
process for them (``SharesProcesses.plan_shared_launch``); members must be granted **the
same permissions** (a process is confined to one permission set, so a package never gains
what another was granted) and have equal environments and timeouts; a package that needs
another package running first keeps its own process (it starts in a later wave). A grouped
package that cannot join the others runs alone and a diagnostic says why.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gateway.base import Diagnostic
from gateway.host import _codes
from gateway.model import AdapterSet, LaunchRefusal, LaunchSpec, SharesProcesses
from gateway.packages import PackageStatus

__all__ = ["SharedLaunch", "group_name", "shared_launches"]

Requires = Callable[[PackageStatus], set[str]]


@dataclass(frozen=True, slots=True)
class SharedLaunch:
    """One process for several installed packages, in load order."""

    name: str
    statuses: tuple[PackageStatus, ...]
    spec: LaunchSpec

    @property
    def members(self) -> tuple[str, ...]:
        return tuple(status.id for status in self.statuses)


def _why_alone(status: PackageStatus, requires: Requires) -> str | None:
    spec = status.runtime
    if not isinstance(spec, LaunchSpec) or spec.share_key is None:
        return "its runtime hosts one package per process"
    if requires(status):
        return "it needs another package running first"
    return None


def _group_key(status: PackageStatus) -> tuple[object, ...]:
    spec = status.runtime
    assert isinstance(spec, LaunchSpec)
    return (
        status.package.process_group,
        status.entry.ecosystem,
        spec.share_key,
        frozenset(status.package.granted),
        tuple(sorted(spec.env.items())),
        spec.response_timeout,
        spec.start_timeout,
    )


def group_name(group: str, taken: set[str]) -> str:
    """``group:<name>``; a digest tells apart the processes of one group whose members
    differ in ecosystem, grants, environment or timeouts."""
    name = f"group:{group}"
    if name in taken:
        name += "#" + hashlib.sha256(f"{name}{len(taken)}".encode()).hexdigest()[:6]
    taken.add(name)
    return name


def shared_launches(
    statuses: Sequence[PackageStatus], adapters: AdapterSet, home: Path, requires: Requires
) -> tuple[list[SharedLaunch], list[PackageStatus], list[Diagnostic]]:
    """The shared processes of the active packages ``statuses``, the packages that run
    alone, and why a grouped package runs alone. A group whose adapter refuses the shared
    launch runs its packages alone."""
    groups: dict[tuple[object, ...], list[PackageStatus]] = {}
    alone: list[PackageStatus] = []
    notes: list[Diagnostic] = []
    grouped: dict[str, int] = {}
    for status in statuses:
        if status.package.process_group is not None:
            grouped[status.package.process_group] = grouped.get(status.package.process_group, 0) + 1
    for status in statuses:
        group = status.package.process_group
        if group is None:
            alone.append(status)
            continue
        why = _why_alone(status, requires)
        if why is not None:
            alone.append(status)
            if grouped[group] > 1:
                notes.append(_split(status.id, group, why))
            continue
        groups.setdefault(_group_key(status), []).append(status)
    shared: list[SharedLaunch] = []
    taken: set[str] = set()
    for key, members in groups.items():
        group = str(key[0])
        adapter = adapters.adapter(members[0].entry.ecosystem)
        if len(members) == 1 or not isinstance(adapter, SharesProcesses):
            alone += members
            if grouped[group] > 1:
                notes += [_split(m.id, group, _differs(m, statuses)) for m in members]
            continue
        spec = adapter.plan_shared_launch([status.entry for status in members], home)
        if isinstance(spec, LaunchRefusal):
            alone += members
            notes += [_split(m.id, group, spec.reason) for m in members]
            continue
        shared.append(SharedLaunch(group_name(group, taken), tuple(members), spec))
    order = {status.id: index for index, status in enumerate(statuses)}
    alone.sort(key=lambda status: order[status.id])
    return shared, alone, notes


def _differs(status: PackageStatus, statuses: Sequence[PackageStatus]) -> str:
    others = [
        s for s in statuses
        if s.package.process_group == status.package.process_group and s.id != status.id
    ]  # fmt: skip
    if any(s.entry.ecosystem != status.entry.ecosystem for s in others):
        return "the other members are of another ecosystem"
    if any(s.package.granted != status.package.granted for s in others):
        return "it is granted other permissions than the rest of its group"
    return "its environment or timeouts differ from the rest of its group"


def _split(package_id: str, group: str, why: str) -> Diagnostic:
    return _codes.PACKAGE_GROUP_SPLIT(
        f"{package_id} runs in its own process, not in group {group!r}: {why}",
        package=package_id,
    )
