"""``gateway serve --mcp --http`` benchmark: each figure against a baseline measured in the
same run, the MCP Python SDK's own streamable-HTTP server with the same echo tool.

    python benchmarks/bench_http.py [--calls N] [--clients C] [--per-client N] [--quick]
                                    [--soak SECONDS]

Two servers run side by side on 127.0.0.1 (free ports): ``gateway serve --mcp --http`` with
the echo extension (``echo_extension.py``) in a workspace, a private ``GATEWAY_HOME`` and one
token from ``gateway token create``; and ``mcp_http_echo_server.py``, the SDK's ``MCPServer``
and its streamable-HTTP app on uvicorn. Both are driven by the SDK's streamable-HTTP client
(``streamable_http_client`` + ``ClientSession``) in this process.

1. One tool call, one client: calls alternate between the two servers in batches of 50
   (after 20 warm-up calls each); p50 and p99 per call and the ratio. Target: ≤ 1.2x.
2. C concurrent clients (default 50), each its own MCP session making N calls one after
   another (default 1,000; ``--quick``: 50): throughput, p50/p99, and the server process's
   CPU time per call (from /proc), the two servers one after the other, twice (ABAB).
3. ``--soak SECONDS`` (off by default): 10 clients keep calling each server (both at once,
   the SDK's server as the baseline), each opening a new session every 200 calls, while
   each server process's resident memory (VmRSS from /proc/PID/status) is sampled every
   second: start, end, max, and whether it stays flat after warm-up.

4. Tracing and metrics: four ``gateway serve --mcp --http`` on one home — both off,
   ``--metrics`` (Prometheus), ``OTEL_EXPORTER_OTLP_ENDPOINT`` (every call traced,
   exported over OTLP/HTTP to a stand-in collector in this process) with ``--metrics``,
   and the same with one trace in ten sampled —
   one client each, calls alternating in batches as in 1 (the order rotating from round
   to round): p50 and p99 per call, the server process's CPU time per call, and the ratio
   of each against both off. Target: p50 <= 1.05x. ``--observability-only`` runs only it.

Load only on 127.0.0.1, bounded in count and time. Linux only (/proc).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import anyio
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from gateway.testing import OtlpReceiver, otlp_receiver  # noqa: E402

ECHO = HERE / "echo_extension.py"
SDK_SERVER = HERE / "mcp_http_echo_server.py"
GATEWAY = [sys.executable, "-m", "gateway"]
TICK = os.sysconf("SC_CLK_TCK")


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.3f} ms"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of one process (not its children), from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


# ------------------------------------------------------------------ the two servers


class Server:
    def __init__(self, name: str, url: str, process: subprocess.Popen[bytes],
                 headers: dict[str, str]) -> None:  # fmt: skip
        self.name, self.url, self.process, self.headers = name, url, process, headers

    @property
    def pid(self) -> int:
        return self.process.pid


def wait_ready(url: str, process: subprocess.Popen[bytes], log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited {process.returncode}:\n{log.read_text()}")
        try:
            if httpx2.get(url, timeout=2).status_code < 500:
                return
        except httpx2.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"server not ready after {timeout}s:\n{log.read_text()}")


def prepare(root: Path) -> tuple[Path, dict[str, str], str]:
    """A workspace with the echo extension, a private home and a token: (workspace, the
    environment of a server on that home, the token)."""
    workspace = root / "ws"
    folder = workspace / ".nimlet" / "extensions" / "echo"
    folder.mkdir(parents=True)
    manifest = {"name": "echo", "command": [sys.executable, str(ECHO)]}
    (folder / "extension.json").write_text(json.dumps(manifest))
    env = {**os.environ, "GATEWAY_HOME": str(root / "home")}
    for name in [name for name in env if name.startswith("OTEL_")]:
        del env[name]  # the baseline is untraced, whatever this shell says
    made = subprocess.run([*GATEWAY, "token", "create", "bench", "--json"], env=env,
                          check=True, capture_output=True, timeout=60)  # fmt: skip
    return workspace, env, json.loads(made.stdout)["token"]


def start_gateway(name: str, root: Path, workspace: Path, env: dict[str, str], token: str,
                  max_calls: int, extra: tuple[str, ...] = ()) -> Server:  # fmt: skip
    port = free_port()
    log = root / f"gateway-{free_port()}.log"
    command = [*GATEWAY, "serve", "--mcp", "--http", f"127.0.0.1:{port}", "--trust",
               "--workspace", str(workspace), "--max-calls", str(max_calls), *extra]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=workspace, env=env, stdout=out, stderr=out)
    try:
        wait_ready(f"http://127.0.0.1:{port}/readyz", process, log)
    except RuntimeError:
        process.kill()
        raise
    return Server(name, f"http://127.0.0.1:{port}/mcp", process,
                  {"Authorization": f"Bearer {token}"})  # fmt: skip


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def started(root: Path, max_calls: int) -> Iterator[tuple[Server, Server]]:
    workspace, env, token = prepare(root)
    processes: list[subprocess.Popen[bytes]] = []
    try:
        gateway = start_gateway("gateway serve --mcp --http", root, workspace, env, token,
                                max_calls)  # fmt: skip
        processes.append(gateway.process)
        port = free_port()
        log = root / "sdk.log"
        with log.open("wb") as out:
            processes.append(subprocess.Popen([sys.executable, str(SDK_SERVER), str(port)],
                                              stdout=out, stderr=out))  # fmt: skip
        # any answer (the SDK app has no health route: 404 there) means it listens
        wait_ready(f"http://127.0.0.1:{port}/ready", processes[-1], log)
        sdk = Server("MCP SDK echo server (HTTP)", f"http://127.0.0.1:{port}/mcp",
                     processes[-1], {})  # fmt: skip
        yield gateway, sdk
    finally:
        stop(processes)


@contextlib.asynccontextmanager
async def session(server: Server) -> AsyncIterator[ClientSession]:
    async with (
        create_mcp_http_client(headers=server.headers) as http,
        streamable_http_client(server.url, http_client=http) as (read, write),
        ClientSession(read, write) as client,
    ):
        await client.initialize()
        yield client


async def call(client: ClientSession) -> None:
    result = await client.call_tool("echo", {"text": "hi"})
    if result.is_error:
        raise RuntimeError(f"echo failed: {result}")


# ------------------------------------------------------------------ 1. one client


async def timed(one: Callable[[], Awaitable[None]], rounds: int) -> list[float]:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        await one()
        samples.append(time.perf_counter() - start)
    return samples


async def single(
    servers: tuple[Server, ...], calls: int, batch: int = 50
) -> dict[str, list[float]]:
    async with contextlib.AsyncExitStack() as stack:
        clients = {s.name: await stack.enter_async_context(session(s)) for s in servers}
        for client in clients.values():
            await timed(lambda c=client: call(c), 20)
        found: dict[str, list[float]] = {name: [] for name in clients}
        for _ in range(max(1, calls // batch)):
            for name, client in clients.items():
                found[name] += await timed(lambda c=client: call(c), batch)
        return found


# ------------------------------------------------------------------ 2. concurrent clients


async def crowd(server: Server, clients: int, per_client: int) -> dict[str, float]:
    """``clients`` sessions opened first, then all call at once: wall time and server CPU
    from the moment every session is open to the last reply."""
    latencies: list[float] = []
    ready, go = anyio.Semaphore(0), anyio.Event()
    started_at: list[float] = []

    async def client() -> None:
        async with session(server) as opened:
            await call(opened)  # warm
            ready.release()
            await go.wait()
            latencies.extend(await timed(lambda: call(opened), per_client))

    with anyio.fail_after(max(120.0, clients * per_client * 0.05)):
        async with anyio.create_task_group() as group:
            for _ in range(clients):
                group.start_soon(client)
            for _ in range(clients):
                await ready.acquire()
            cpu = cpu_seconds(server.pid)
            started_at.append(time.perf_counter())
            go.set()
        wall = time.perf_counter() - started_at[0]
        cpu = cpu_seconds(server.pid) - cpu
    total = clients * per_client
    return {
        "throughput": total / wall,
        "p50": statistics.median(latencies),
        "p99": percentile(latencies, 0.99),
        "cpu_per_call": cpu / total,
        "wall": wall,
    }


# ------------------------------------------------------------------ 3. soak


async def soak(server: Server, seconds: float, clients: int = 10, per_session: int = 200) -> None:
    samples: list[tuple[float, int]] = []
    calls = [0]
    stop = anyio.Event()

    async def client() -> None:
        while not stop.is_set():
            async with session(server) as opened:
                for _ in range(per_session):
                    if stop.is_set():
                        break
                    await call(opened)
                    calls[0] += 1

    async def sample() -> None:
        begin = time.monotonic()
        while time.monotonic() - begin < seconds:
            samples.append((time.monotonic() - begin, rss_kib(server.pid)))
            await anyio.sleep(1)
        samples.append((time.monotonic() - begin, rss_kib(server.pid)))
        stop.set()

    rss_before = rss_kib(server.pid)
    with anyio.fail_after(seconds + 120):
        async with anyio.create_task_group() as group:
            group.start_soon(sample)
            for _ in range(clients):
                group.start_soon(client)
    rss = [kib for _, kib in samples]
    quarter = max(1, len(rss) // 4)
    # the first quarter is warm-up (allocator arenas, caches, the first sessions)
    settled, last = max(rss[quarter : 2 * quarter] or rss), max(rss[-quarter:])
    half = samples[len(samples) // 2 :]
    slope = 0.0
    if len(half) > 1:
        mean_t = statistics.fmean(t for t, _ in half)
        mean_k = statistics.fmean(k for _, k in half)
        spread = sum((t - mean_t) ** 2 for t, _ in half)
        slope = sum((t - mean_t) * (k - mean_k) for t, k in half) / spread * 60 / 1024
    print(f"\n3. soak: {clients} clients for {seconds:g} s against {server.name}"
          f" (a new session every {per_session} calls)")  # fmt: skip
    print(f"  {calls[0]} calls ({calls[0] / seconds:.0f} calls/s), {len(rss)} samples of VmRSS")
    print(f"  RSS before the load {rss_before / 1024:.1f} MiB; under it: start"
          f" {rss[0] / 1024:.1f}, end {rss[-1] / 1024:.1f}, max {max(rss) / 1024:.1f},"
          f" min {min(rss) / 1024:.1f} MiB")  # fmt: skip
    growth = (last - settled) / settled
    print(f"  after warm-up (max of the 2nd quarter) {settled / 1024:.1f} MiB, max of the last"
          f" quarter {last / 1024:.1f} MiB ({(last - settled) / 1024:+.1f} MiB); slope over the"
          f" second half {slope:+.2f} MiB/min -> {'flat' if growth < 0.05 else 'GROWING'}"
          f" (flat: under 5 % after warm-up)")  # fmt: skip
    step = max(1, len(samples) // 12)
    trace = ", ".join(f"{t:.0f}s {kib / 1024:.1f}" for t, kib in samples[::step])
    print(f"  trace (MiB): {trace}")


async def soak_both(servers: tuple[Server, ...], seconds: float) -> None:
    """The same soak against each server at once: the SDK's is the same-run baseline."""
    async with anyio.create_task_group() as group:
        for server in servers:
            group.start_soon(soak, server, seconds)


