"""Finding and killing every descendant of the gateway, escaped ones included.

A process group is not enough: a grandchild that calls ``setsid()`` leaves its group and,
once its parent exits, would be re-parented to init and outlive the gateway. With the
gateway a child subreaper (``become_subreaper``), such orphans are re-parented to the
gateway instead, so walking the process tree from the gateway finds them all.

The walk follows ``/proc/<pid>/task/*/children`` down from the root where the kernel has
those files (``CONFIG_PROC_CHILDREN``): a few reads. Elsewhere it reads
``/proc/<pid>/stat`` of every process on the machine, which a short command (``gateway
call``) paid several times. To beat a descendant that forks while it is being killed, every
one found is stopped first, the tree is walked again until it stops growing, and only then
is everything killed.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
from collections.abc import Collection, Iterator

__all__ = ["descendants", "family", "kill_descendants", "kill_family", "reap_adopted"]


def _parents() -> Iterator[tuple[int, int]]:
    """(pid, parent pid) of every process visible in /proc."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue  # exited meanwhile
        # "pid (comm) state ppid …": comm may hold spaces and parentheses.
        fields = stat.rpartition(b")")[2].split()
        if len(fields) >= 2:
            yield int(entry), int(fields[1])


@functools.cache
def _children_files() -> bool:
    return os.path.exists(f"/proc/self/task/{os.getpid()}/children")


def _children(pid: int) -> list[int] | None:
    """The children of ``pid`` (of each of its threads: a child belongs to the thread that
    forked it), or None when they cannot be read this way."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return []  # exited meanwhile
    except OSError:
        return None
    found: list[int] = []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as handle:
                found += [int(child) for child in handle.read().split()]
        except FileNotFoundError:
            continue  # that thread exited meanwhile
        except (OSError, ValueError):
            return None
    return found


def _walk(root: int) -> list[int] | None:
    """``descendants`` through the children files; None when one could not be read."""
    found: list[int] = []
    seen: set[int] = set()
    queue = [root]
    while queue:
        children = _children(queue.pop(0))
        if children is None:
            return None
        for pid in children:
            if pid not in seen:
                seen.add(pid)
                found.append(pid)
                queue.append(pid)
    return found


def descendants(root: int | None = None) -> list[int]:
    """Every process below ``root`` (default: this process), parents before children."""
    root = os.getpid() if root is None else root
    if _children_files():
        walked = _walk(root)
        if walked is not None:
            return walked
    children: dict[int, list[int]] = {}
    for pid, parent in _parents():
        children.setdefault(parent, []).append(pid)
    found: list[int] = []
    seen: set[int] = set()
    queue = list(children.get(root, []))
    while queue:
        pid = queue.pop(0)
        if pid in seen:
            continue
        seen.add(pid)
        found.append(pid)
        queue.extend(children.get(pid, []))
    return found


def _signal(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signum)


def kill_descendants(
    root: int | None = None, *, rounds: int = 8, exclude: Collection[int] = ()
) -> list[int]:
    """SIGKILL every descendant of ``root`` (default: this process) but those in
    ``exclude`` (processes that were there before, not the gateway's); returns their pids.

    Each found process is stopped first, and the tree re-read until no new process
    appears (at most ``rounds`` times), so a fork racing the kill cannot escape it."""
    stopped: list[int] = []
    for _ in range(rounds):
        fresh = [pid for pid in descendants(root) if pid not in stopped and pid not in exclude]
        if not fresh:
            break
        for pid in fresh:
            _signal(pid, signal.SIGSTOP)
        stopped += fresh
    for pid in stopped:
        _signal(pid, signal.SIGKILL)
    return stopped


def _start_time(pid: int) -> int | None:
    """When ``pid`` started (clock ticks after boot): a pid reused by another process has
    another start time."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rpartition(b")")[2].split()
    except OSError:
        return None
    return int(fields[19]) if len(fields) > 19 else None


def family(root: int) -> list[tuple[int, int]]:
    """(pid, start time) of every process below ``root``: taken while ``root`` still runs,
    it names the ones that left its process group (``setsid``) too."""
    found = []
    for pid in descendants(root):
        started = _start_time(pid)
        if started is not None:
            found.append((pid, started))
    return found


def kill_family(members: Collection[tuple[int, int]]) -> list[int]:
    """SIGKILL each of ``members`` (from ``family``) still running as the same process,
    and everything below it; returns the pids killed."""
    killed: list[int] = []
    for pid, started in members:
        if _start_time(pid) != started:
            continue  # gone, or the pid now names another process
        killed += kill_descendants(pid, exclude=killed)
        _signal(pid, signal.SIGKILL)
        killed.append(pid)
    return killed


def reap_adopted(known: Collection[int]) -> list[tuple[int, int]]:
    """Reap this process's children that it did not start itself — orphans re-parented
    to it as a subreaper — and that have exited; returns (pid, wait status) of each.

    ``known`` are the pids the gateway spawned: their owners (``Popen``, anyio) reap those,
    and reaping them here would take their exit status away."""
    me = os.getpid()
    mine = _children(me) if _children_files() else None
    if mine is None:
        mine = [pid for pid, parent in _parents() if parent == me]
    reaped: list[tuple[int, int]] = []
    for pid in mine:
        if pid in known:
            continue
        try:
            waited, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        if waited == pid:
            reaped.append((pid, status))
    return reaped
