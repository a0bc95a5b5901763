"""The plugin host (Agent Plugins' and Claude Code plugins' stdio MCP servers), against
baselines measured in the same run.

    python benchmarks/bench_plugin_host.py [--calls N] [--starts N] [--quick]
    python benchmarks/bench_plugin_host.py --host-starts N [--baseline-tree DIR]
    python benchmarks/bench_plugin_host.py --unreachable-starts N [--baseline-tree DIR]

1. cold start: ``gateway`` opened with the example Agent Plugin ``glossary`` until its MCP
   tool is registered (the plugin host started, confined, its server started and listed),
   against the MCP SDK's own client starting the same server and listing its tools;
2. tool round trip: ``Gateway.call_tool("mcp_glossary_define", …)`` (gateway → plugin host
   → server) against the SDK client calling the same server directly, calls alternated in
   batches so drift hits both; p50 and p99.

3. ``--host-starts N``: the plugin host alone, as the gateway starts it (``python -P -m
   adapters.plugin_host --config FILE``, unconfined) with the glossary's one stdio server,
   until ``register`` (wall time), then shut down: its CPU (the host's own, read from
   /proc at ``register``; and with its server's, from the reaped children's usage), beside
   ``python -P -c pass``. ``--baseline-tree DIR`` alternates each start with the plugin
   host of another checkout (``PYTHONPATH=DIR``: main's tree, for a same-run before/after).
4. ``--unreachable-starts N``: the plugin host alone with one remote MCP server that cannot
   be connected — its start fails, so a gateway starts it again at every load (issue 29) —
   until ``register`` and its exit: a closed loopback port (straight), and
   ``https://mcp.example.com/api`` (the benchmark home's ``example-plugin``) through an
   egress proxy served by this process with the grant ``network:mcp.example.com:443`` (the
   proxy variables a sandbox with network grants by destination sets); its CPU, and the
   diagnostic it registered (which must read the same in both trees).

The server is the example's standard-library one (``examples/packages/glossary``), so the
figures are the hops, not a server framework. Machines here are small shared VMs: only
same-run ratios are comparable.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import anyio
from anyio.abc import SocketListener
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from gateway import GatewayConfig, open_gateway
from gateway.packages import install, load_adapters
from gateway.sandbox import Destination
from gateway.sandbox.egress import Grant, handle_client, system_resolver, upstream_from_environment
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


def _cpu_of(pid: int) -> float:
    """A live process's own CPU seconds (user + system), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _host_config(base: Path) -> Path:
    data = base / "data"
    data.mkdir(exist_ok=True)
    server = {"command": sys.executable, "args": [str(SERVER)], "env": {}, "cwd": str(data)}
    document = {"package": "glossary", "root": str(PLUGIN), "data_dir": str(data),
                "servers": {"terms": server}, "tool_names": "nanobot", "hooks": None}  # fmt: skip
    path = base / "host.json"
    path.write_text(json.dumps(document))
    return path


def _host_start(config: Path, tree: Path | None) -> tuple[float, float, float]:
    """(seconds to ``register``, the host's CPU then, host + server CPU at its exit)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    host = subprocess.Popen(
        [sys.executable, "-P", "-m", "adapters.plugin_host", "--config", str(config)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    assert host.stdin is not None and host.stdout is not None
    initialize = {"type": "initialize", "version": 1, "workspace": str(config.parent),
                  "session_id": "bench", "gateway": {"version": 1, "features": []}}  # fmt: skip
    host.stdin.write(json.dumps(initialize).encode() + b"\n")
    host.stdin.flush()
    register = json.loads(host.stdout.readline())
    wall = time.perf_counter() - started
    own = _cpu_of(host.pid)
    assert register["type"] == "register" and register.get("tools"), register
    host.communicate(b'{"type": "shutdown"}\n', timeout=60)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, own, total


def _bare_python() -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-P", "-c", "pass"], check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def host_starts(starts: int, baseline: Path | None) -> None:
    print(f"3. the plugin host alone, one stdio server, to register (load {os.getloadavg()})")
    trees: dict[str, Path | None] = {"this tree": None}
    if baseline is not None:
        trees = {f"baseline {baseline}": baseline, **trees}
    samples: dict[str, list[tuple[float, float, float]]] = {name: [] for name in trees}
    bare: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory() as base:
        config = _host_config(Path(base))
        for tree in trees.values():  # one warm-up each
            _host_start(config, tree)
        for _ in range(starts):
            bare.append(_bare_python())
            for name, tree in trees.items():
                samples[name].append(_host_start(config, tree))
    bare_wall = statistics.median(w for w, _ in bare)
    bare_cpu = statistics.median(c for _, c in bare)
    print(
        f"  python -P -c pass: wall p50 {bare_wall * 1e3:.0f} ms, CPU p50 {bare_cpu * 1e3:.0f} ms"
    )
    for name, runs in samples.items():
        wall = statistics.median(r[0] for r in runs)
        own = statistics.median(r[1] for r in runs)
        total = statistics.median(r[2] for r in runs)
        print(
            f"  {name}: to register p50 {wall * 1e3:.0f} ms ({wall / bare_wall:.1f}x), "
            f"host CPU p50 {own * 1e3:.0f} ms ({own / bare_cpu:.1f}x), "
            f"host + server CPU p50 {total * 1e3:.0f} ms"
        )
    print(f"  load average at the end {os.getloadavg()}")


def _egress_proxy(destination: Destination) -> str:
    """An egress proxy granting ``destination``, served by a thread of this process."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)

    async def serve() -> None:
        listener = await SocketListener.from_socket(sock)
        grant, upstream = Grant("bench", (destination,)), upstream_from_environment({})
        async with anyio.create_task_group() as group:
            while True:
                client = await listener.accept()
                group.start_soon(handle_client, client, grant, lambda _: None, upstream,
                                 system_resolver)  # fmt: skip

    threading.Thread(target=anyio.run, args=(serve,), daemon=True).start()
    return f"http://127.0.0.1:{sock.getsockname()[1]}"


