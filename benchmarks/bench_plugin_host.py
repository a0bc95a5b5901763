"""The plugin host (Agent Plugins' and Claude Code plugins' stdio MCP servers), against
baselines measured in the same run.

    python benchmarks/bench_plugin_host.py [--calls N] [--starts N] [--quick]

1. cold start: ``gateway`` opened with the example Agent Plugin ``glossary`` until its MCP
   tool is registered (the plugin host started, confined, its server started and listed),
   against the MCP SDK's own client starting the same server and listing its tools;
2. tool round trip: ``Gateway.call_tool("mcp_glossary_define", …)`` (gateway → plugin host
   → server) against the SDK client calling the same server directly, calls alternated in
   batches so drift hits both; p50 and p99.

The server is the example's standard-library one (``examples/packages/glossary``), so the
figures are the hops, not a server framework. Machines here are small shared VMs: only
same-run ratios are comparable.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from gateway import GatewayConfig, open_gateway
from gateway.packages import install, load_adapters
from gateway.store import StateStore

REPO = Path(__file__).resolve().parents[1]
PLUGIN = REPO / "examples" / "packages" / "glossary"
SERVER = PLUGIN / "servers" / "terms.py"
ARGUMENTS = {"term": "cache"}


def _install(home: Path) -> None:
    report = install(home, str(PLUGIN), kind="local", inspector=load_adapters().inspect)
    with StateStore.open(home) as store:
        store.set_trusted(report.package.record.id, True)
        store.set_enabled(report.package.record.id, True)


def _params() -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[str(SERVER)])


async def _direct_start() -> float:
    started = time.perf_counter()
    async with stdio_client(_params()) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.list_tools()
        return time.perf_counter() - started


async def _gateway_start(home: Path, workspace: Path) -> float:
    started = time.perf_counter()
    config = GatewayConfig(home=home, user_home=home)
    async with open_gateway(workspace, config=config) as gateway:
        await gateway.warm()
        assert gateway.registry.tool("mcp_glossary_define") is not None
        return time.perf_counter() - started


def _summary(name: str, samples: list[float]) -> str:
    ordered = sorted(samples)
    p50 = statistics.median(ordered) * 1e3
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1e3
    return f"  {name:42} p50 {p50:8.3f} ms   p99 {p99:8.3f} ms   ({len(samples)})"


async def main(calls: int, starts: int) -> None:
    with tempfile.TemporaryDirectory() as base:
        home, workspace = Path(base) / "home", Path(base) / "workspace"
        workspace.mkdir()
        _install(home)
        print("1. cold start to a listed MCP tool")
        direct_starts, gateway_starts = [], []
        for _ in range(starts):
            direct_starts.append(await _direct_start())
            # The registration cache lets a later open list tools without starting the
            # host; a fresh home each time measures the start itself.
            fresh = Path(base) / f"home-{len(gateway_starts)}"
            _install(fresh)
            gateway_starts.append(await _gateway_start(fresh, workspace))
        print(_summary("MCP SDK client starts the server", direct_starts))
        print(_summary("gateway opens, plugin host starts it", gateway_starts))
        ratio = statistics.median(gateway_starts) / statistics.median(direct_starts)
        print(f"  ratio gateway / direct: p50 {ratio:.2f}x")

        print("2. one tool call, warm")
        direct, through = [], []
        config = GatewayConfig(home=home, user_home=home)
        async with (
            stdio_client(_params()) as (read, write),
            ClientSession(read, write) as session,
            open_gateway(workspace, config=config) as gateway,
        ):
            await session.initialize()
            await gateway.warm()
            for _ in range(20):  # warm-up
                await session.call_tool("define", ARGUMENTS)
                await gateway.call_tool("mcp_glossary_define", ARGUMENTS)
            batch = 50
            for _ in range(max(1, calls // batch)):
                for _ in range(batch):
                    started = time.perf_counter()
                    await session.call_tool("define", ARGUMENTS)
                    direct.append(time.perf_counter() - started)
                for _ in range(batch):
                    started = time.perf_counter()
                    result = await gateway.call_tool("mcp_glossary_define", ARGUMENTS)
                    through.append(time.perf_counter() - started)
                    assert not result.is_error, result.content
        print(_summary("MCP SDK client -> server", direct))
        print(_summary("Gateway.call_tool -> plugin host -> server", through))
        p50 = statistics.median(through) / statistics.median(direct)
        added = (statistics.median(through) - statistics.median(direct)) * 1e3
        print(f"  ratio gateway / direct: p50 {p50:.2f}x (+{added:.3f} ms per call)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="200 calls, 3 starts")
    args = parser.parse_args()
    if args.quick:
        args.calls, args.starts = 200, 3
    anyio.run(main, args.calls, args.starts)