# ------------------------------------------------------------------ 4. tracing and metrics


@contextlib.contextmanager
def observed_gateways(root: Path, max_calls: int, sink: str) -> Iterator[tuple[Server, ...]]:
    """The gateway four ways on one home: both off; Prometheus metrics on (``--metrics``);
    OpenTelemetry traces and metrics (OTLP over HTTP to ``sink``, every call a sampled
    span tree) and Prometheus metrics; the same with one trace in ten sampled
    (``OTEL_TRACES_SAMPLER=parentbased_traceidratio``, ``…_ARG=0.1``: the client sends no
    trace of its own)."""
    workspace, env, token = prepare(root)
    traced = {**env, "OTEL_EXPORTER_OTLP_ENDPOINT": sink, "OTEL_SERVICE_NAME": "bench"}
    sampled = {**traced, "OTEL_TRACES_SAMPLER": "parentbased_traceidratio",
               "OTEL_TRACES_SAMPLER_ARG": "0.1"}  # fmt: skip
    metrics = ("--metrics", "127.0.0.1:0")
    servers: list[Server] = []
    try:
        for name, where, extra in (("both off", env, ()), ("metrics", env, metrics),
                                   ("tracing + metrics", traced, metrics),
                                   ("1/10 traced + metrics", sampled, metrics)):  # fmt: skip
            servers.append(start_gateway(name, root, workspace, where, token, max_calls, extra))
        yield tuple(servers)
    finally:
        stop([server.process for server in servers])


