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
groups, grants, ``gateway prefer``'s order) is not the one of the set the gateway runs —
the gateway's own reads and its call journal change nothing. That one is the fingerprint
of what the last evaluation read (``package_set_digest`` of its packages and order), never
a read of the store before or after it: a change and its undo made while an evaluation
runs (``gateway disable X``, ``gateway enable X``) leave the store as it was when a
fingerprint read before would have been taken, and the set evaluated in between would run
until the next change. The comparison and the evaluation take the same lock, so an apply
on SIGHUP is never compared with an older fingerprint. A new ``gateway prefer`` order
rearranges the registry's clashing names at once (its clients are told), restarting
nothing. An evaluation that could not read the store (a writer holding it, a store being
replaced) is tried again — after 0.25 s, then twice as long each time up to 8 s — until one
reads it: the write that made the change has woken the watch already, and no other may come.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import anyio

from gateway.base import Inotify
from gateway.host._dependencies import depths, selected
from gateway.host._gateway import Gateway
from gateway.host._preference import clash_preference
from gateway.packages import NoAdapters, PackageStatus, evaluate_packages, load_adapters
from gateway.store import (
    STATE_FILE,
    StateStore,
    StoreError,
    package_set_digest,
    package_set_fingerprint,
)

__all__ = ["DRAIN", "PackageChanges", "apply_package_changes", "follow_packages"]

DRAIN = 30.0
"""Seconds the calls in flight to a package that leaves or restarts get before it stops."""
_RETRY_FIRST, _RETRY_LAST = 0.25, 8.0
"""Seconds before the watch reads a store it could not read again, doubled each time."""
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


@dataclass(frozen=True, slots=True)
class _Evaluated:
    """The installed packages and their gates (``--package`` applied), the clash order, and
    the fingerprint of exactly what was read (every package, before ``--package``)."""

    statuses: list[PackageStatus]
    preferred: list[str]
    fingerprint: str


def _evaluate(gateway: Gateway) -> _Evaluated | None:
    """The installed packages and their gates now; None when the store cannot say."""
    home = gateway.config.home
    if not (home / STATE_FILE).exists():
        return _Evaluated([], [], package_set_digest([], []))
    try:
        statuses = evaluate_packages(home, load_adapters())
        with StateStore.open(home) as store:
            preferred = store.preferred()
    except (StoreError, NoAdapters):
        return None  # the next load reports it; the running packages stay as they are
    fingerprint = package_set_digest((status.package for status in statuses), preferred)
    only = gateway.config.packages
    statuses = statuses if only is None else selected(statuses, only)
    return _Evaluated(statuses, preferred, fingerprint)


@dataclass(slots=True)
class _Following:
    """One gateway's applies: one at a time, and the fingerprint of the set it runs."""

    lock: anyio.Lock = field(default_factory=anyio.Lock)
    applied: str | None = None
    """What the last evaluation read, once the gateway runs it; None when not known (none
    yet, one under way, or a reload that evaluated the store itself)."""
    running: tuple[PackageStatus, ...] = ()
    """The gateway's packages as that apply left them."""
    unread: bool = False
    """The last look at the store could not read it: what it holds may not run yet."""

    def ran(self, gateway: Gateway, fingerprint: str | None) -> None:
        self.applied, self.running = fingerprint, tuple(gateway.packages)

    def runs(self, gateway: Gateway) -> str | None:
        """The fingerprint of the set the gateway runs; None when it has evaluated the
        store by itself since (a reload, a package restarted for its settings): each
        restart puts in new statuses."""
        packages = gateway.packages
        same = len(packages) == len(self.running) and all(
            now is then for now, then in zip(packages, self.running, strict=True)
        )
        return self.applied if same else None


_FOLLOWING: weakref.WeakKeyDictionary[Gateway, _Following] = weakref.WeakKeyDictionary()


async def apply_package_changes(
    gateway: Gateway, told: Callable[[PackageChanges], None] | None = None
) -> PackageChanges:
    """Run the installed packages as they are now (one apply at a time per gateway).
    ``told`` hears of the changes before they are applied: what a client sees next (a
    changed list) is never news the server has not said yet. Each package restarts as this
    evaluation found it, never as a later read of the store would (a ``gateway sync``
    still writing): what was told is what runs. A change no client sees (a package
    installed but not yet trusted) is applied and not told."""
    following = _FOLLOWING.setdefault(gateway, _Following())
    async with following.lock:
        return await _apply(gateway, following, told)


async def _apply_if_changed(
    gateway: Gateway, told: Callable[[PackageChanges], None] | None
) -> None:
    """Apply when the store's package set is not the one the gateway runs."""
    following = _FOLLOWING.setdefault(gateway, _Following())
    async with following.lock:
        home = gateway.config.home
        current = await anyio.to_thread.run_sync(package_set_fingerprint, home)
        following.unread = current is None and (home / STATE_FILE).is_file()
        if current is not None and current != following.runs(gateway):
            await _apply(gateway, following, told)


async def _apply(
    gateway: Gateway, following: _Following, told: Callable[[PackageChanges], None] | None
) -> PackageChanges:
    evaluated = await anyio.to_thread.run_sync(_evaluate, gateway)
    following.unread = evaluated is None
    if evaluated is None:
        return PackageChanges()  # what runs is still what ``applied`` says
    statuses, home = evaluated.statuses, gateway.config.home
    ids = {s.id for s in statuses}
    preferred, _ = await anyio.to_thread.run_sync(clash_preference, home, ids, evaluated.preferred)
    gateway.registry.prefer(preferred)  # who owns a clashing name: nothing restarts for it
    before = {s.id: s for s in gateway.packages}
    after = {s.id: s for s in statuses}
    changed = [
        i for i in {**before, **after}
        if i not in before or i not in after or _shape(before[i]) != _shape(after[i])
    ]  # fmt: skip
    if not changed:
        following.ran(gateway, evaluated.fingerprint)
        return PackageChanges()
    following.ran(gateway, None)  # until the gateway runs what was evaluated
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
        await gateway.reload()  # it reads the store itself: what it runs stays unknown
        return changes
    depth = depths(statuses)
    for package_id in sorted(changed, key=lambda i: (i not in removed, depth.get(i, 0))):
        await gateway.restart_package(package_id, DRAIN, statuses)
    following.ran(gateway, evaluated.fingerprint)
    return changes


async def follow_packages(
    gateway: Gateway, told: Callable[[PackageChanges], None] | None = None
) -> None:
    """Apply what changed since the gateway loaded, then each change of the store's package
    set, until cancelled (``told`` hears of each). Where inotify is not available it
    applies once and returns."""
    # Watched before the first evaluation: a change made while it runs is seen next.
    inotify = _watch(gateway.config.home)
    try:
        await apply_package_changes(gateway, told)
        if inotify is None:
            return  # no inotify here: SIGHUP (serve) or a reload applies a change
        following, retry = _FOLLOWING.setdefault(gateway, _Following()), _RETRY_FIRST
        while True:
            if following.unread:
                with anyio.move_on_after(retry):
                    await _store_written(inotify)
                retry = min(retry * 2, _RETRY_LAST)
            else:
                await _store_written(inotify)
                retry = _RETRY_FIRST
            await _apply_if_changed(gateway, told)
    finally:
        if inotify is not None:
            inotify.close()


async def _store_written(inotify: Inotify) -> None:
    """Until a writer of the store has written to it."""
    while True:
        await anyio.wait_readable(inotify.fd)
        if any(_written(name, mask) for _, name, mask in inotify.read()):
            return


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
