"""Pi sidecar benchmark: figures against a plain nimlet extension measured in the same run.

    python benchmarks/bench_pi.py [--calls N]

1. cold start to ``register``: one small Pi package, then five (one sidecar each), through
   ``open_gateway``; the first start compiles TS with jiti, later starts reuse its cache;
   plus the bare sidecar (spawn → initialize → register line) for one package;
2. warm tool-call round trip p50/p99 through the sidecar vs through
   ``benchmarks/echo_extension.py`` (nimlet), same gateway, same run;
3. 10 concurrent 50 ms calls (wall time);
4. resident memory (VmRSS) per sidecar process.
Targets (issue 4): cold start ≤ 250 ms once cached; p50 ≤ 2x nimlet; 10x50 ms ≤ 80 ms;
≤ 45 MB per package.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

from adapters.pi.runtime import plan_pi, plan_pi_shared
from gateway import GatewayConfig, open_gateway
from gateway._spawn import child_environment
from gateway.catalog import LaunchSpec
from gateway.packages import install, load_adapters
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
    config = GatewayConfig(home=home / ".gateway", user_home=home)
    for index in range(packages):
        report = install(
            config.home, str(make_package(root / "src", index)), kind="local",
            inspector=load_adapters().inspect,
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


def bare_sidecar_start(package: Path, shared: list[Path] | None = None) -> tuple[float, float]:
    """(seconds to the register line, RSS MB at that point) of a bare sidecar; ``shared``
    hosts several packages in one sidecar."""
    if shared:
        spec = plan_pi_shared([(p.name, p, ["extensions/index.ts"]) for p in shared])
    else:
        spec = plan_pi("bench", package, ["extensions/index.ts"])
    assert isinstance(spec, LaunchSpec)
    start = time.perf_counter()
    process = subprocess.Popen(
        spec.command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=child_environment(),
        cwd=package,
    )
    assert process.stdin and process.stdout
    init = {"type": "initialize", "version": 1, "workspace": str(package), "session_id": "b"}
    process.stdin.write((json.dumps(init) + "\n").encode())
    process.stdin.flush()
    process.stdout.readline()
    elapsed = time.perf_counter() - start
    memory = rss_mb(process.pid)
    process.stdin.close()
    process.wait()
    return elapsed, memory


async def cold_start(packages: int) -> tuple[float, float]:
    """(first open, warm open) seconds through open_gateway."""
    times = []
    with tempfile.TemporaryDirectory() as folder:
        config = setup(Path(folder), packages, nimlet=False)
        for _ in range(2):
            start = time.perf_counter()
            async with open_gateway(Path(folder) / "ws", trust=True, config=config) as gateway:
                times.append(time.perf_counter() - start)
                assert len(gateway.processes) == packages
    return times[0], times[1]


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
        with tempfile.TemporaryDirectory() as other:
            package = make_package(Path(other), 9)
            found["bare"] = min(bare_sidecar_start(package)[0] for _ in range(4))
            five = [make_package(Path(other), 10 + i) for i in range(5)]
            bare_sidecar_start(package, five)  # compile once
            found["shared_start"], found["shared_rss"] = bare_sidecar_start(package, five)
    return found


async def main(calls: int) -> None:
    one_first, one_warm = await cold_start(1)
    five_first, five_warm = await cold_start(5)
    found = await warm(calls)
    ms = 1000
    print(f"cold start, 1 package : first {one_first * ms:7.1f} ms, cached {one_warm * ms:7.1f} ms")
    print(
        f"cold start, 5 packages: first {five_first * ms:7.1f} ms, cached {five_warm * ms:7.1f} ms"
    )
    print(f"bare sidecar to register (1 package, cached): {found['bare'] * ms:7.1f} ms")
    for name, label in (("echo", "nimlet echo"), ("pi_echo_0", "pi sidecar")):
        p50, p99 = found[f"{name}.p50"] * ms, found[f"{name}.p99"] * ms
        print(f"round trip {label:12s}: p50 {p50:6.3f} ms  p99 {p99:6.3f} ms")
    ratio = found["pi_echo_0.p50"] / found["echo.p50"]
    print(f"round trip p50 ratio pi/nimlet: {ratio:.2f}x (target ≤ 2x)")
    print(f"10 x 50 ms concurrent: {found['concurrent'] * ms:.1f} ms (target ≤ 80 ms)")
    print(
        f"RSS per sidecar: {found['rss']:.1f} MB (nimlet python echo: {found['nimlet_rss']:.1f} MB)"
    )
    print(
        f"shared sidecar, 5 packages: start {found['shared_start'] * ms:.1f} ms, "
        f"RSS {found['shared_rss']:.1f} MB = {found['shared_rss'] / 5:.1f} MB per package"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=500)
    anyio.run(main, parser.parse_args().calls)
