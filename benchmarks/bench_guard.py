"""What guarding protected names at any depth costs (issue 31): a package granted
``workspace.write`` starts as the trampoline, which stays as its supervisor, and every call
that makes, changes or removes a name — and every open for writing — is made by the
supervisor instead of the kernel alone.

    python benchmarks/bench_guard.py [--spawns N] [--calls N]

Two figures, each a ratio of medians against the same policy without the guard, measured
in the same run, the variants alternating:

- **start**: spawn to exit of ``python -I -S -c pass`` (the supervisor's fork and
  hand-over), as root and as a user without ``CAP_SYS_ADMIN``;
- **per call**: inside one child, the median time of creating and writing a file in the
  workspace (open with O_CREAT, write, close), of ``mkdir``+``rmdir``, and of opening a file
  for reading (not handed over: the control, which should stay at 1.0x).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gateway.sandbox import (
    KernelSupport,
    SandboxPolicy,
    detect_support,
    grants_from,
    package_sandbox,
    python_runtime_paths,
    spawn_confined,
)

CALLS = """
import json, os, sys, time
count = int(sys.argv[1])
def median(action):
    times = []
    for index in range(count):
        start = time.perf_counter()
        action(index)
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2]
def create(index):
    with open(f"f{index}.txt", "w") as handle:
        handle.write("x")
def folder(index):
    os.mkdir(f"d{index}")
    os.rmdir(f"d{index}")
def read(index):
    with open("f0.txt") as handle:
        handle.read()
print(json.dumps({"create": median(create), "mkdir": median(folder), "read": median(read)}))
"""


def _policies(home: Path, workspace: Path) -> tuple[SandboxPolicy, SandboxPolicy, dict[str, str]]:
    sandbox = package_sandbox(
        home=home, package_id="bench", package_root=None, workspace=workspace,
        grants=grants_from(["workspace.write"]), runtime=python_runtime_paths(), limits=None,
    )  # fmt: skip
    plain = dataclasses.replace(sandbox.policy, guarded=(), guard_allowed=())
    return sandbox.policy, plain, {**os.environ, **sandbox.environment}


def _run(
    policy: SandboxPolicy,
    env: dict[str, str],
    cwd: Path,
    argv: list[str],
    support: KernelSupport | None = None,
) -> bytes:
    child = spawn_confined(
        argv, policy=policy, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        support=support,
    )  # fmt: skip
    out, err = child.communicate(timeout=120)
    if child.returncode != 0:
        raise SystemExit(f"child failed: {err.decode()}")
    return out


def starts(home: Path, workspace: Path, count: int) -> None:
    """As root (the gateway makes the namespaces in a thread) and as a user without
    ``CAP_SYS_ADMIN`` (the trampoline makes them: simulated by the support given)."""
    guarded, plain, env = _policies(home, workspace)
    here = detect_support()
    user = dataclasses.replace(here, private_mounts=False, user_namespaces=True)
    variants = {
        "plain, as root": (plain, here),
        "guarded, as root": (guarded, here),
        "plain, as a user": (plain, user),
        "guarded, as a user": (guarded, user),
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(count):
        for name, (policy, support) in variants.items():
            start = time.perf_counter()
            _run(policy, env, workspace, [sys.executable, "-I", "-S", "-c", "pass"], support)
            times[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(found) * 1000 for name, found in times.items()}
    for name, ms in medians.items():
        base = medians["plain, as root" if "root" in name else "plain, as a user"]
        print(f"start {name:20} {ms:7.1f} ms  {ms / base:.2f}x")


def calls(home: Path, workspace: Path, count: int, rounds: int = 3) -> None:
    guarded, plain, env = _policies(home, workspace)
    found: dict[str, dict[str, list[float]]] = {"plain": {}, "guarded": {}}
    for _ in range(rounds):
        for name, policy in (("plain", plain), ("guarded", guarded)):
            scratch = Path(tempfile.mkdtemp(dir=workspace))
            out = _run(policy, env, scratch, [sys.executable, "-c", CALLS, str(count)])
            shutil.rmtree(scratch)
            for call, seconds in json.loads(out).items():
                found[name].setdefault(call, []).append(seconds)
    for call in ("create", "mkdir", "read"):
        before = statistics.median(found["plain"][call]) * 1e6
        after = statistics.median(found["guarded"][call]) * 1e6
        print(f"{call:7} plain {before:7.1f} us  guarded {after:7.1f} us  {after / before:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spawns", type=int, default=20)
    parser.add_argument("--calls", type=int, default=500)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-guard-", dir=os.environ.get("BENCH_DIR")))
    try:
        workspace = root / "workspace"
        workspace.mkdir()
        with open("/proc/loadavg") as handle:
            print(f"load {handle.read().split()[0]}")
        starts(root / "home", workspace, args.spawns)
        calls(root / "home", workspace, args.calls)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
