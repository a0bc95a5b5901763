"""CPU per start of real OpenClaw plugins, through the CLI, and what the install-time compile
of what jiti loads saves (issue 29; docs/performance/openclaw.md).

    python benchmarks/bench_openclaw_starts.py [--runs N]

Each start is a one-shot ``gateway list`` (``GATEWAY_SESSION=off``, the registration cache
removed first, so the plugin's sidecar starts and registers), in a home of its own with one
plugin installed (packed fixtures of tests/fixtures/npm, installed with the install-time
compile); CPU is user + system of the CLI and everything it waited for. In the same run,
interleaved: the CLI with the plugin disabled (nothing starts: the baseline), and for a plugin
jiti loads, its first start with the compile cache the install wrote and with that cache
emptied (what every first start after an install paid before the install-time compile).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from adapters._precompile import compile_cache

HERE = Path(__file__).resolve().parent
NPM = HERE.parent / "tests" / "fixtures" / "npm"
PLUGINS = {
    "@laurentenhoor/devclaw": "laurentenhoor-devclaw-1.6.10.tgz",  # jiti (OpenClaw 2026.3)
    "@openclaw/nostr": "openclaw-nostr-2026.9.5.tgz",  # native (OpenClaw 2026.9), built JS
}
GATEWAY = [sys.executable, "-m", "gateway.cli"]


def gateway(home: Path, *args: str) -> float:
    """CPU seconds (user + system) of ``gateway ARGS``, children included."""
    env = {**os.environ, "GATEWAY_HOME": str(home), "HOME": str(home.parent),
           "GATEWAY_SESSION": "off"}  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([*GATEWAY, *args], env=env, cwd=home.parent, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def start(home: Path) -> float:
    shutil.rmtree(home / "cache" / "registrations", ignore_errors=True)
    return gateway(home, "list")


def measure(root: Path, package: str, tarball: str, runs: int) -> dict[str, list[float]]:
    home = root / package.replace("/", "_") / ".gateway"
    home.parent.mkdir(parents=True)
    gateway(home, "install", str(NPM / tarball))
    gateway(home, "trust", "--accept-text", package)
    cache = compile_cache(home, package)
    compiled = {p.name: p.read_bytes() for p in cache.iterdir()} if cache.is_dir() else {}
    found: dict[str, list[float]] = {"baseline": [], "installed": [], "emptied": [], "warm": []}
    for _ in range(runs):
        gateway(home, "disable", package)
        found["baseline"].append(start(home))
        gateway(home, "enable", package)
        for label in ("installed", "emptied") if compiled else ("installed",):
            shutil.rmtree(cache, ignore_errors=True)
            if label == "installed" and compiled:
                cache.mkdir(mode=0o700)
                for name, data in compiled.items():
                    (cache / name).write_bytes(data)
            found[label].append(start(home))
        found["warm"].append(start(home))
    found["compiled files"] = [float(len(compiled))]
    return found


def main(runs: int) -> None:
    print(f"load average before: {os.getloadavg()}", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        for package, tarball in PLUGINS.items():
            found = measure(Path(folder), package, tarball, runs)
            base = statistics.median(found["baseline"])
            print(f"{package} ({int(found['compiled files'][0])} modules compiled at install)")
            print(f"  gateway list, plugin disabled (baseline): {base:5.2f} s CPU")
            for label in ("installed", "emptied", "warm"):
                if found[label]:
                    cpu = statistics.median(found[label])
                    each = ", ".join(f"{v:.2f}" for v in found[label])
                    print(f"  {label:9s} start: {cpu:5.2f} s CPU, {cpu - base:5.2f} s over the "
                          f"baseline (runs {each})")  # fmt: skip
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    main(parser.parse_args().runs)