def _remote_config(base: Path, url: str) -> Path:
    base.mkdir(parents=True, exist_ok=True)
    remote = {"transport": "streamable-http", "url": url, "headers": {}, "grant": "network"}
    document = {"package": "example-plugin", "root": str(base), "data_dir": str(base),
                "servers": {}, "remote": {"example-server": remote}, "sign_ins": str(base),
                "tool_names": "claude", "hooks": None}  # fmt: skip
    path = base / "host.json"
    path.write_text(json.dumps(document))
    return path


def _failed_start(config: Path, tree: Path | None, proxy: str | None) -> tuple[float, str]:
    """(the host's CPU, start to exit; the diagnostic it registered)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and "proxy" not in k.lower()}
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    if proxy is not None:  # as gateway.sandbox.egress.proxy_environment sets them
        env |= {"HTTP_PROXY": proxy, "HTTPS_PROXY": proxy, "NO_PROXY": "localhost,127.0.0.1,::1"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    host = subprocess.Popen(
        [sys.executable, "-P", "-m", "adapters.plugin_host", "--config", str(config)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    assert host.stdin is not None and host.stdout is not None
    gateway = {"version": 1, "features": ["register.diagnostics"]}
    initialize = {"type": "initialize", "version": 1, "workspace": str(config.parent),
                  "session_id": "bench", "gateway": gateway}  # fmt: skip
    host.stdin.write(json.dumps(initialize).encode() + b"\n")
    host.stdin.flush()
    register = json.loads(host.stdout.readline())
    host.communicate(b'{"type": "shutdown"}\n', timeout=60)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    [said] = register["gateway"]["diagnostics"]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, f"{said['code']}: {said['message']}"


def unreachable_starts(starts: int, baseline: Path | None) -> None:
    print(f"4. the plugin host, one unreachable remote server, to exit (load {os.getloadavg()})")
    trees: dict[str, Path | None] = {"this tree": None}
    if baseline is not None:
        trees = {f"baseline {baseline}": baseline, **trees}
    with socket.socket() as probe:  # free a moment ago: nothing listens on it
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    with tempfile.TemporaryDirectory() as base:
        cases = {
            "closed loopback port": (f"http://127.0.0.1:{closed}/mcp", None),
            "example-plugin, egress proxy": (
                "https://mcp.example.com/api",
                _egress_proxy(Destination("mcp.example.com", 443)),
            ),
        }
        configs = {case: _remote_config(Path(base) / str(n), url)
                   for n, (case, (url, _)) in enumerate(cases.items())}  # fmt: skip
        samples = {(case, name): [] for case in cases for name in trees}
        said: dict[str, set[str]] = {case: set() for case in cases}
        bare: list[float] = []
        for turn in range(starts):
            bare.append(_bare_python()[1])
            order = list(trees.items()) if turn % 2 == 0 else list(reversed(trees.items()))
            for case, (_, proxy) in cases.items():
                for name, tree in order:
                    cpu, diagnostic = _failed_start(configs[case], tree, proxy)
                    samples[(case, name)].append(cpu)
                    said[case].add(diagnostic.replace(str(closed), "PORT"))
    print(f"  python -P -c pass: CPU p50 {statistics.median(bare) * 1e3:.0f} ms")
    for (case, name), runs in samples.items():
        shown = " ".join(f"{r * 1e3:.0f}" for r in runs)
        print(f"  {case}, {name}: CPU p50 {statistics.median(runs) * 1e3:.0f} ms ({shown})")
    for case, texts in said.items():
        print(f"  {case}: {len(texts)} diagnostic text(s): {' | '.join(sorted(texts))}")
    print(f"  load average at the end {os.getloadavg()}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="200 calls, 3 starts")
    parser.add_argument("--host-starts", type=int, default=0, help="section 3 only")
    parser.add_argument("--unreachable-starts", type=int, default=0, help="section 4 only")
    parser.add_argument("--baseline-tree", type=Path, help="sections 3 and 4's other checkout")
    args = parser.parse_args()
    if args.unreachable_starts:
        unreachable_starts(args.unreachable_starts, args.baseline_tree)
        sys.exit(0)
    if args.host_starts:
        host_starts(args.host_starts, args.baseline_tree)
        sys.exit(0)
    if args.quick:
        args.calls, args.starts = 200, 3
    anyio.run(main, args.calls, args.starts)
