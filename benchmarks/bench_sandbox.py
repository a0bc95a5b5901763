"""The cost of confinement per spawn: ``spawn_confined`` vs a bare ``subprocess.Popen``.

    python benchmarks/bench_sandbox.py [--spawns N] [--quick]

Each sample starts a program and waits for it to exit, so the Landlock checks the child
makes while it starts (opening its libraries, its modules) are counted too. Bare and
confined spawns alternate, so both see the same machine; the figure is the ratio of their
medians in the same run. Programs: ``/bin/true`` (the worst case: a spawn that does
nothing else), and the two interpreters the gateway starts, Python and Node.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gateway.runtime import find_node
from gateway.sandbox import (
    PackageGrants,
    detect_support,
    node_runtime_paths,
    package_sandbox,
    python_runtime_paths,
    spawn_confined,
)


def _bare(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.Popen(argv, stdin=subprocess.DEVNULL, start_new_session=True).wait()
    return time.perf_counter() - start


def _confined(argv: list[str], policy) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    spawn_confined(argv, policy=policy, stdin=subprocess.DEVNULL).wait()
    return time.perf_counter() - start


def measure(name: str, argv: list[str], policy, spawns: int) -> None:  # type: ignore[no-untyped-def]
    for _ in range(3):  # warm the page cache and the interpreter's imports
        _bare(argv)
        _confined(argv, policy)
    bare: list[float] = []
    confined: list[float] = []
    for _ in range(spawns):
        bare.append(_bare(argv))
        confined.append(_confined(argv, policy))
    b, c = statistics.median(bare), statistics.median(confined)
    print(
        f"{name:<14} bare {b * 1000:7.2f} ms   confined {c * 1000:7.2f} ms   "
        f"cost {(c - b) * 1000:+6.2f} ms = {(c / b - 1) * 100:+5.1f} %"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--spawns", type=int, default=200)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    spawns = 20 if args.quick else args.spawns
    print(f"{detect_support().describe()}; {spawns} spawns each, medians")
    node = find_node()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        workspace = root / "workspace"
        workspace.mkdir()
        sandbox = package_sandbox(
            home=root / "home",
            package_id="bench",
            package_root=None,
            workspace=workspace,
            grants=PackageGrants(),
            runtime=[*python_runtime_paths(), *node_runtime_paths(node)],
        )
        policy = sandbox.policy
        measure("/bin/true", ["/bin/true"], policy, spawns)
        measure("python -c ''", [sys.executable, "-c", ""], policy, spawns)
        if node is not None:
            measure("node -e 0", [node, "-e", "0"], policy, spawns)


if __name__ == "__main__":
    main()
