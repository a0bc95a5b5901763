"""A running ``gateway serve --mcp`` follows its package set (docs/serve.md, "Changing the
packages without a restart"):

- whenever the store changes — ``gateway install``, ``update``, ``uninstall``, ``sync``,
  ``grant``, ``trust``, ``enable`` run against the same home — the server applies the
  difference (``Gateway.follow_packages``: inotify on Linux);
- on SIGHUP it applies it too (any platform, or a store on a file system without inotify);
- with ``--lockfile FILE``, whenever FILE's content changes (a Kubernetes ConfigMap mounted
  as a folder: the kubelet swaps its ``..data`` link) it runs ``gateway sync --frozen
  --accept --lockfile FILE`` against its home, as a child process, and the store's change
  is then applied. A sync that fails changes nothing (``serve.sync_failed``).

Each change is one line on stderr; the clients learn it from the registry
(``notifications/tools/list_changed``, ``subscriptions/listen``).
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import anyio

from gateway.base import Diagnostic, Inotify
from gateway.host import Gateway, PackageChanges, apply_package_changes, follow_packages
from gateway.serve._codes import SERVE_SYNC_FAILED
from gateway.serve._heap import Resettle

__all__ = ["follow_package_set", "said"]

_SYNC_TIMEOUT = 600.0


def said(changes: PackageChanges) -> str:
    kinds = (
        ("added", changes.added),
        ("removed", changes.removed),
        ("restarted", changes.restarted),
    )
    parts = [f"{what} {', '.join(ids)}" for what, ids in kinds if ids]
    how = " (every package reloaded: a grouped package changed)" if changes.reloaded else ""
    return "gateway serve: packages changed: " + "; ".join(parts) + how


def _tell(changes: PackageChanges) -> None:
    print(said(changes), file=sys.stderr, flush=True)


async def follow_package_set(
    gateway: Gateway, lockfile: Path | None, report: Callable[[Diagnostic], None]
) -> None:
    """Until cancelled: the store, SIGHUP and, with ``lockfile``, that file."""
    heap = Resettle()  # what a change drops is collected, not kept frozen (``_heap``)

    def tell(changes: PackageChanges) -> None:
        _tell(changes)
        heap.changed()

    async with anyio.create_task_group() as group:
        group.start_soon(heap.run)
        group.start_soon(follow_packages, gateway, tell)
        group.start_soon(_on_hangup, gateway, tell)
        if lockfile is not None:
            group.start_soon(_follow_lockfile, lockfile, gateway.config.home, report)


async def _on_hangup(gateway: Gateway, tell: Callable[[PackageChanges], None]) -> None:
    with anyio.open_signal_receiver(signal.SIGHUP) as signals:
        async for _ in signals:
            changes = await apply_package_changes(gateway, tell)
            if not changes:
                print("gateway serve: SIGHUP: no package changed", file=sys.stderr, flush=True)


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


async def _follow_lockfile(path: Path, home: Path, report: Callable[[Diagnostic], None]) -> None:
    try:
        inotify = Inotify()
    except OSError:
        return  # no inotify: a new lockfile needs a restart (or `gateway sync` and SIGHUP)
    synced = await anyio.to_thread.run_sync(_digest, path)  # the start synced this one
    try:
        inotify.add(path.parent)
        while True:
            await anyio.wait_readable(inotify.fd)
            inotify.read()
            current = await anyio.to_thread.run_sync(_digest, path)
            if current is None or current == synced:
                continue
            if await _sync(home, path, report):
                synced = current
    finally:
        inotify.close()


async def _sync(home: Path, path: Path, report: Callable[[Diagnostic], None]) -> bool:
    """``gateway sync --frozen --accept --lockfile PATH`` against the served home."""
    command = [sys.executable, "-m", "gateway", "sync", "--frozen", "--accept",
               "--lockfile", str(path)]  # fmt: skip
    env = {**os.environ, "GATEWAY_HOME": str(home)}
    print(f"gateway serve: {path} changed; syncing", file=sys.stderr, flush=True)
    try:
        with anyio.fail_after(_SYNC_TIMEOUT):
            done = await anyio.run_process(command, check=False, stdin=subprocess.DEVNULL, env=env)
    except (OSError, TimeoutError) as error:
        report(SERVE_SYNC_FAILED(f"gateway sync of {path} did not run: {error}"))
        return False
    if done.returncode != 0:
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
        report(SERVE_SYNC_FAILED(
            f"gateway sync of {path} failed (exit {done.returncode}): {' / '.join(tail)}",
            hint=f"run `gateway sync --frozen --lockfile {path}` to see why; the server keeps "
            "serving the packages it has",
        ))  # fmt: skip
        return False
    return True
