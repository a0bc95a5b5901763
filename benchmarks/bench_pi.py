"""Pi sidecar benchmark: figures against baselines measured in the same run.

    python benchmarks/bench_pi.py [--calls N] [--rounds N] [--start-only] [--renewal N]

1. cold start of one small package, step by step, against a bare ``node -e 0``
   (``_pi_steps.py``): as before, with TypeBox bundled, compiled at install, again;
2. opening a gateway with one and with five installed packages (installed as ``gateway
   install`` does, compiled at install; every package started, no registration cache),
   sharing one sidecar (the default) and one sidecar each;
3. warm tool-call round trip p50/p99 through the sidecar vs through
   ``benchmarks/echo_extension.py`` (nimlet), same gateway, same run;
4. 10 concurrent 50 ms calls (wall time);
5. resident memory (VmRSS): one sidecar per package, and five packages sharing one.
6. ``--renewal N`` alone: what a new session costs when it makes a package's extensions
   again (``_pi_renewal.py``, @aliou/pi-processes, N rounds of each kind).
Targets: cold start of one small package ≤ 150 ms including the first start after install
(issue 8); p50 ≤ 2x nimlet; 10x50 ms ≤ 80 ms; ≤ 45 MB per package (issue 4).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import sys
import tempfile
import time
from pathlib import Path

import anyio
from _pi_renewal import measure, report  # beside this script
from _pi_steps import VARIANTS, start_steps  # beside this script

from gateway import GatewayConfig, open_gateway
from gateway.packages import install, load_adapters, prepare_install
from gateway.store import StateStore

HERE = Path(__file__).resolve().parent
ECHO = HERE / "echo_extension.py"

EXTENSION = """import { Type } from "typebox";
export default function (pi) {
  pi.registerTool({
    name: "pi_echo_@N@", description: "echo", parameters: Type.Object({ text: Type.String() }),
    async execute(_id, params) { return { content: [{ type: "text", text: params.text }] }; },
  });
  pi.registerTool({
    name: "pi_sleep_@N@", description: "sleep", parameters: Type.Object({ ms: Type.Number() }),
    async execute(_id, params, signal) {
      await new Promise((r) => setTimeout(r, params.ms));
      return { content: [{ type: "text", text: "ok" }] };
    },
  });
}
"""


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def make_package(root: Path, index: int) -> Path:
    folder = root / f"pkg{index}"
    (folder / "extensions").mkdir(parents=True)
    (folder / "package.json").write_text(
        json.dumps(
            {
                "name": f"bench-pi-{index}",
                "version": "1.0.0",
                "pi": {"extensions": ["./extensions/index.ts"]},
            }
        )
    )
    (folder / "extensions" / "index.ts").write_text(EXTENSION.replace("@N@", str(index)))
    return folder


def setup(root: Path, packages: int, nimlet: bool) -> GatewayConfig:
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    config = GatewayConfig(home=home / ".gateway", user_home=home, lazy_start=False)
    adapters = load_adapters()
    for index in range(packages):
        report = install(
            config.home, str(make_package(root / "src", index)), kind="local",
            inspector=adapters.inspect,
            prepare=functools.partial(prepare_install, adapters, config.home),
        )  # fmt: skip
        with StateStore.open(config.home) as store:
            store.set_trusted(report.package.record.id, True)
            store.set_enabled(report.package.record.id, True)
    if nimlet:
        folder = root / "ws" / ".nimlet" / "extensions" / "echo"
        folder.mkdir(parents=True)
        manifest = {"name": "echo", "command": [sys.executable, str(ECHO)]}
        (folder / "extension.json").write_text(json.dumps(manifest))
    (root / "ws").mkdir(exist_ok=True)
    return config


def rss_mb(pid: int | None) -> float:
    if pid is None:
        return float("nan")
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def cold_start(packages: int, shared: bool) -> tuple[float, float, float]:
    """(first open after install, a later open) seconds through open_gateway, and the
    resident MB of all its sidecars."""
    times = []
    with tempfile.TemporaryDirectory() as folder:
        config = dataclasses.replace(
            setup(Path(folder), packages, nimlet=False), shared_processes=shared
        )
        for _ in range(2):
            start = time.perf_counter()
            async with open_gateway(Path(folder) / "ws", trust=True, config=config) as gateway:
                times.append(time.perf_counter() - start)
                assert len(gateway.processes) == (1 if shared else packages)
                memory = sum(rss_mb(p.pid) for p in gateway.processes)
    return times[0], times[1], memory


async def warm(calls: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        config = setup(Path(folder), 1, nimlet=True)
        async with open_gateway(Path(folder) / "ws", trust=True, config=config) as gateway:
            found: dict[str, float] = {}
            for name in ("echo", "pi_echo_0"):
                for _ in range(50):
                    await gateway.call_tool(name, {"text": "hi"})
                samples = []
                for _ in range(calls):
                    start = time.perf_counter()
                    await gateway.call_tool(name, {"text": "hi"})
                    samples.append(time.perf_counter() - start)
                found[f"{name}.p50"] = percentile(samples, 0.5)
                found[f"{name}.p99"] = percentile(samples, 0.99)
            start = time.perf_counter()
            async with anyio.create_task_group() as group:
                for _ in range(10):
                    group.start_soon(gateway.call_tool, "pi_sleep_0", {"ms": 50})
            found["concurrent"] = time.perf_counter() - start
            sidecars = [p for p in gateway.processes if p.plan.restart]
            found["rss"] = rss_mb(sidecars[0].pid)
            found["nimlet_rss"] = rss_mb(
                next(p for p in gateway.processes if not p.plan.restart).pid
            )
    return found


def print_steps(rounds: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        package = make_package(Path(folder), 9)
        found = start_steps(package, Path(folder), rounds)
    ms, floor = 1000, found["node -e 0"]
    print(f"cold start of one small package to register (median of {rounds}, same run):")
    for name in VARIANTS:
        print(f"  {name:22s} {found[name] * ms:6.1f} ms  {found[name] / floor:4.1f}x node -e 0")
    print(f"  compiling at install   {found['compile'] * ms:6.1f} ms (once, when installed)")


async def main(calls: int, rounds: int, start_only: bool) -> None:
    print_steps(rounds)
    if start_only:
        return
    ms = 1000
    for packages in (1, 5):
        for shared in (True, False) if packages > 1 else (True,):
            first, later, memory = await cold_start(packages, shared)
            how = "one shared sidecar" if shared else "a sidecar each"
            print(
                f"open_gateway, {packages} package(s), {how:18s}: first {first * ms:6.1f} ms, "
                f"later {later * ms:6.1f} ms, RSS {memory:5.1f} MB = {memory / packages:4.1f} MB "
                "per package"
            )
    found = await warm(calls)
    for name, label in (("echo", "nimlet echo"), ("pi_echo_0", "pi sidecar")):
        p50, p99 = found[f"{name}.p50"] * ms, found[f"{name}.p99"] * ms
        print(f"round trip {label:12s}: p50 {p50:6.3f} ms  p99 {p99:6.3f} ms")
    ratio = found["pi_echo_0.p50"] / found["echo.p50"]
    print(f"round trip p50 ratio pi/nimlet: {ratio:.2f}x (target ≤ 2x)")
    print(f"10 x 50 ms concurrent: {found['concurrent'] * ms:.1f} ms (target ≤ 80 ms)")
    print(
        f"RSS per sidecar: {found['rss']:.1f} MB (nimlet python echo: {found['nimlet_rss']:.1f} MB)"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--start-only", action="store_true")
    parser.add_argument("--renewal", type=int, default=0, metavar="N")
    args = parser.parse_args()
    if args.renewal:
        report(anyio.run(measure, args.renewal))
    else:
        anyio.run(main, args.calls, args.rounds, args.start_only)
