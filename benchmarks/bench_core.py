"""Core benchmark: the gateway's transport against baselines measured in the same run.

    python benchmarks/bench_core.py [--calls N] [--quick]

Prints ratios, not just times: machines here are noisy and absolute times drift.
1. tool-call round trip through the gateway vs a raw pipe echo to the same program;
2. 1,000 calls in flight to one extension (calls/s);
3. startup of 50 extensions vs spawning the same 50 processes bare (to their first line);
4. the MCP Python SDK's stdio round trip on an equivalent echo tool (needs the `bench` extra).
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

import anyio

from gateway import GatewayConfig, open_gateway
from gateway._spawn import child_environment

HERE = Path(__file__).resolve().parent
ECHO = HERE / "echo_extension.py"


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


def raw_pipe_round_trips(calls: int) -> list[float]:
    """A bare Python loop: write one request line, read one reply line."""
    process = subprocess.Popen(
        [sys.executable, str(ECHO)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=child_environment(),
        bufsize=0,
    )
    assert process.stdin and process.stdout
    process.stdout.readline()  # register
    samples = []
    for index in range(calls):
        line = json.dumps(
            {"type": "tool", "id": str(index), "name": "echo", "arguments": {"text": "hi"}}
        ).encode()
        start = time.perf_counter()
        process.stdin.write(line + b"\n")
        reply = json.loads(process.stdout.readline())
        samples.append(time.perf_counter() - start)
        assert reply["id"] == str(index)
    process.stdin.close()
    process.wait()
    return samples


async def gateway_round_trips(calls: int) -> tuple[list[float], float]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        config = make_workspace(root, 1)
        async with open_gateway(root, trust=True, config=config) as gateway:
            for _ in range(50):  # warm up
                await gateway.call_tool("echo", {"text": "hi"})
            samples = []
            for _ in range(calls):
                start = time.perf_counter()
                result = await gateway.call_tool("echo", {"text": "hi"})
                samples.append(time.perf_counter() - start)
                assert result.content == "hi"

            in_flight = 1000
            start = time.perf_counter()
            async with anyio.create_task_group() as group:
                for _ in range(in_flight):
                    group.start_soon(gateway.call_tool, "echo", {"text": "hi"})
            throughput = in_flight / (time.perf_counter() - start)
    return samples, throughput


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
        assert process.stdin is not None
        process.stdin.close()
        process.wait()
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


async def mcp_round_trips(calls: int) -> list[float] | None:
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--startup-runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="fewer samples, for a smoke run")
    args = parser.parse_args()
    calls = 300 if args.quick else args.calls
    runs = 1 if args.quick else args.startup_runs

    raw = raw_pipe_round_trips(calls)
    through_gateway, throughput = anyio.run(gateway_round_trips, calls)
    mcp = anyio.run(mcp_round_trips, max(100, calls // 10))
    bare = statistics.median(bare_spawn(50) for _ in range(runs))
    started = statistics.median(anyio.run(gateway_startup, 50) for _ in range(runs))

    raw_p50, gw_p50 = statistics.median(raw), statistics.median(through_gateway)
    print("== gateway core benchmark ==")
    print(f"round trip, raw pipe echo      p50 {ms(raw_p50)}  p99 {ms(percentile(raw, 0.99))}")
    print(
        f"round trip, gateway call_tool  p50 {ms(gw_p50)}"
        f"  p99 {ms(percentile(through_gateway, 0.99))}"
        f"  -> {gw_p50 / raw_p50:.2f}x raw pipe (target <= 1.5x, p99 <= 2 ms)"
    )
    if mcp is None:
        print("round trip, MCP SDK stdio      skipped (pip install -e '.[bench]')")
    else:
        mcp_p50 = statistics.median(mcp)
        print(
            f"round trip, MCP SDK stdio      p50 {ms(mcp_p50)}  p99 {ms(percentile(mcp, 0.99))}"
            f"  -> gateway is {mcp_p50 / gw_p50:.1f}x faster (target >= 10x)"
        )
    print(f"1,000 calls in flight          {throughput:,.0f} calls/s (target >= 10,000)")
    print(
        f"startup of 50 extensions       gateway {ms(started)}  bare spawn {ms(bare)}"
        f"  -> {started / bare:.2f}x (target <= 1.3x)"
    )


if __name__ == "__main__":
    main()
