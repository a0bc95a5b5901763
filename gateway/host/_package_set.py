"""A package set that changes under a running gateway: ``gateway install``, ``update``,
``uninstall``, ``sync``, ``grant``, ``trust``, ``enable`` (often another process) change the
store; ``apply_package_changes`` runs the difference without stopping what did not change.

It evaluates the installed packages again and compares each with what the gateway holds;
each package that differs (added, removed, a gate passed or lost, another version or files,
other grants) is restarted on its own (``Gateway.restart_package``): its tools, commands
and hooks leave the registry at once (a call that comes now is an unknown tool), the
requests already sent to it get ``DRAIN`` seconds to be answered, then it stops, and —
when it is (still) installed and ready — it starts again as a load would, in dependency
order. A change that touches a package the user grouped into a shared process (``gateway
group``) reloads every package instead (``Gateway.reload``: calls in flight then fail), as
the members of a shared process start and stop together. The registry's change reaches the
clients (``notifications/tools/list_changed``).

``follow_packages`` applies at once (what changed since the gateway loaded) and then each
time the store changes (inotify on Linux; elsewhere ``gateway serve`` applies on SIGHUP),
when the package set's fingerprint (``package_set_fingerprint``: versions, files, gates,
groups, grants, ``gateway prefer``'s order) is not the one applied last — the gateway's
own reads and its call journal change nothing. A new ``gateway prefer`` order rearranges
the registry's clashing names at once (its clients are told), restarting nothing.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import anyio

from gateway.base import Inotify
from gateway.host._dependencies import depths, selected
from gateway.host._gateway import Gateway
from gateway.host._preference import clash_preference
from gateway.packages import NoAdapters, PackageStatus, evaluate_packages, load_adapters
from gateway.store import STATE_FILE, StoreError, package_set_fingerprint

__all__ = ["DRAIN", "PackageChanges", "apply_package_changes", "follow_packages"]

DRAIN = 30.0
"""Seconds the calls in flight to a package that leaves or restarts get before it stops."""
_STORE_FILES = frozenset({STATE_FILE, f"{STATE_FILE}-wal"})
_STORE_WRITES = Inotify.MODIFY | Inotify.CREATE | Inotify.MOVED_TO
"""What a writer of the store does: data written to the database or its log, the database
made or moved in. Not a file closed: every reader of the store (the fingerprint read here
among them) opens and closes the log for writing, which would wake the watch it read for."""


def _written(name: str, mask: int) -> bool:
    return bool(
        (name in _STORE_FILES and mask & Inotify.MODIFY)
        or (name == STATE_FILE and mask & (Inotify.CREATE | Inotify.MOVED_TO))
    )


@dataclass(frozen=True, slots=True)
class PackageChanges:
    """What one ``apply_package_changes`` did (ids, in the order it did them)."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    restarted: tuple[str, ...] = ()
    reloaded: bool = False

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.restarted or self.reloaded)


def _shape(status: PackageStatus) -> tuple[object, ...]:
    """What a package runs as: a difference means it is restarted."""
    package = status.package
    return (
        status.ready,
        package.record.version,
        package.record.content_hash,
        str(package.record.path),
        tuple(sorted(package.granted)),
        package.process_group,
        status.runtime,
        tuple(status.reasons) if not status.ready else (),
    )


def _evaluate(gateway: Gateway) -> list[PackageStatus] | None:
    """The installed packages and their gates now; None when the store cannot say."""
    home = gateway.config.home
    if not (home / STATE_FILE).exists():
        return []
    try:
        statuses = evaluate_packages(home, load_adapters())
    except (StoreError, NoAdapters):
        return None  # the next load reports it; the running packages stay as they are
    only = gateway.config.packages
    return statuses if only is None else selected(statuses, only)


_LOCKS: weakref.WeakKeyDictionary[Gateway, anyio.Lock] = weakref.WeakKeyDictionary()


async def apply_package_changes(
    gateway: Gateway, told: Callable[[PackageChanges], None] | None = None
) -> PackageChanges:
    """Run the installed packages as they are now (one apply at a time per gateway).
    ``told`` hears of the changes before they are applied: what a client sees next (a
    changed list) is never news the server has not said yet. Each package restarts as this
    evaluation found it, never as a later read of the store would (a ``gateway sync``
    still writing): what was told is what runs. A change no client sees (a package
    installed but not yet trusted) is applied and not told."""
    lock = _LOCKS.setdefault(gateway, anyio.Lock())
    async with lock:
        statuses = await anyio.to_thread.run_sync(_evaluate, gateway)
        if statuses is None:
            return PackageChanges()
        home, ids = gateway.config.home, {s.id for s in statuses}
        preferred, _ = await anyio.to_thread.run_sync(clash_preference, home, ids)
        gateway.registry.prefer(preferred)  # who owns a clashing name: nothing restarts for it
        before = {s.id: s for s in gateway.packages}
        after = {s.id: s for s in statuses}
        changed = [
            i for i in {**before, **after}
            if i not in before or i not in after or _shape(before[i]) != _shape(after[i])
        ]  # fmt: skip
        if not changed:
            return PackageChanges()
        ready = {i for i, s in before.items() if s.ready}
        added = tuple(i for i in changed if i not in ready and i in after and after[i].ready)
        removed = tuple(i for i in changed if i in ready and (i not in after or not after[i].ready))
        restarted = tuple(i for i in changed if i in ready and i not in removed)
        grouped = any(
            status.package.process_group is not None
            for i in changed
            for status in (before.get(i), after.get(i))
            if status is not None
        )
        changes = PackageChanges(added, removed, restarted, reloaded=grouped)
        if told is not None and changes:
            told(changes)
        if grouped:
            await gateway.reload()
            return changes
        depth = depths(statuses)
        for package_id in sorted(changed, key=lambda i: (i not in removed, depth.get(i, 0))):
            await gateway.restart_package(package_id, DRAIN, statuses)
        return changes


async def follow_packages(
    gateway: Gateway, told: Callable[[PackageChanges], None] | None = None
) -> None:
    """Apply what changed since the gateway loaded, then each change of the store's package
    set, until cancelled (``told`` hears of each). Where inotify is not available it
    applies once and returns."""
    home = gateway.config.home

    async def apply() -> str | None:
        seen = await anyio.to_thread.run_sync(package_set_fingerprint, home)
        await apply_package_changes(gateway, told)
        return seen

    # Watched before the first evaluation: a change made while it runs is seen next.
    inotify = _watch(home)
    try:
        applied = await apply()
        if inotify is None:
            return  # no inotify here: SIGHUP (serve) or a reload applies a change
        while True:
            await anyio.wait_readable(inotify.fd)
            if not any(_written(name, mask) for _, name, mask in inotify.read()):
                continue
            current = await anyio.to_thread.run_sync(package_set_fingerprint, home)
            if current is not None and current != applied:
                applied = await apply()
    finally:
        if inotify is not None:
            inotify.close()


def _watch(home: Path) -> Inotify | None:
    """An inotify watch on ``home``; None where there is none (not Linux, no inotify)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        inotify = Inotify()
    except OSError:
        return None
    inotify.add(home, _STORE_WRITES)
    return inotify
