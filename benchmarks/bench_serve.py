"""``gateway serve`` benchmark: each figure against a baseline measured in the same run.

    python benchmarks/bench_serve.py [--calls N]
    python benchmarks/bench_serve.py --starts N [--baseline-tree DIR]

1. MCP: one ``tools/call`` through ``gateway serve --mcp`` (the echo extension behind it)
   against the same call to the MCP Python SDK's own echo server (``mcp_echo_server.py``),
   both with the SDK's ``ClientSession`` over stdio. Target: at most 1.2x.
2. nimlet: one tool call from a gateway to the echo extension directly, against the same
   call through ``gateway serve --nimlet`` hosting it (a gateway in front of a gateway): the
   time ``serve --nimlet`` adds per call. Target: ≤ 0.3 ms.
3. ``--starts N``: the CPU of one ``serve --mcp`` and one ``serve --nimlet`` start to its
   first reply (``_serve_starts.py``); ``--baseline-tree DIR`` alternates with another tree.

Calls alternate between the two sides in rounds, so drift on a noisy machine hits both.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio

from gateway import GatewayConfig, open_gateway

HERE = Path(__file__).resolve().parent
ECHO = HERE / "echo_extension.py"
GATEWAY = [sys.executable, "-m", "gateway"]


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.3f} ms"


def echo_workspace(root: Path) -> Path:
    folder = root / ".nimlet" / "extensions" / "echo"
    folder.mkdir(parents=True)
    manifest = {"name": "echo", "command": [sys.executable, str(ECHO)]}
    (folder / "extension.json").write_text(json.dumps(manifest))
    return root


async def timed(call: Callable[[], Awaitable[object]], rounds: int) -> list[float]:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        await call()
        samples.append(time.perf_counter() - start)
    return samples


async def alternate(
    sides: dict[str, Callable[[], Awaitable[object]]], calls: int, batch: int = 50
) -> dict[str, list[float]]:
    """Warm each side, then measure them in alternating batches."""
    for call in sides.values():
        await timed(call, 20)
    found: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(max(1, calls // batch)):
        for name, call in sides.items():
            found[name] += await timed(call, batch)
    return found


# ------------------------------------------------------------------ MCP


async def mcp_figures(calls: int, root: Path) -> dict[str, list[float]]:
    from contextlib import AsyncExitStack

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    workspace = echo_workspace(root / "mcp-ws")
    home = root / "mcp-home"
    where = ["--workspace", str(workspace), "--home", str(home)]
    servers = {
        "MCP SDK echo server": StdioServerParameters(
            command=sys.executable, args=[str(HERE / "mcp_echo_server.py")]
        ),
        "gateway serve --mcp": StdioServerParameters(
            command=GATEWAY[0],
            args=[*GATEWAY[1:], "serve", "--mcp", "--trust", *where],
            cwd=str(workspace),
        ),
    }
    async with AsyncExitStack() as stack:
        sessions = {}
        for name, params in servers.items():
            read, write = await stack.enter_async_context(stdio_client(params))
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            sessions[name] = session

        def caller(session: ClientSession) -> Callable[[], Awaitable[object]]:
            return lambda: session.call_tool("echo", {"text": "hi"})

        return await alternate({name: caller(s) for name, s in sessions.items()}, calls)


# ------------------------------------------------------------------ nimlet


async def nimlet_figures(calls: int, root: Path) -> dict[str, list[float]]:
    direct_ws = echo_workspace(root / "direct")
    inner_ws = echo_workspace(root / "inner")
    served_ws = root / "served"
    folder = served_ws / ".nimlet" / "extensions" / "gw"
    folder.mkdir(parents=True)
    command = [*GATEWAY, "serve", "--nimlet", "--workspace", str(inner_ws), "--trust",
               "--home", str(root / "inner-home")]  # fmt: skip
    (folder / "extension.json").write_text(json.dumps({"name": "gw", "command": command}))
    config = GatewayConfig(home=root / "outer-home", user_home=root)
    async with (
        open_gateway(direct_ws, trust=True, config=config) as direct,
        open_gateway(served_ws, trust=True, config=config) as served,
    ):
        return await alternate(
            {
                "echo extension, directly": lambda: direct.call_tool("echo", {"text": "hi"}),
                "through gateway serve --nimlet": lambda: served.call_tool("echo", {"text": "hi"}),
            },
            calls,
        )


def report(title: str, found: dict[str, list[float]]) -> tuple[float, float]:
    print(f"\n{title}")
    medians = []
    for name, samples in found.items():
        p50, p90 = statistics.median(samples), percentile(samples, 0.9)
        medians.append(p50)
        print(f"  {name:32} p50 {ms(p50)}   p90 {ms(p90)}   ({len(samples)} calls)")
    return medians[0], medians[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--starts", type=int, default=0, help="only the start figures (3.)")
    parser.add_argument("--baseline-tree", type=Path, help="with --starts: another checkout")
    args = parser.parse_args()
    if args.starts:
        sys.path.insert(0, str(HERE.parent))
        from benchmarks._serve_starts import serve_starts

        serve_starts(args.starts, args.baseline_tree)
        return
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        baseline, gateway = report(
            "1. MCP tools/call (ClientSession over stdio)",
            anyio.run(mcp_figures, args.calls, root),
        )
        print(f"  ratio gateway / SDK echo server: {gateway / baseline:.2f}x  [target <= 1.2x]")
        direct, served = report(
            "2. one tool call from a gateway: direct vs through serve --nimlet",
            anyio.run(nimlet_figures, args.calls, root),
        )
        print(f"  added by serve --nimlet: {ms(served - direct)} per call  [target <= 0.3 ms]")


if __name__ == "__main__":
    main()
