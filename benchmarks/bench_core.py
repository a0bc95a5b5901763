"""Core benchmark: the gateway's transport against baselines measured in the same run.

    python benchmarks/bench_core.py [--calls N] [--quick] [--backend asyncio|trio|both]

Prints ratios and the gateway's added time and CPU per call, not just times: machines here
are noisy, and the raw baseline itself moves about 3x with CPU placement (parent and child
on one CPU take turns; on two CPUs they run in parallel but wake each other across cores),
so every round trip is measured twice, pinned to the same CPU and to different CPUs.

1. one tool call: raw blocking pipe echo; raw asyncio (a reader callback resolving a
   future: two loop iterations, the floor for any asyncio host); ``Gateway.call_tool``;
2. 1,000 calls in flight to one extension (each of 1,000 callers makes 10 calls);
3. startup of 50 extensions vs spawning the same 50 processes bare (to their first line);
4. the MCP Python SDK's stdio round trip on an equivalent echo tool.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio

from gateway import GatewayConfig, open_gateway
from gateway.runtime import child_environment

HERE = Path(__file__).resolve().parent
ECHO = HERE / "echo_extension.py"
REQUEST = {"type": "tool", "name": "echo", "arguments": {"text": "hi"}}


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def make_workspace(root: Path, extensions: int) -> GatewayConfig:
    for index in range(extensions):
        folder = root / ".nimlet" / "extensions" / f"echo{index:02d}"
        folder.mkdir(parents=True)
        manifest = {"name": f"echo{index:02d}", "command": [sys.executable, str(ECHO)]}
        (folder / "extension.json").write_text(json.dumps(manifest))
    home = root / "home"
    home.mkdir()
    return GatewayConfig(home=home / ".gateway", user_home=home)


# ------------------------------------------------------------------ CPU placement

CPUS = sorted(os.sched_getaffinity(0))
PLACEMENTS = {"same CPU": (CPUS[0], CPUS[0]), "other CPU": (CPUS[0], CPUS[-1])}


@contextmanager
def pinned(parent_cpu: int) -> Iterator[None]:
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {parent_cpu})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def pin_child(pid: int | None, cpu: int) -> None:
    if pid is not None:
        os.sched_setaffinity(pid, {cpu})


# ------------------------------------------------------------------ baselines


def spawn_echo() -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, str(ECHO)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=child_environment(),
        bufsize=0,
    )
    assert process.stdout is not None
    process.stdout.readline()  # register
    return process


def stop(process: subprocess.Popen[bytes]) -> None:
    assert process.stdin is not None
    process.stdin.close()
    process.wait()


def raw_blocking(calls: int, child_cpu: int) -> tuple[list[float], float]:
    """A bare Python loop: write one request line, read one reply line."""
    process = spawn_echo()
    pin_child(process.pid, child_cpu)
    assert process.stdin and process.stdout
    samples = []
    cpu = time.process_time()
    for index in range(calls):
        line = json.dumps({**REQUEST, "id": str(index)}).encode() + b"\n"
        start = time.perf_counter()
        process.stdin.write(line)
        reply = json.loads(process.stdout.readline())
        samples.append(time.perf_counter() - start)
        assert reply["id"] == str(index)
    cpu = (time.process_time() - cpu) / calls
    stop(process)
    return samples, cpu


async def raw_asyncio(calls: int, child_cpu: int) -> tuple[list[float], float]:
    """The asyncio floor: a reader callback on the non-blocking pipe resolves the caller's
    future (two loop iterations per round trip)."""
    process = spawn_echo()
    pin_child(process.pid, child_cpu)
    assert process.stdin and process.stdout
    loop = asyncio.get_running_loop()
    out, stdin = process.stdout.fileno(), process.stdin.fileno()
    os.set_blocking(out, False)
    waiting: dict[str, asyncio.Future[dict[str, object]]] = {}
    buffer = bytearray()

    def readable() -> None:
        buffer.extend(os.read(out, 65536))
        while (end := buffer.find(b"\n")) >= 0:
            reply = json.loads(buffer[:end])
            del buffer[: end + 1]
            waiting.pop(reply["id"]).set_result(reply)

    loop.add_reader(out, readable)
    samples = []
    cpu = time.process_time()
    for index in range(calls):
        request_id = str(index)
        start = time.perf_counter()
        future = waiting[request_id] = loop.create_future()
        os.write(stdin, json.dumps({**REQUEST, "id": request_id}).encode() + b"\n")
        await future
        samples.append(time.perf_counter() - start)
    cpu = (time.process_time() - cpu) / calls
    loop.remove_reader(out)
    stop(process)
    return samples, cpu


# ------------------------------------------------------------------ the gateway


async def gateway_calls(
    calls: int, child_cpu: int, in_flight: int
) -> tuple[list[float], float, float]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        config = make_workspace(root, 1)
        async with open_gateway(root, trust=True, config=config) as gateway:
            pin_child(gateway.processes[0].pid, child_cpu)
            for _ in range(50):  # warm up
                await gateway.call_tool("echo", {"text": "hi"})
            samples = []
            cpu = time.process_time()
            for _ in range(calls):
                start = time.perf_counter()
                result = await gateway.call_tool("echo", {"text": "hi"})
                samples.append(time.perf_counter() - start)
                assert result.content == "hi"
            cpu = (time.process_time() - cpu) / calls
            throughput = 0.0
            if in_flight:
                each = 10

                async def caller() -> None:
                    for _ in range(each):
                        await gateway.call_tool("echo", {"text": "hi"})

                start = time.perf_counter()
                async with anyio.create_task_group() as group:
                    for _ in range(in_flight):
                        group.start_soon(caller)
                throughput = in_flight * each / (time.perf_counter() - start)
    return samples, cpu, throughput


def bare_spawn(count: int) -> float:
    start = time.perf_counter()
    processes = [
        subprocess.Popen(
            [sys.executable, str(ECHO)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=child_environment(),
            start_new_session=True,
        )
        for _ in range(count)
    ]
    for process in processes:
        assert process.stdout is not None
        process.stdout.readline()
    elapsed = time.perf_counter() - start
    for process in processes:
        stop(process)
    return elapsed


async def gateway_startup(count: int) -> float:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        config = make_workspace(root, count)
        start = time.perf_counter()
        async with open_gateway(root, trust=True, config=config) as gateway:
            elapsed = time.perf_counter() - start
            assert len(gateway.processes) == count
    return elapsed


async def mcp_round_trips(calls: int, child_cpu: int) -> list[float] | None:
    try:
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client
    except ImportError:
        return None
    parameters = StdioServerParameters(
        command=sys.executable, args=[str(HERE / "mcp_echo_server.py")]
    )
    samples = []
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(parameters, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            for _ in range(20):
                await session.call_tool("echo", {"text": "hi"})
            for _ in range(calls):
                start = time.perf_counter()
                await session.call_tool("echo", {"text": "hi"})
                samples.append(time.perf_counter() - start)
    return samples


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


def us(seconds: float) -> str:
    return f"{seconds * 1e6:.0f} µs"


def run(backend: str, function: Callable[..., object], *args: object) -> object:
    return anyio.run(function, *args, backend=backend)


def round_trips(calls: int, backends: list[str]) -> None:
    for label, (parent_cpu, child_cpu) in PLACEMENTS.items():
        with pinned(parent_cpu):
            blocking, blocking_cpu = raw_blocking(calls, child_cpu)
            floor, floor_cpu = asyncio.run(raw_asyncio(calls, child_cpu))
            measured = {
                backend: run(
                    backend, gateway_calls, calls, child_cpu, 1000 if label == "other CPU" else 0
                )
                for backend in backends
            }
            mcp = asyncio.run(mcp_round_trips(max(100, calls // 10), child_cpu))
        base, block = statistics.median(floor), statistics.median(blocking)
        print(f"-- {label} (parent on CPU {parent_cpu}, extension on CPU {child_cpu})")
        for name, samples, cpu in (("raw blocking pipe", blocking, blocking_cpu),
                                   ("raw asyncio", floor, floor_cpu)):  # fmt: skip
            print(f"round trip, {name:18} p50 {ms(statistics.median(samples))}"
                  f"  p99 {ms(percentile(samples, 0.99))}  cpu/call {us(cpu)}")  # fmt: skip
        for backend, (samples, cpu, throughput) in measured.items():  # type: ignore[misc]
            p50, p99 = statistics.median(samples), percentile(samples, 0.99)
            print(
                f"gateway call_tool ({backend:7}) p50 {ms(p50)}  p99 {ms(p99)}"
                f"  -> {p50 / base:.2f}x raw asyncio, {p50 / block:.2f}x blocking"
                f"  (+{us(p50 - base)}, cpu/call {us(cpu)}: +{us(cpu - floor_cpu)})"
                "  [target <= 1.5x asyncio, p99 <= 1 ms]"
            )
            if throughput:
                print(f"1,000 calls in flight ({backend:7}) {throughput:,.0f} calls/s"
                      "  [target >= 10,000]")  # fmt: skip
        if mcp is not None:
            mcp_p50 = statistics.median(mcp)
            best = min(statistics.median(m[0]) for m in measured.values())  # type: ignore[index]
            print(f"round trip, MCP SDK stdio      p50 {ms(mcp_p50)}  -> gateway is "
                  f"{mcp_p50 / best:.1f}x faster  [target >= 10x]")  # fmt: skip
        else:
            print("round trip, MCP SDK stdio      skipped (the mcp package is missing)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--startup-runs", type=int, default=5)
    parser.add_argument("--backend", choices=["asyncio", "trio", "both"], default="both")
    parser.add_argument("--quick", action="store_true", help="fewer samples, for a smoke run")
    args = parser.parse_args()
    calls = 300 if args.quick else args.calls
    runs = 1 if args.quick else args.startup_runs
    backends = ["asyncio", "trio"] if args.backend == "both" else [args.backend]

    print("== gateway core benchmark ==")
    round_trips(calls, backends)
    bare = statistics.median(bare_spawn(50) for _ in range(runs))
    started = statistics.median(anyio.run(gateway_startup, 50) for _ in range(runs))
    print(
        f"startup of 50 extensions       gateway {ms(started)}  bare spawn {ms(bare)}"
        f"  -> {started / bare:.2f}x  [target <= 1.3x]"
    )


if __name__ == "__main__":
    main()
