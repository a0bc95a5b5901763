"""Crash and concurrency tests with real processes.

This file doubles as the child program (see the bottom), and deliberately imports nothing
heavy at module level so that children start quickly. The crash test starts one child
interpreter, which forks a victim per kill point (dozens of them).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import traceback
from collections.abc import Callable
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import gateway.store
from gateway.store import STATE_FILE, PackageRecord, StateStore

if __name__ != "__main__":  # children skip pytest: importing it would double their start-up
    import pytest

    pytestmark = pytest.mark.slow

REQUESTED = frozenset({"net", "fs.read"})
CHILD_TIMEOUT_S = 120  # only a guard against a hung child, never an assertion


def package(pid: str, chash: str, version: str = "1.0.0") -> PackageRecord:
    return PackageRecord(
        id=pid,
        name=pid,
        version=version,
        ecosystem="pi",
        source=f"./{pid}",
        source_kind="local",
        path=Path("/pkgs") / pid,
        content_hash=chash,
        installed_at=datetime(2025, 1, 1, tzinfo=UTC),
    )


def scenario() -> list[Callable[[StateStore], object]]:
    """State changes, one transaction each; several write more than one row."""
    return [
        lambda s: s.record_install(package("a", "sha256:1"), requested=REQUESTED),
        lambda s: s.set_trusted("a", True),
        lambda s: s.grant("a", {"net", "fs.read"}, REQUESTED),
        lambda s: s.record_install(package("b", "sha256:9"), requested=REQUESTED),
        lambda s: s.grant("b", {"net"}, REQUESTED),
        # changed content: trust dropped and a no-longer-requested grant removed, atomically
        lambda s: s.record_install(package("a", "sha256:2", "2.0.0"), requested={"net"}),
        lambda s: s.set_enabled("a", True),
        lambda s: s.trust_workspace("/work/project", True),
        lambda s: s.remove_package("b"),  # grants and package row together
    ]


def snapshot(store: StateStore) -> tuple[Any, ...]:
    packages = tuple(
        (
            p.id,
            p.record.version,
            p.record.content_hash,
            p.enabled,
            p.trusted,
            p.trusted_hash,
            tuple(sorted(p.granted)),
        )
        for p in store.list_packages()
    )
    return packages, tuple((str(w.path), w.trusted) for w in store.list_workspaces())


def expected_states(home: Path) -> list[tuple[Any, ...]]:
    with StateStore.open(home) as store:
        states = [snapshot(store)]
        for step in scenario():
            step(store)
            states.append(snapshot(store))
    return states


# The child imports gateway.store without running gateway/__init__.py (which pulls in the
# whole host): dozens of children each paying for that would make this file slow.
_BOOTSTRAP = """\
import runpy, sys, types
pkg = types.ModuleType("gateway")
pkg.__path__ = [sys.argv[1]]
sys.modules["gateway"] = pkg
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""
_GATEWAY_DIR = str(Path(gateway.store.__file__).resolve().parent.parent)


def run_child(
    *args: str, stdin: int | None = None, stdout: int = subprocess.DEVNULL
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", _BOOTSTRAP, _GATEWAY_DIR, __file__, *args],
        stdin=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
    )


def finish(child: subprocess.Popen[bytes]) -> str:
    """Wait for a child (closing its pipes); return its stderr."""
    with child:
        assert child.stderr is not None
        err = child.stderr.read().decode()
        child.wait(timeout=CHILD_TIMEOUT_S)
    return err


def integrity(home: Path) -> list[str]:
    with closing(sqlite3.connect(home / STATE_FILE)) as conn:
        return [row[0] for row in conn.execute("PRAGMA integrity_check")]


def test_sigkill_at_every_statement_leaves_a_complete_state(tmp_path: Path) -> None:
    states = expected_states(tmp_path / "reference")
    server = run_child("crash-all", str(tmp_path), stdout=subprocess.PIPE)
    out, err = server.communicate(timeout=CHILD_TIMEOUT_S)  # drains both pipes
    assert server.returncode == 0 and not err, err.decode()
    report = out.decode().split()
    total, exits = int(report[0]), [int(code) for code in report[1:]]
    # Every victim really died of SIGKILL: none ran to the end or failed on its own.
    assert exits == [-signal.SIGKILL] * total
    kill_points = range(1, total + 1)

    seen: list[int] = []
    for kill_at in kill_points:
        home = tmp_path / f"run{kill_at}"
        with StateStore.open(home) as store:  # recovers the WAL, finishes any migration
            state = snapshot(store)
        assert integrity(home) == ["ok"]
        assert state in states, f"torn state after statement {kill_at}: {state}"
        index = states.index(state)
        assert not seen or index >= seen[-1], f"statement {kill_at}: a committed change was lost"
        seen.append(index)
    assert seen[-1] == len(states) - 1  # killed after the final COMMIT: everything is there
    # Every intermediate state was observed, i.e. kills really landed between the steps...
    assert sorted(set(seen)) == list(range(len(states)))
    # ...and many landed inside transactions (or migrations) and were rolled back.
    assert total > 3 * len(states)


