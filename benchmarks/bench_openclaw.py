"""OpenClaw host benchmark: figures against baselines measured in the same run.

    python benchmarks/bench_openclaw.py [--calls N] [--plugins N]

1. cold start of one small OpenClaw plugin to ``register`` (spawn → initialize → the
   register line), warm caches, against a bare ``node -e 0`` in the same run; the same for a
   plugin importing the real SDK (``openclaw/plugin-sdk/plugin-entry``);
2. warm tool-call round trip p50/p99 through ``Gateway.call_tool`` vs the plain nimlet echo
   extension (``benchmarks/echo_extension.py``), same gateway, same run;
3. resident memory (VmRSS) per plugin when several share one sidecar, and of one alone.
Targets (issue 9): cold start ≤ 250 ms; p50 ≤ 2x nimlet; ≤ 45 MB per plugin when shared.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

from adapters import inspect_package
from adapters._sidecar import plan_sidecar
from adapters.openclaw import MIN_NODE, openclaw_package_spec
from gateway import GatewayConfig, open_gateway
from gateway.model import LaunchSpec
from gateway.packages import install, load_adapters
from gateway.runtime import child_environment, find_node
from gateway.store import StateStore

HERE = Path(__file__).resolve().parent
ECHO = HERE / "echo_extension.py"

PLAIN = """export default {
  id: "bench-@N@",
  register(api) {
    api.registerTool({
      name: "oc_echo_@N@", description: "echo",
      parameters: { type: "object", properties: { text: { type: "string" } } },
      async execute(_id, params) { return { content: [{ type: "text", text: params.text }] }; },
    });
  },
};
"""
WITH_SDK = """import { definePluginEntry } from "openclaw/plugin-sdk/plugin-entry";
export default definePluginEntry({
  id: "bench-@N@", name: "bench", description: "bench",
  register(api) {
    api.registerTool({
      name: "oc_echo_@N@", description: "echo",
      parameters: { type: "object", properties: { text: { type: "string" } } },
      async execute(_id, params) { return { content: [{ type: "text", text: params.text }] }; },
    });
  },
});
"""


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def make_plugin(root: Path, index: int, source: str = PLAIN) -> Path:
    folder = root / f"plugin{index}"
    folder.mkdir(parents=True)
    package = {"name": f"bench-oc-{index}", "version": "1.0.0", "type": "module",
               "openclaw": {"extensions": ["./index.mjs"]}}  # fmt: skip
    (folder / "package.json").write_text(json.dumps(package))
    schema = {"type": "object", "additionalProperties": False, "properties": {}}
    manifest = {"id": f"bench-{index}", "configSchema": schema,
                "contracts": {"tools": [f"oc_echo_{index}"]}}  # fmt: skip
    (folder / "openclaw.plugin.json").write_text(json.dumps(manifest))
    (folder / "index.mjs").write_text(source.replace("@N@", str(index)))
    return folder


def rss_mb(pid: int | None) -> float:
    if pid is None:
        return float("nan")
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def bare_start(plugins: list[Path], home: Path) -> tuple[float, float]:
    """(seconds to the register line, RSS MB then) of a bare sidecar hosting ``plugins``."""
    specs = [openclaw_package_spec(inspect_package(p), home, frozenset()) for p in plugins]
    spec = plan_sidecar(specs, {"HOME": str(home)}, 30.0, MIN_NODE)
    assert isinstance(spec, LaunchSpec), spec
    start = time.perf_counter()
    process = subprocess.Popen(
        spec.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env={**child_environment(), **spec.env}, cwd=plugins[0],
    )  # fmt: skip
    assert process.stdin and process.stdout
    init = {"type": "initialize", "version": 1, "workspace": str(plugins[0]), "session_id": "b"}
    process.stdin.write((json.dumps(init) + "\n").encode())
    process.stdin.flush()
    line = process.stdout.readline()
    elapsed = time.perf_counter() - start
    assert json.loads(line)["type"] == "register", line
    memory = rss_mb(process.pid)
    process.stdin.close()
    process.wait()
    return elapsed, memory


def node_start(runs: int) -> float:
    node = find_node(MIN_NODE)
    assert node
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([node, "-e", "0"], check=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def setup(root: Path) -> GatewayConfig:
    home = root / "home"
    config = GatewayConfig(home=home / ".gateway", user_home=home)
    report = install(
        config.home,
        str(make_plugin(root / "src", 0)),
        kind="local",
        inspector=load_adapters().inspect,
    )
    with StateStore.open(config.home) as store:
        store.set_trusted(report.package.record.id, True)
        store.set_enabled(report.package.record.id, True)
    folder = root / "ws" / ".nimlet" / "extensions" / "echo"
    folder.mkdir(parents=True)
    manifest = {"name": "echo", "command": [sys.executable, str(ECHO)]}
    (folder / "extension.json").write_text(json.dumps(manifest))
    return config


async def round_trip(calls: int) -> dict[str, float]:
    found: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        config = setup(Path(folder))
        async with open_gateway(Path(folder) / "ws", trust=True, config=config) as gateway:
            for name in ("echo", "oc_echo_0"):
                for _ in range(50):
                    await gateway.call_tool(name, {"text": "hi"})
                samples = []
                for _ in range(calls):
                    start = time.perf_counter()
                    await gateway.call_tool(name, {"text": "hi"})
                    samples.append(time.perf_counter() - start)
                found[f"{name}.p50"] = percentile(samples, 0.5)
                found[f"{name}.p99"] = percentile(samples, 0.99)
    return found


def starts(plugins: int, runs: int) -> dict[str, float]:
    found: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        root, home = Path(folder), Path(folder) / "home"
        home.mkdir()
        for label, source in (("plain", PLAIN), ("sdk", WITH_SDK)):
            plugin = make_plugin(root / label, 0, source)
            bare_start([plugin], home)  # warm: jiti, the OS page cache
            times, memory = zip(*(bare_start([plugin], home) for _ in range(runs)), strict=True)
            found[f"{label}.start"] = statistics.median(times)
            found[f"{label}.rss"] = statistics.median(memory)
        many = [make_plugin(root / "many", i, WITH_SDK) for i in range(plugins)]
        bare_start(many, home)
        found["shared.start"], found["shared.rss"] = bare_start(many, home)
    found["node"] = node_start(runs)
    return found


async def main(calls: int, plugins: int, runs: int) -> None:
    found = starts(plugins, runs)
    found.update(await round_trip(calls))
    ms = 1000
    print(f"bare `node -e 0`                        : {found['node'] * ms:7.1f} ms")
    for label, text in (("plain", "one small plugin"), ("sdk", "one plugin importing the SDK")):
        start, rss = found[f"{label}.start"] * ms, found[f"{label}.rss"]
        print(f"cold start to register, {text:28s}: {start:7.1f} ms "
              f"({start / (found['node'] * ms):.1f}x node -e 0), RSS {rss:.1f} MB")  # fmt: skip
    print("  target: ≤ 250 ms")
    for name, label in (("echo", "nimlet echo"), ("oc_echo_0", "openclaw plugin")):
        p50, p99 = found[f"{name}.p50"] * ms, found[f"{name}.p99"] * ms
        print(f"round trip {label:15s}: p50 {p50:6.3f} ms  p99 {p99:6.3f} ms")
    ratio = found["oc_echo_0.p50"] / found["echo.p50"]
    print(f"round trip p50 ratio openclaw/nimlet: {ratio:.2f}x (target ≤ 2x)")
    shared, start = found["shared.rss"], found["shared.start"] * ms
    print(f"shared sidecar, {plugins} SDK plugins: start {start:.1f} ms, RSS {shared:.1f} MB "
          f"= {shared / plugins:.1f} MB per plugin (target ≤ 45 MB)")  # fmt: skip


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--plugins", type=int, default=5)
    parser.add_argument("--runs", type=int, default=5)
    arguments = parser.parse_args()
    anyio.run(main, arguments.calls, arguments.plugins, arguments.runs)
