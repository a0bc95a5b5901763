"""``bench_http.py`` sections 1 and 2: one client, then a crowd of concurrent clients, the
gateway against the MCP SDK's own server."""

from __future__ import annotations

import contextlib
import statistics
import time

import anyio
from _http_servers import Server, call, cpu_seconds, ms, percentile, session, timed

# ------------------------------------------------------------------ 1. one client


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