def test_concurrent_processes_lose_no_update(tmp_path: Path) -> None:
    home = tmp_path / "home"  # created concurrently by the workers: migration races too
    workers, rounds = 4, 50
    args = (str(home), str(workers), str(rounds))
    children = [run_child("worker", str(w), *args, stdin=subprocess.PIPE) for w in range(workers)]
    for child in children:  # release them together
        assert child.stdin is not None
        child.stdin.close()
        child.stdin = None  # closed: keep Popen from flushing it again
    for child in children:
        err = finish(child)
        assert child.returncode == 0, err
    with StateStore.open(home) as store:
        pkg = store.get_package("shared")
        assert pkg.granted == worker_permissions(workers, rounds)
        assert pkg.trusted
        assert len(store.list_workspaces()) == workers * rounds
    assert integrity(home) == ["ok"]


def worker_permissions(workers: int, rounds: int) -> frozenset[str]:
    return frozenset(f"w{w}.{i}" for w in range(workers) for i in range(rounds))


# -- child side ------------------------------------------------------------------------


def _crash_child(home: Path, kill_at: int) -> int:
    """Run the scenario, SIGKILLing ourselves right after the ``kill_at``-th SQL statement
    (BEGIN, each read and write, COMMIT, and the pragmas and DDL of opening/migrating).
    With ``kill_at == 0`` run to the end and return how many statements there were."""
    count = 0
    real_connect = sqlite3.connect

    class KillingConnection:
        def __init__(self, conn: sqlite3.Connection) -> None:
            self._conn = conn

        def __getattr__(self, name: str) -> Any:
            return getattr(self._conn, name)

        def _stepped(self, result: Any) -> Any:
            nonlocal count
            count += 1
            if count == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            return result

        def execute(self, *args: Any) -> Any:
            return self._stepped(self._conn.execute(*args))

        def executemany(self, *args: Any) -> Any:
            return self._stepped(self._conn.executemany(*args))

    sqlite3.connect = lambda *a, **k: KillingConnection(real_connect(*a, **k))  # type: ignore[assignment]
    try:
        with StateStore.open(home) as store:
            for step in scenario():
                step(store)
    finally:
        sqlite3.connect = real_connect
    return count


def _crash_server(root: Path) -> None:
    """Count the scenario's statements, then fork one victim process per kill point.

    Forking from this fresh interpreter (not from pytest, and with no connection open)
    makes a kill point cost milliseconds instead of a whole interpreter start-up.
    Prints the statement count, then each victim's exit code (-9 for SIGKILL).
    """
    total = _crash_child(root / "dry", 0)
    print(total, flush=True)
    for kill_at in range(1, total + 1):
        pid = os.fork()
        if pid == 0:  # the victim
            code = 1
            try:
                _crash_child(root / f"run{kill_at}", kill_at)
                code = 0
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status), flush=True)


def _worker_child(worker: int, home: Path, workers: int, rounds: int) -> None:
    sys.stdin.read()  # wait for the go signal (parent closes our stdin)
    everything = worker_permissions(workers, rounds)
    with StateStore.open(home) as store:
        # Same id and hash from every worker: the first creates it, the rest keep its grants.
        store.record_install(package("shared", "sha256:s"), requested=everything)
        store.set_trusted("shared", True)
        for i in range(rounds):
            store.grant("shared", {f"w{worker}.{i}"}, everything)
            store.trust_workspace(f"/ws/{worker}/{i}", True)
            if i % 10 == 0:  # a read-modify-write of the grants, racing the others
                store.record_install(package("shared", "sha256:s"), requested=everything)


if __name__ == "__main__":
    if sys.argv[1] == "crash-all":
        _crash_server(Path(sys.argv[2]))
    else:
        worker, home, workers, rounds = sys.argv[2:]
        _worker_child(int(worker), Path(home), int(workers), int(rounds))
