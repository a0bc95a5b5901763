"""Startup benchmark: what a CLI call costs as installed packages accumulate.

    python benchmarks/bench_startup.py [--packages N] [--runs N] [--quick]

`gateway call echo` of a nimlet tool in a workspace, through the real CLI in a fresh
process each time (the way a user runs it), with N installed, trusted and enabled packages
(a mix of nanobot Python packages, nimlet extension packages and Pi packages, none of which
owns the tool or hooks the call) against the same call with none installed, in one run.
The first call after an install is reported apart (it builds the registration caches),
as is ``gateway list``. Target: the call with 20 packages <= 1.2x the call with none.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._generated import ECHO, nanobot_package, nimlet_package, pi_package

GATEWAY = Path(sys.executable).parent / "gateway"


def gateway(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(GATEWAY), *args], env=env, capture_output=True, text=True, check=False, timeout=300
    )


def make_home(root: Path, packages: int) -> dict[str, str]:
    home = root / "home"
    home.mkdir(parents=True)
    env = {**os.environ, "HOME": str(home), "GATEWAY_HOME": str(home / ".gateway")}
    kinds = (nanobot_package, nimlet_package, pi_package)
    for index in range(packages):
        source = kinds[index % len(kinds)](root / "src", index)
        installed = gateway(env, "install", str(source), "--json")
        assert installed.returncode == 0, installed.stdout + installed.stderr
        package_id = json.loads(installed.stdout)["id"]
        for verb in ("trust", "enable"):
            done = gateway(env, verb, package_id)
            assert done.returncode == 0, done.stdout + done.stderr
    return env


def workspace(root: Path) -> Path:
    folder = root / "ws" / ".nimlet" / "extensions" / "echo"
    folder.mkdir(parents=True)
    (folder / "extension.json").write_text(
        json.dumps({"name": "echo", "command": [sys.executable, str(ECHO)]})
    )
    return root / "ws"


def timed(env: dict[str, str], *args: str) -> float:
    start = time.perf_counter()
    done = gateway(env, *args)
    elapsed = time.perf_counter() - start
    assert done.returncode == 0, done.stdout + done.stderr
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--packages", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    runs = 2 if args.quick else args.runs
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        ws = workspace(root)
        call = ("call", "echo", '{"text": "hi"}', "--workspace", str(ws), "--trust")
        empty = make_home(root / "empty", 0)
        full = make_home(root / "full", args.packages)
        first = timed(full, *call)
        first_list = timed(full, "list", "--workspace", str(ws), "--trust")
        bare, loaded, listing = [], [], []
        for _ in range(runs):  # interleaved, so drift hits both alike
            bare.append(timed(empty, *call))
            loaded.append(timed(full, *call))
            listing.append(timed(full, "list", "--workspace", str(ws), "--trust"))
    none_p50, full_p50 = statistics.median(bare), statistics.median(loaded)
    print("== startup benchmark (CLI, fresh process per call) ==")
    print(f"gateway call, no packages installed       {none_p50 * 1000:7.0f} ms")
    print(f"gateway call, {args.packages} packages installed       {full_p50 * 1000:7.0f} ms"
          f"  -> {full_p50 / none_p50:.2f}x  [target <= 1.2x]")  # fmt: skip
    print(f"first call after the installs             {first * 1000:7.0f} ms")
    print(f"gateway list, {args.packages} packages (first / later)  {first_list * 1000:7.0f} / "
          f"{statistics.median(listing) * 1000:.0f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
