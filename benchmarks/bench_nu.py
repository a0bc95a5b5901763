"""Nu tools benchmark: figures against baselines measured in the same run.

    python benchmarks/bench_nu.py [--calls N] [--installs N]

1. one Nu tool call through ``Gateway.call_tool`` (a fresh Node under the permission model,
   per call) vs a bare ``node`` running the same bundle with the same arguments (spawned
   from Python with ``subprocess.run``, no gateway, no permission flags); calls alternate
   between the two so drift hits both; medians and p90;
2. the same for an ``at_most_once`` tool (two journal writes in the state store per call);
3. installing a 10-tool package (tools sharing code and an npm dependency): the whole
   ``install`` with bundling vs the same install without it, and bundling alone.
Targets (issue 10): one call at most 1.15 times bare node; bundling a 10-tool package at
install at most 2 s.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path

import anyio

from adapters._sidecars import sidecar_dir
from adapters.nu._bundle import BUNDLES_DIR, read_bundles
from adapters.nu._runner import RUNNER, tool_node
from gateway import GatewayConfig, open_gateway
from gateway.packages import install, load_adapters
from gateway.store import StateStore

MS_TARBALL = (
    Path(__file__).resolve().parents[1] / "tests" / "nu" / "fixtures" / "npm" / "ms-2.1.3.tgz"
)

TOOL = """import {{ span, label }} from "../../lib/shared.mjs";
export default (args) => ({{ tool: {index}, span: span(args.since), label: label(args.text) }});
"""
SHARED = """import ms from "ms";
export const span = (text) => ms(text);
export const label = (text) => `[${text.toUpperCase()}]`;
"""
ARGUMENTS = {"since": "36h", "text": "cache fix"}


def add_ms(package: Path) -> Path:
    """The packed npm package ``ms`` unpacked into the package's node_modules."""
    target = package / "node_modules" / "ms"
    target.mkdir(parents=True)
    with tarfile.open(MS_TARBALL) as archive:
        for member in archive.getmembers():
            if member.isfile() and member.name.startswith("package/"):
                member.name = member.name.removeprefix("package/")
                archive.extract(member, target, filter="data")
    return package


def make_package(root: Path, tools: int) -> Path:
    root.mkdir(parents=True)
    (root / "lib").mkdir()
    (root / "lib" / "shared.mjs").write_text(SHARED)
    for index in range(tools):
        folder = root / "tools" / f"t{index}"
        folder.mkdir(parents=True)
        idempotency = "at_most_once" if index == 1 else "safe_to_retry"
        manifest = {
            "name": f"bench__t{index}", "version": 1, "description": f"tool {index}",
            "args_schema": {"type": "object"}, "idempotency": idempotency, "entry": "index.mjs",
        }  # fmt: skip
        (folder / "tool.yaml").write_text(json.dumps(manifest))
        (folder / "index.mjs").write_text(TOOL.format(index=index))
    package = {"name": "bench-nu", "version": "1.0.0", "type": "module",
               "nu": {"namespace": "bench", "tools": ["tools/*/tool.yaml"]}}  # fmt: skip
    (root / "package.json").write_text(json.dumps(package))
    return add_ms(root)


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def bare_call(node: str, runner: str, bundle: Path) -> float:
    payload = json.dumps({"args": ARGUMENTS, "config": {}})
    started = time.perf_counter()
    done = subprocess.run(
        [node, "--input-type=module", "--eval", runner, str(bundle)],
        input=payload, capture_output=True, text=True, check=True,
    )  # fmt: skip
    elapsed = time.perf_counter() - started
    assert '\\"tool\\":0' in done.stdout, done.stdout + done.stderr
    return elapsed


async def calls(root: Path, count: int) -> dict[str, list[float]]:
    home = root / "home"
    report = install(home, str(make_package(root / "pkg", 2)), kind="local",
                     inspector=load_adapters().inspect)  # fmt: skip
    package = report.package.id
    with StateStore.open(home) as store:
        store.set_trusted(package, True)
        store.set_enabled(package, True)
    bundles = read_bundles(report.package.record.path)
    assert bundles is not None
    bundle = report.package.record.path / BUNDLES_DIR / bundles.tools["bench__t0"].file
    node = tool_node()
    assert node is not None
    runner = (sidecar_dir() / RUNNER).read_text()
    workspace = root / "ws"
    workspace.mkdir()
    samples: dict[str, list[float]] = {"bare": [], "gateway": [], "at_most_once": []}
    config = GatewayConfig(home=home, user_home=root)
    async with open_gateway(workspace, trust=True, config=config) as gateway:
        for tool in ("bench__t0", "bench__t1"):  # warm: page cache, journal table
            await gateway.call_tool(tool, ARGUMENTS)
        bare_call(node, runner, bundle)
        for _ in range(count):
            samples["bare"].append(bare_call(node, runner, bundle))
            started = time.perf_counter()
            result = await gateway.call_tool("bench__t0", ARGUMENTS)
            samples["gateway"].append(time.perf_counter() - started)
            assert not result.is_error, result.content
            started = time.perf_counter()
            result = await gateway.call_tool("bench__t1", dict(ARGUMENTS, n=len(samples["bare"])))
            samples["at_most_once"].append(time.perf_counter() - started)
            assert not result.is_error, result.content
    return samples


def installs(root: Path, count: int) -> dict[str, list[float]]:
    source = make_package(root / "pkg10", 10)
    inspector = load_adapters().inspect
    samples: dict[str, list[float]] = {"with": [], "without": [], "bundling": []}
    for index in range(count):
        for kind in ("without", "with"):
            home = root / f"home-{kind}-{index}"
            prepare = (lambda entry, staged, previous: []) if kind == "without" else None
            started = time.perf_counter()
            report = install(home, str(source), kind="local", inspector=inspector, prepare=prepare)
            samples[kind].append(time.perf_counter() - started)
            if kind == "with":
                bundles = read_bundles(report.package.record.path)
                assert bundles is not None and len(bundles.tools) == 10, bundles
            shutil.rmtree(home)
        # Bundling alone: the adapter's step on a staged copy.
        staged = root / f"staged-{index}"
        shutil.copytree(source, staged)
        entry = inspector(staged)
        started = time.perf_counter()
        load_adapters().adapter("nu").prepare_install(entry, staged, None)  # type: ignore[union-attr]
        samples["bundling"].append(time.perf_counter() - started)
        shutil.rmtree(staged)
    return samples


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--installs", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        measured = anyio.run(calls, root / "calls", options.calls)
        built = installs(root / "installs", options.installs)
    bare = statistics.median(measured["bare"])
    print(f"one call, {options.calls} alternating samples (median / p90):")
    for name in ("bare", "gateway", "at_most_once"):
        values = measured[name]
        median = statistics.median(values)
        print(f"  {name:13} {median * 1000:7.1f} ms / {percentile(values, 0.9) * 1000:7.1f} ms"
              f"   {median / bare:5.2f}x bare node")  # fmt: skip
    ratio = statistics.median(measured["gateway"]) / bare
    print(f"  target: gateway <= 1.15x bare node -> {'met' if ratio <= 1.15 else 'MISSED'}")
    print(f"installing a 10-tool package, {options.installs} runs (median):")
    for name in ("without", "with", "bundling"):
        print(f"  {name:13} {statistics.median(built[name]) * 1000:7.0f} ms")
    bundling = statistics.median(built["bundling"])
    print(f"  target: bundling <= 2 s -> {'met' if bundling <= 2.0 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
