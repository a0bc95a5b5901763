"""nanobot Python sidecar benchmark, against baselines measured in the same run.

    python benchmarks/bench_nanobot.py [--calls N] [--starts N] [--quick]

1. cold start to ``register``: the sidecar with one package, and with ten packages sharing
   one sidecar, vs the plain nimlet echo extension (``echo_extension.py``) spawned the same
   way and read to its first line; target <= 150 ms for one package;
2. tool round trip through ``Gateway.call_tool``: a nanobot package's tool (the
   authoring document's ``Tool`` subclass, so nanobot's cast/validate run per call) vs the
   plain nimlet echo extension, both in one gateway, calls interleaved so drift hits both;
   target p50 <= 1.3x the plain extension.
3. a request's trace context (``--traced-only`` runs this alone): the sidecar driven over its
   pipes with ``trace.context`` negotiated, tool calls with no trace context (what every
   call cost before the sidecar took it) against calls carrying ``gateway.traceparent``
   (now checked and set for the request's task), for a package that does not use
   OpenTelemetry and for one that imported its API (the context then also made
   OpenTelemetry's current one); the four kinds in rotating batches, wall time per round
   trip and the sidecar's CPU time per call (``/proc/PID/schedstat``, nanoseconds).

The machines here are small shared VMs: only same-run ratios are comparable.
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

from adapters.nanobot import SIDECAR_COMMAND
from gateway import GatewayConfig, open_gateway
from gateway.packages import install, load_adapters
from gateway.runtime import child_environment
from gateway.store import StateStore

HERE = Path(__file__).resolve().parent
ECHO = HERE / "echo_extension.py"
INITIALIZE = (
    json.dumps(
        {
            "type": "initialize",
            "version": 1,
            "workspace": "/",
            "session_id": "bench",
            "gateway": {"version": 1, "features": ["register.diagnostics"]},
        }
    ).encode()
    + b"\n"
)

PACKAGE_SOURCE = """
from nanobot.agent.tools.base import Tool


class Echo(Tool):
    @property
    def name(self) -> str:
        return "@NAME@"

    @property
    def description(self) -> str:
        return "Echo the text back."

    @property
    def parameters(self) -> dict:
        return {"type": "object", "properties": {"text": {"type": "string"}}}

    @property
    def read_only(self) -> bool:
        return True

    async def execute(self, text: str = "") -> str:
        return text


def register(api) -> None:
    api.register_tool(Echo())
"""


def write_package(root: Path, index: int) -> Path:
    name = f"nb_echo{index:02d}" if index else "nb_echo"
    package = root / f"pkg{index:02d}"
    (package / "bench_echo").mkdir(parents=True)
    manifest = {
        "id": f"bench.echo{index:02d}",
        "name": "bench echo",
        "version": "1.0.0",
        "runtime": "python",
        "entry": "bench_echo:register",
        "contributions": [{"kind": "tool", "name": name}],
    }
    (package / "nanobot.extension.json").write_text(json.dumps(manifest))
    (package / "bench_echo" / "__init__.py").write_text(PACKAGE_SOURCE.replace("@NAME@", name))
    return package


def first_line(command: list[str], call: str | None = None) -> float:
    """Seconds from spawn to the first stdout line (``register``), initialize written; with
    ``call``, to the reply to one call of that tool sent right after initialize."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=child_environment(),
        start_new_session=True,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(INITIALIZE)
    if call is not None:
        request = {"type": "tool", "id": "1", "name": call, "arguments": {"text": "hi"}}
        process.stdin.write(json.dumps(request).encode() + b"\n")
    process.stdin.flush()
    line = process.stdout.readline()
    assert b'"register"' in line, line
    if call is not None:
        line = process.stdout.readline()
        assert b'"response"' in line, line
    elapsed = time.perf_counter() - start
    process.stdin.close()
    process.wait()
    process.stdout.close()
    return elapsed


def sidecar_command(packages: list[Path], data: Path) -> list[str]:
    command = [*SIDECAR_COMMAND, "--data-dir", str(data)]
    for package in packages:
        command += ["--package", str(package)]
    return command


