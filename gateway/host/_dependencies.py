"""What installed packages need running before they start (their non-optional extension
dependencies), and the waves of starting that follow from them."""

from __future__ import annotations

from collections.abc import Iterable

from gateway.packages import PackageStatus

__all__ = ["depths", "load_order", "requires", "selected"]


def requires(status: PackageStatus) -> set[str]:
    """The packages ``status`` needs running before it starts."""
    return {
        d.name
        for d in status.entry.dependencies
        if d.kind == "extension" and not d.optional and d.name != status.id
    }


def selected(packages: list[PackageStatus], wanted: Iterable[str]) -> list[PackageStatus]:
    """The named packages and, transitively, the packages they need running."""
    by_id = {status.id: status for status in packages}
    chosen: set[str] = set()
    pending = [name for name in wanted if name in by_id]
    while pending:
        name = pending.pop()
        if name not in chosen:
            chosen.add(name)
            pending += [d for d in requires(by_id[name]) if d in by_id]
    return [status for status in packages if status.id in chosen]


def depths(packages: Iterable[PackageStatus]) -> dict[str, int]:
    """Each package's wave of starting: 0 with no dependency, else one after the last of
    its dependencies (``packages`` in activation order: dependencies come first)."""
    depth: dict[str, int] = {}
    for status in packages:
        depth[status.id] = 1 + max((depth.get(d, -1) for d in requires(status)), default=-1)
    return depth


def load_order(packages: list[PackageStatus]) -> list[PackageStatus]:
    """The load order of installed packages (``packages`` with dependencies first): by
    wave of starting, then install order (when each was first installed), then id. It
    decides name clashes and the order hooks are asked in, so it depends on nothing a
    start does (docs/architecture.md, "Name clashes")."""
    depth = depths(packages)

    def place(status: PackageStatus) -> tuple[int, str, str]:
        when = status.package.record.installed_at
        return depth[status.id], when.isoformat() if when is not None else "", status.id

    return sorted(packages, key=place)
