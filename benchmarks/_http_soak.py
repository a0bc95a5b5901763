"""``bench_http.py`` section 3 (``--soak SECONDS``): the resident memory of each server
under a steady load of clients that keep opening new sessions."""

from __future__ import annotations

import statistics
import time

import anyio
from _http_servers import Server, call, rss_kib, session

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