async def overhead(
    servers: tuple[Server, ...], calls: int, batch: int = 50
) -> tuple[dict[str, list[float]], dict[str, float]]:
    """Latency per call (as ``single``) and the server process's CPU time per call, each
    server's batches in turn, the order rotating from round to round."""
    cpu = {server.name: 0.0 for server in servers}
    async with contextlib.AsyncExitStack() as stack:
        clients = [(s, await stack.enter_async_context(session(s))) for s in servers]
        for _, client in clients:
            await timed(lambda c=client: call(c), 20)
        found: dict[str, list[float]] = {server.name: [] for server in servers}
        for round_ in range(max(1, calls // batch)):
            # each round starts with the next server: none always runs first or last
            shift = round_ % len(clients)
            for server, client in clients[shift:] + clients[:shift]:
                before = cpu_seconds(server.pid)
                found[server.name] += await timed(lambda c=client: call(c), batch)
                cpu[server.name] += cpu_seconds(server.pid) - before
    return found, {name: spent / len(found[name]) for name, spent in cpu.items()}


def report_overhead(
    found: dict[str, list[float]], cpu: dict[str, float], baseline: str, sink: OtlpReceiver
) -> None:
    print("\n4. tracing and metrics: one client per server, alternating batches; the same"
          " gateway with both off is the baseline")  # fmt: skip
    for name, samples in found.items():
        print(f"  {name:20} p50 {ms(statistics.median(samples))}   p99"
              f" {ms(percentile(samples, 0.99))}   server CPU {cpu[name] * 1e3:.3f} ms/call"
              f"   ({len(samples)} calls)")  # fmt: skip
    base = found[baseline]
    for name, samples in found.items():
        if name != baseline:
            p50 = statistics.median(samples) / statistics.median(base)
            p99 = percentile(samples, 0.99) / percentile(base, 0.99)
            print(f"  {name} / {baseline}: p50 {p50:.3f}x  p99 {p99:.3f}x  server CPU per call"
                  f" {cpu[name] / cpu[baseline]:.3f}x  [target p50 <= 1.05x]")  # fmt: skip
    print(f"  the collector stand-in received {sink.requests['/v1/traces']} trace exports"
          f" ({sink.bytes['/v1/traces'] / 1024:.0f} KiB) and {sink.requests['/v1/metrics']}"
          " metric exports")  # fmt: skip


# ------------------------------------------------------------------ report


def report_single(found: dict[str, list[float]], baseline: str, measured: str) -> None:
    print("\n1. one MCP tools/call, one client (SDK streamable-HTTP client), alternating batches")
    for name, samples in found.items():
        print(f"  {name:30} p50 {ms(statistics.median(samples))}   p99"
              f" {ms(percentile(samples, 0.99))}   ({len(samples)} calls)")  # fmt: skip
    b, g = found[baseline], found[measured]
    p50 = statistics.median(g) / statistics.median(b)
    p99 = percentile(g, 0.99) / percentile(b, 0.99)
    print(f"  ratio gateway / SDK server: p50 {p50:.2f}x  p99 {p99:.2f}x  [target p50 <= 1.2x]")


def report_crowd(runs: dict[str, list[dict[str, float]]], clients: int, per_client: int,
                 baseline: str, measured: str) -> None:  # fmt: skip
    print(f"\n2. {clients} concurrent clients x {per_client} calls (each its own session);"
          " the servers alternate: SDK, gateway, SDK, gateway")  # fmt: skip
    for name, found in runs.items():
        for f in found:
            print(f"  {name:30} {f['throughput']:7.0f} calls/s   p50 {ms(f['p50'])}"
                  f"   p99 {ms(f['p99'])}   server CPU {f['cpu_per_call'] * 1e3:.3f} ms/call"
                  f"   ({f['wall']:.1f} s)")  # fmt: skip
    for i, (b, g) in enumerate(zip(runs[baseline], runs[measured], strict=True), 1):
        print(f"  round {i}: gateway / SDK throughput {g['throughput'] / b['throughput']:.2f}x,"
              f" p99 {g['p99'] / b['p99']:.2f}x, server CPU per call"
              f" {g['cpu_per_call'] / b['cpu_per_call']:.2f}x")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000, help="1: calls per server")
    parser.add_argument("--clients", type=int, default=50, help="2: concurrent clients")
    parser.add_argument("--per-client", type=int, default=1000, help="2: calls per client")
    parser.add_argument("--quick", action="store_true", help="1: 300 calls; 2: 50 per client")
    parser.add_argument("--soak", type=float, default=0, metavar="SECONDS", help="3: off (0)")
    parser.add_argument("--observability-only", action="store_true", help="only section 4")
    args = parser.parse_args()
    if args.quick:
        args.calls, args.per_client = 300, 50
    load = os.getloadavg()
    print(f"{os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f};"
          f" Python {sys.version.split()[0]}")  # fmt: skip
    if not args.observability_only:
        compared(args)
    with (
        tempfile.TemporaryDirectory() as folder,
        otlp_receiver(keep=False) as sink,
        observed_gateways(Path(folder), 10, sink.url) as servers,
    ):
        found, cpu = anyio.run(overhead, servers, args.calls)
        report_overhead(found, cpu, servers[0].name, sink)
    load = os.getloadavg()
    print(f"\nload average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


def compared(args: argparse.Namespace) -> None:
    """Sections 1-3: the gateway against the MCP SDK's own server."""
    with (
        tempfile.TemporaryDirectory() as folder,
        started(Path(folder), max(args.clients, 10)) as pair,
    ):
        gateway, sdk = pair
        print(f"RSS after start: gateway {rss_kib(gateway.pid) / 1024:.1f} MiB,"
              f" SDK server {rss_kib(sdk.pid) / 1024:.1f} MiB")  # fmt: skip
        found = anyio.run(single, (sdk, gateway), args.calls)
        report_single(found, sdk.name, gateway.name)
        runs: dict[str, list[dict[str, float]]] = {sdk.name: [], gateway.name: []}
        for _ in range(2):
            for server in (sdk, gateway):
                runs[server.name].append(anyio.run(crowd, server, args.clients, args.per_client))
        report_crowd(runs, args.clients, args.per_client, sdk.name, gateway.name)
        print(f"RSS now: gateway {rss_kib(gateway.pid) / 1024:.1f} MiB,"
              f" SDK server {rss_kib(sdk.pid) / 1024:.1f} MiB")  # fmt: skip
        if args.soak > 0:
            anyio.run(soak_both, (sdk, gateway), args.soak)


if __name__ == "__main__":
    main()
