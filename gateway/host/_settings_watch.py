"""Restarting a running package when its settings or secrets change: "Nu restarts its
services when … its settings or secrets change. Running turns carry on afterwards."

``gateway config`` and ``gateway secret`` (often another process) replace
``GATEWAY_HOME/config/<id>.json`` and ``GATEWAY_HOME/secrets/<file>.json`` atomically;
``gateway auth`` the stamp of the package's sign-ins (``GATEWAY_HOME/sign-ins/<file>.stamp``:
a person signed in to a remote MCP server, whose tools are then listed again). The
watcher waits on Linux's inotify for those folders (no polling), and restarts each active
package whose settings fingerprint changed; a write that leaves the content as it was
restarts nothing. Other platforms have no such notification here: the gateway says so
once, and ``Gateway.restart_package`` (or a reload) applies a change.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio

from gateway.base import Inotify, private_dir
from gateway.host import _codes
from gateway.host._state import GatewayState
from gateway.packages import PackageConfigError, config_path
from gateway.packages.secrets import secrets_dir, secrets_path
from gateway.packages.sign_ins import sign_in_stamp, sign_ins_dir

__all__ = ["SettingsWatch", "settings_fingerprint"]

Restart = Callable[[str], Awaitable[bool]]


def settings_fingerprint(home: Path, package_id: str) -> str:
    """A digest of the package's settings and secrets files and its sign-in stamp (never
    kept, never shown)."""
    digest = hashlib.sha256()
    for path in _watched_files(home, package_id):
        try:
            digest.update(path.read_bytes() if path is not None else b"")
        except OSError:
            digest.update(b"\0absent")
        digest.update(b"\0\0")
    return digest.hexdigest()


def _watched_files(home: Path, package_id: str) -> tuple[Path | None, ...]:
    return (
        _config_file(home, package_id),
        secrets_path(home, package_id),
        sign_in_stamp(home, package_id),
    )


def _config_file(home: Path, package_id: str) -> Path | None:
    try:
        return config_path(home, package_id)
    except PackageConfigError:
        return None  # an id no config file can have


class SettingsWatch:
    def __init__(self, state: GatewayState, restart: Restart) -> None:
        self._state = state
        self._restart = restart
        self._fingerprints: dict[str, str] = {}
        self._restarts: dict[str, int] = {}
        """Restarts per package: each is said (an event, not a problem said again)."""
        self._running = False
        self._inotify: Inotify | None = None
        self._reading = anyio.Lock()
        """One reader of the events at a time: the watcher, or ``catch_up``."""

    def remember(self) -> None:
        """The fingerprints of the active packages as they (re)started."""
        home = self._state.config.home
        self._fingerprints = {
            status.id: settings_fingerprint(home, status.id)
            for status in self._state.packages
            if status.ready
        }

    def start(self) -> None:
        """Watch in the gateway's task group, once per gateway."""
        if self._running:
            return
        self._running = True
        if not sys.platform.startswith("linux"):
            if self._state.packages:
                self._state.diagnostics.add(
                    _codes.SETTINGS_UNWATCHED(
                        f"settings of running packages are not watched on {sys.platform}"
                    )
                )
            return
        inotify = self._open()
        if inotify is not None:
            # Watching from now on (not from whenever the task first runs): a change made
            # right after the load is caught up with by the next comparison.
            self._inotify = inotify
            self._state.tasks.start_soon(self._watch, inotify)

    def _open(self) -> Inotify | None:
        home = self._state.config.home
        try:
            inotify = Inotify()
        except OSError:
            return None  # no inotify (a seccomp profile, an old kernel): changes wait for a reload
        try:
            config_dir = private_dir(home / "config")
            inotify.add(config_dir)
            for child in config_dir.iterdir():
                if child.is_dir():  # npm scopes: config/@scope/name.json
                    inotify.add(child)
            inotify.add(private_dir(secrets_dir(home)))
            inotify.add(private_dir(sign_ins_dir(home)))
        except OSError:
            inotify.close()
            return None  # the folders went away (the home was removed): nothing to watch
        return inotify

    async def _watch(self, inotify: Inotify) -> None:
        try:
            while True:
                await anyio.wait_readable(inotify.fd)
                await self.catch_up()
        except OSError:
            return  # the home was removed under it
        finally:
            self._inotify = None
            inotify.close()

    async def catch_up(self) -> None:
        """Apply the changes already made (the kernel queued their events as they were
        written) before anyone compares what the load read: a command that follows
        ``gateway config`` then finds the package restarted once, never twice."""
        async with self._reading:
            inotify, home = self._inotify, self._state.config.home
            if inotify is None:
                return
            changed = set()
            for folder, name, mask in inotify.read():
                if Inotify.made_folder(mask):
                    if folder != sign_ins_dir(home):  # a package's own tokens: no restart
                        inotify.add(folder / name)
                elif Inotify.settled(mask) and not name.startswith("."):
                    changed.add(folder / name)
            await self._changed(changed)

    async def _changed(self, paths: set[Path]) -> None:
        if not paths:
            return  # most catch-ups (one per warm command): no package's files to look up
        home = self._state.config.home
        for status in list(self._state.packages):
            if not status.ready or status.id not in self._fingerprints:
                continue
            files = set(_watched_files(home, status.id))
            if not paths & files:
                continue
            fingerprint = settings_fingerprint(home, status.id)
            if fingerprint == self._fingerprints.get(status.id):
                continue
            self._fingerprints[status.id] = fingerprint
            if await self._restart(status.id):
                count = self._restarts[status.id] = self._restarts.get(status.id, 0) + 1
                again = f" (restart {count} since the gateway opened)" if count > 1 else ""
                self._state.diagnostics.add(
                    _codes.SETTINGS_RESTARTED(
                        f"{status.id}: its settings, secrets or sign-ins changed; restarted{again}",
                        package=status.id,
                    )
                )