def cold_starts(root: Path, starts: int) -> dict[str, list[float]]:
    packages = [write_package(root / "packages", index) for index in range(10)]
    data = root / "data"
    one = sidecar_command(packages[:1], data)
    runs: dict[str, tuple[list[str], str | None]] = {
        "plain nimlet extension": ([sys.executable, str(ECHO)], None),
        "sidecar, 1 package": (one, None),
        "sidecar, 10 packages": (sidecar_command(packages, data), None),
        "plain, to 1st tool reply": ([sys.executable, str(ECHO)], "echo"),
        "sidecar, to 1st tool reply": (one, "nb_echo"),
    }
    for command, call in runs.values():  # warm the page cache and bytecode once
        first_line(command, call)
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(starts):  # interleaved, so drift hits every row alike
        for name, (command, call) in runs.items():
            samples[name].append(first_line(command, call))
    return samples


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def round_trips(root: Path, calls: int) -> tuple[list[float], list[float]]:
    workspace = root / "workspace"
    folder = workspace / ".nimlet" / "extensions" / "echo"
    folder.mkdir(parents=True)
    manifest = {"name": "echo", "command": [sys.executable, str(ECHO)]}
    (folder / "extension.json").write_text(json.dumps(manifest))
    home = root / "home" / ".gateway"
    report = install(home, str(write_package(root / "src", 0)), kind="local",
                     inspector=load_adapters().inspect)  # fmt: skip
    package_id = report.to_dict()["id"]
    with StateStore.open(home) as store:
        store.set_trusted(package_id, True)
        store.set_enabled(package_id, True)
    config = GatewayConfig(home=home, user_home=root / "home")
    plain: list[float] = []
    nanobot: list[float] = []
    async with open_gateway(workspace, trust=True, config=config) as gateway:
        assert {t.name for t in gateway.tools()} == {"echo", "nb_echo"}, gateway.diagnostics
        for _ in range(100):  # warm up both
            await gateway.call_tool("echo", {"text": "hi"})
            await gateway.call_tool("nb_echo", {"text": "hi"})
        for _ in range(calls):
            for name, samples in (("echo", plain), ("nb_echo", nanobot)):
                start = time.perf_counter()
                result = await gateway.call_tool(name, {"text": "hi"})
                samples.append(time.perf_counter() - start)
                assert result.content == "hi", result
    return plain, nanobot


OTEL_SOURCE = "from opentelemetry import trace  # a package that traces imports the API\n"
TRACED_INITIALIZE = INITIALIZE.replace(
    b'"register.diagnostics"]', b'"register.diagnostics", "trace.context"]'
)
TRACE = {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
         "tracestate": "vendor=1"}  # fmt: skip


class Driven:
    """One sidecar over its pipes: a call is one request line written, one reply read."""

    def __init__(self, package: Path, data: Path) -> None:
        self.process = subprocess.Popen(
            sidecar_command([package], data), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env=child_environment(), start_new_session=True,
        )  # fmt: skip
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin, self.stdout = self.process.stdin, self.process.stdout
        self.stdin.write(TRACED_INITIALIZE)
        self.stdin.flush()
        assert b'"register"' in self.stdout.readline()
        self.count = 0

    def call(self, traced: bool) -> None:
        self.count += 1
        request: dict[str, object] = {"type": "tool", "id": str(self.count), "name": "nb_echo",
                                      "arguments": {"text": "hi"}}  # fmt: skip
        if traced:
            request["gateway"] = TRACE
        self.stdin.write(json.dumps(request).encode() + b"\n")
        self.stdin.flush()
        assert b'"hi"' in self.stdout.readline()

    def cpu(self) -> float:
        """Seconds of CPU the sidecar's (one) thread has run."""
        with open(f"/proc/{self.process.pid}/schedstat") as stat:
            return int(stat.read().split()[0]) / 1e9

    def close(self) -> None:
        self.stdin.close()
        self.process.wait()
        self.stdout.close()


