"""Installed packages that share one process.

A runtime that can host several packages (the Node sidecar: one Node and one copy of the
host modules instead of one per package — 13 to 15 MB per package shared against 70 to 87 MB
alone) marks its launch specs with a ``share_key``; its adapter plans one process for a
group (``SharesProcesses.plan_shared_launch``). The gateway decides the groups: packages
share only when their specs carry the same key, their **granted permissions are the same**
(a process is confined to one permission set, so a package never gains what another was
granted), and their environment and timeouts are equal. A package that needs another package
running first keeps its own process (it starts in a later wave). A group of one is a plain
launch.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

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


def _group_key(status: PackageStatus, requires: Requires) -> tuple[object, ...] | None:
    spec = status.runtime
    if not isinstance(spec, LaunchSpec) or spec.share_key is None or requires(status):
        return None
    return (
        status.entry.ecosystem,
        spec.share_key,
        frozenset(status.package.granted),
        tuple(sorted(spec.env.items())),
        spec.response_timeout,
        spec.start_timeout,
    )


def group_name(share_key: str, granted: frozenset[str], taken: set[str]) -> str:
    """``<share key>`` for packages granted nothing, ``<share key>+<grants>`` otherwise; a
    digest tells apart groups that differ only in environment or timeouts."""
    name = share_key + "".join(f"+{permission}" for permission in sorted(granted))
    if name in taken:
        name += "#" + hashlib.sha256(f"{name}{len(taken)}".encode()).hexdigest()[:6]
    taken.add(name)
    return name


def shared_launches(
    statuses: Sequence[PackageStatus], adapters: AdapterSet, home: Path, requires: Requires
) -> tuple[list[SharedLaunch], list[PackageStatus]]:
    """The shared processes of the active packages ``statuses``, and the packages that run
    alone. A group whose adapter refuses the shared launch runs its packages alone."""
    groups: dict[tuple[object, ...], list[PackageStatus]] = {}
    alone: list[PackageStatus] = []
    for status in statuses:
        key = _group_key(status, requires)
        if key is None:
            alone.append(status)
        else:
            groups.setdefault(key, []).append(status)
    shared: list[SharedLaunch] = []
    taken: set[str] = set()
    for key, members in groups.items():
        adapter = adapters.adapter(members[0].entry.ecosystem)
        if len(members) == 1 or not isinstance(adapter, SharesProcesses):
            alone += members
            continue
        spec = adapter.plan_shared_launch([status.entry for status in members], home)
        if isinstance(spec, LaunchRefusal):
            alone += members
            continue
        share_key = str(key[1])
        granted = frozenset(members[0].package.granted)
        shared.append(SharedLaunch(group_name(share_key, granted, taken), tuple(members), spec))
    order = {status.id: index for index, status in enumerate(statuses)}
    alone.sort(key=lambda status: order[status.id])
    return shared, alone
