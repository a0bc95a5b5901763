"""``bench_http.py`` section 4: the gateway with tracing and metrics on, against the same
gateway with both off, in one run."""

from __future__ import annotations

import contextlib
import os
import statistics
from collections.abc import Iterator
from pathlib import Path

from _http_servers import (
    Server,
    call,
    cpu_seconds,
    ms,
    percentile,
    prepare,
    session,
    start_gateway,
    stop,
    timed,
)

from gateway.testing import OtlpReceiver

PROBE = Path(__file__).resolve().parent / "_reply_cpu"
"""On each server's ``PYTHONPATH``: its ``sitecustomize`` times the CPU before each reply."""


def _reply_cpu_file(root: Path, index: int) -> Path:
    return root / f"reply-cpu-{index}.txt"


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
            paths = filter(None, (str(PROBE), where.get("PYTHONPATH")))
            probe = str(_reply_cpu_file(root, len(servers)))
            where = {**where, "PYTHONPATH": os.pathsep.join(paths),
                     "GATEWAY_BENCH_REPLY_CPU": probe}  # fmt: skip
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


def report_reply_cpu(root: Path, names: list[str]) -> None:
    """The servers' main-thread CPU from a ``tools/call``'s request to its reply's write
    (``_reply_cpu``; written by each server at its exit): what delays the client, read
    apart from the machine's load."""
    print("  server CPU before the reply (main thread, request to reply written), median:")
    files = [_reply_cpu_file(root, at) for at in range(len(names))]
    found = [[float(v) for v in f.read_text().split()] if f.exists() else [] for f in files]
    if not found[0]:
        print("  (both off wrote no figures)")
        return
    base = statistics.median(found[0])
    for name, samples in zip(names, found, strict=True):
        if not samples:
            print(f"  {name:20} no figures (the server did not exit cleanly)")
            continue
        median = statistics.median(samples)
        print(f"  {name:20} {median * 1e3:.3f} ms  {median / base:.3f}x"
              f"  ({(median - base) * 1e6:+.0f} µs)  ({len(samples)} calls)")  # fmt: skip