def traced_requests(
    root: Path, calls: int, batch: int = 200
) -> dict[str, tuple[list[float], float]]:
    """Per kind: wall seconds per round trip, and sidecar CPU seconds per call."""
    plain = write_package(root / "plain", 0)
    traced = write_package(root / "otel", 0)
    module = traced / "bench_echo" / "__init__.py"
    module.write_text(OTEL_SOURCE + module.read_text())
    sidecars = {"plain": Driven(plain, root / "data"), "otel": Driven(traced, root / "data")}
    kinds = {"no trace context": ("plain", False), "traceparent": ("plain", True),
             "OpenTelemetry package, no trace context": ("otel", False),
             "OpenTelemetry package, traceparent": ("otel", True)}  # fmt: skip
    names = list(kinds)
    wall: dict[str, list[float]] = {name: [] for name in names}
    cpu = dict.fromkeys(names, 0.0)
    try:
        for name in names:  # warm: the first call of each kind imports what it needs
            which, carried = kinds[name]
            for _ in range(50):
                sidecars[which].call(carried)
        for round_ in range(max(1, calls // batch)):
            shift = round_ % len(names)
            for name in names[shift:] + names[:shift]:
                which, carried = kinds[name]
                sidecar = sidecars[which]
                began = sidecar.cpu()
                for _ in range(batch):
                    start = time.perf_counter()
                    sidecar.call(carried)
                    wall[name].append(time.perf_counter() - start)
                cpu[name] += sidecar.cpu() - began
    finally:
        for sidecar in sidecars.values():
            sidecar.close()
    return {name: (wall[name], cpu[name] / len(wall[name])) for name in names}


def report_traced(found: dict[str, tuple[list[float], float]]) -> None:
    print("a request's trace context, the sidecar over its pipes (trace.context negotiated)")
    for name, (samples, cpu) in found.items():
        base = (
            "no trace context"
            if not name.startswith("OpenTelemetry")
            else ("OpenTelemetry package, no trace context")
        )
        base_wall, base_cpu = statistics.median(found[base][0]), found[base][1]
        p50 = statistics.median(samples)
        added = (cpu - base_cpu) * 1e6
        print(f"  {name:40} p50 {ms(p50)} ({p50 / base_wall:.3f}x)   sidecar CPU"
              f" {cpu * 1e6:6.1f} us/call ({cpu / base_cpu:.3f}x, {added:+.1f} us)")  # fmt: skip


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="fewer samples, for a smoke run")
    parser.add_argument("--traced-only", action="store_true", help="section 3 alone")
    args = parser.parse_args()
    calls, starts = (300, 5) if args.quick else (args.calls, args.starts)
    if args.traced_only:
        with tempfile.TemporaryDirectory() as folder:
            report_traced(traced_requests(Path(folder), calls * 4))
        return

    with tempfile.TemporaryDirectory() as folder:
        started = cold_starts(Path(folder), starts)
        plain, nanobot = anyio.run(round_trips, Path(folder), calls)
        traced = traced_requests(Path(folder), calls * 4)

    print("== nanobot Python sidecar benchmark ==")
    for name, samples in started.items():
        baseline = statistics.median(
            started["plain, to 1st tool reply" if "reply" in name else "plain nimlet extension"]
        )
        median = statistics.median(samples)
        target = "  (target <= 150 ms)" if name == "sidecar, 1 package" else ""
        print(
            f"cold start, {name:27} median {ms(median)}  p90 "
            f"{ms(percentile(samples, 0.9))}  -> {median / baseline:.2f}x plain{target}"
        )
    plain_p50, nano_p50 = statistics.median(plain), statistics.median(nanobot)
    plain_p99, nano_p99 = percentile(plain, 0.99), percentile(nanobot, 0.99)
    print(f"round trip, plain nimlet extension  p50 {ms(plain_p50)}  p99 {ms(plain_p99)}")
    print(
        f"round trip, nanobot sidecar tool    p50 {ms(nano_p50)}  p99 {ms(nano_p99)}"
        f"  -> p50 {nano_p50 / plain_p50:.2f}x, p99 {nano_p99 / plain_p99:.2f}x plain"
        " (target p50 <= 1.3x)"
    )
    report_traced(traced)


if __name__ == "__main__":
    main()
