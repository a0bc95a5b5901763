"""A package set that changes under a running gateway: ``gateway install``, ``update``,
``uninstall``, ``sync``, ``grant``, ``trust``, ``enable`` (often another process) change the
store; the gateway applies the difference without stopping what did not change.

``apply`` evaluates the installed packages again and compares each with what runs:

- a package that is no longer installed or no longer active is **retired**: its tools,
  commands and hooks leave the registry at once (a call that comes now is an unknown tool),
  the requests already sent to it get ``DRAIN`` seconds to be answered, then it stops;
- a package that is new, or newly active, **starts** (held dormant when its registration is
  cached, as at load);
- an active package whose version, files, grants or group changed is retired and started
  again, in dependency order.

A change that touches a package the user grouped into a shared process (``gateway group``)
reloads every package instead (``Gateway.reload``: the calls in flight then fail), since the
members of a shared process start and stop together. The registry's change reaches the
clients (``notifications/tools/list_changed``).

``follow`` waits on inotify for the store to change (Linux; elsewhere only ``apply`` does
it, as ``gateway serve`` does on SIGHUP) and applies when the package set's fingerprint
(``package_set_fingerprint``: versions, files, gates, groups, grants) is not the one
applied last, so the gateway's own reads and its call journal change nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import anyio

from gateway.base import Inotify
from gateway.host._dependencies import depths
from gateway.host._loading import Loader
from gateway.host._state import GatewayState
from gateway.packages import PackageStatus
from gateway.store import STATE_FILE, package_set_fingerprint

__all__ = ["DRAIN", "PackageChanges", "PackageSet"]

DRAIN = 30.0
"""Seconds the calls in flight to a retired package get before it stops."""
_STORE_FILES = frozenset({STATE_FILE, f"{STATE_FILE}-wal"})


@dataclass(frozen=True, slots=True)
class PackageChanges:
    """What one ``apply`` did (ids, in the order it did them)."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    restarted: tuple[str, ...] = ()
    reloaded: bool = False

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.restarted or self.reloaded)


def _shape(status: PackageStatus) -> tuple[object, ...]:
    """What a running package was started from: a difference means a restart."""
    package = status.package
    return (
        package.record.version,
        package.record.content_hash,
        str(package.record.path),
        tuple(sorted(package.granted)),
        package.process_group,
        status.runtime,
    )


class PackageSet:
    def __init__(
        self,
        state: GatewayState,
        loader: Loader,
        reload: Callable[[], Awaitable[None]],
    ) -> None:
        self._state = state
        self._loader = loader
        self._reload = reload
        self._lock = anyio.Lock()
        self._applied: str | None = None

    async def remember(self) -> None:
        """The store as the gateway (re)loaded it: the fingerprint ``follow`` compares with."""
        self._applied = await anyio.to_thread.run_sync(
            package_set_fingerprint, self._state.config.home
        )

    async def apply(self) -> PackageChanges:
        async with self._lock:
            fingerprint = await anyio.to_thread.run_sync(
                package_set_fingerprint, self._state.config.home
            )
            changes = await self._apply()
            self._applied = fingerprint
            return changes

    async def _apply(self) -> PackageChanges:
        state = self._state
        statuses = await self._loader.evaluate()
        before = {s.id: s for s in state.packages if s.active}
        after = {s.id: s for s in statuses}
        removed = [i for i in before if i not in after or not after[i].active]
        added = [i for i, s in after.items() if s.active and i not in before]
        restarted = [
            i for i in before if i not in removed and _shape(before[i]) != _shape(after[i])
        ]
        # Inactive packages are listed with their new gates (gateway status, serve).
        inactive = [s for s in statuses if not s.active]
        if not (removed or added or restarted):
            state.packages = [*[s for s in state.packages if s.active], *inactive]
            return PackageChanges()
        touched = [*removed, *added, *restarted]
        grouped = any(
            (before.get(i) or after[i]).package.process_group is not None for i in touched
        )
        if grouped:
            await self._reload()
            return PackageChanges(tuple(added), tuple(removed), tuple(restarted), True)
        for package_id in [*removed, *restarted]:
            await self._loader.retire_package(package_id, DRAIN)
        depth = depths(statuses)
        for package_id in sorted([*restarted, *added], key=lambda i: depth.get(i, 0)):
            await self._loader.start_package(after[package_id])
        state.packages = [*[s for s in state.packages if s.active], *inactive]
        return PackageChanges(tuple(added), tuple(removed), tuple(restarted))

    async def _changed(self) -> bool:
        """The store's package set is not the one applied last."""
        current = await anyio.to_thread.run_sync(package_set_fingerprint, self._state.config.home)
        return current is not None and current != self._applied

    async def follow(self, applied: Callable[[PackageChanges], None] | None = None) -> None:
        """Apply each change of the store's package set until cancelled (``applied`` is told
        what changed). Returns at once where inotify is not available."""
        if not sys.platform.startswith("linux"):
            return
        try:
            inotify = Inotify()
        except OSError:
            return  # no inotify here: SIGHUP (serve) or a reload applies a change
        try:
            inotify.add(self._state.config.home)
            changed = True  # a change since the load, before the watch, counts too
            while True:
                if changed and await self._changed():
                    changes = await self.apply()
                    if applied is not None and changes:
                        applied(changes)
                await anyio.wait_readable(inotify.fd)
                changed = any(name in _STORE_FILES for _, name, _ in inotify.read())
        finally:
            inotify.close()
