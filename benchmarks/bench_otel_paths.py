"""What a traced served call costs in the two places the gateway does OpenTelemetry's work
itself, against OpenTelemetry's and the MCP SDK's own way, in one process, same run:

1. the span of a ``tools/call`` and its counts: the server's middleware as ``serve`` sets
   it up (``_observe.observe``), its span made by ``McpSpan`` or — ``McpSpan.lean`` off —
   by the MCP SDK's ``OpenTelemetryMiddleware`` as before, ``McpObserver`` adding the
   gateway's attributes either way; a handler that answers at once and counts the call as
   the host does (``telemetry.count_tool_call``: OpenTelemetry's counter and histogram,
   exemplars off as ``serve`` has them, and Prometheus'); spans kept by a
   ``BatchSpanProcessor`` (exported after the clock stops). ``McpSpan`` twice: with
   everything done before the call returns (as over stdio), and as ``serve --http`` does it
   (``_observe.answered``), what is left for after the reply — the span's end and
   attributes known at the end, the counts — timed apart from the call: "before the reply"
   is what delays the client, "after" is done once the reply is written;
2. encoding those spans for OTLP, batches of 512 (``BatchSpanProcessor``'s default):
   OpenTelemetry's encoder against ``_otlp_spans``'s (their bytes compared).

    python benchmarks/bench_otel_paths.py [--rounds N] [--calls N]

CPU time per call (``time.process_time``), the ways alternating round by round (the order
reversed every other round); the median round.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.metrics import AlwaysOffExemplarFilter, MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    SpanExporter,
    SpanExportResult,
)

from gateway.base import telemetry
from gateway.base.telemetry import AFTER_REPLY, CALL_TRAIL, AfterReply
from gateway.serve._gauges import Gauges
from gateway.serve._mcp_span import McpSpan
from gateway.serve._observe import observe
from gateway.serve._otel import OtelMetrics, OtelTracer
from gateway.serve._otlp_spans import encode_spans as gateway_encode
from gateway.serve._prometheus import PrometheusMetrics

KEPT: list[ReadableSpan] = []
HEADERS = {"mcp-session-id": "0123456789abcdef0123456789abcdef"}


class Keep(SpanExporter):
    def export(self, spans: Any) -> SpanExportResult:
        KEPT.extend(spans)
        return SpanExportResult.SUCCESS


def chain(lean: bool) -> Any:
    """``serve``'s server middleware around a handler that answers at once."""
    from mcp.server.lowlevel.server import Server

    server: Any = Server("bench")
    observe(server, "tcp")
    for middleware in server.middleware:
        if isinstance(middleware, McpSpan):
            middleware.lean = lean
    layers = list(server.middleware)

    async def handler(ctx: Any) -> Any:
        trail = CALL_TRAIL.get()
        if trail is not None:
            trail.package, trail.ecosystem, trail.outcome = "echo", "python", "ok"
        telemetry.count_tool_call("echo", "echo", "python", "ok", 0.001)
        return {"content": [], "isError": False}

    def wrap(at: int) -> Any:
        if at == len(layers):
            return handler
        inner = wrap(at + 1)
        return lambda ctx: layers[at](ctx, inner)

    return wrap(0)


def request(number: int) -> Any:
    return SimpleNamespace(method="tools/call", params={"name": "echo", "arguments": {}},
                           protocol_version="2025-06-18", request_id=number, meta=None,
                           request=SimpleNamespace(headers=HEADERS), session=None)  # fmt: skip


async def spans(rounds: int, calls: int) -> dict[str, list[float]]:
    ways = {"MCP SDK's middleware": (chain(False), False), "McpSpan": (chain(True), False),
            "McpSpan, before the reply": (chain(True), True)}  # fmt: skip
    found: dict[str, list[float]] = {name: [] for name in [*ways, "McpSpan, after the reply"]}
    for call, _ in ways.values():
        for number in range(500):
            await call(request(number))
    for round_ in range(rounds):
        for name in list(ways)[:: 1 if round_ % 2 == 0 else -1]:
            call, later = ways[name]
            if later:  # an AfterReply per call, as ``answered`` sets one for each request
                before = after = 0.0
                for number in range(calls):
                    work = AfterReply()
                    began = time.process_time()
                    given = AFTER_REPLY.set(work)
                    await call(request(round_ * calls + number))
                    AFTER_REPLY.reset(given)
                    replied = time.process_time()
                    work.close()
                    before, after = before + replied - began, after + time.process_time() - replied
                found[name].append(before / calls)
                found["McpSpan, after the reply"].append(after / calls)
                continue
            began = time.process_time()
            for number in range(calls):
                await call(request(round_ * calls + number))
            found[name].append((time.process_time() - began) / calls)
    return found


def encodings(batch: list[ReadableSpan], rounds: int) -> dict[str, list[float]]:
    assert gateway_encode(batch) == encode_spans(batch).SerializePartialToString()
    ways = {"OpenTelemetry's encoder": lambda: encode_spans(batch).SerializePartialToString(),
            "the gateway's": lambda: gateway_encode(batch)}  # fmt: skip
    found: dict[str, list[float]] = {name: [] for name in ways}
    for round_ in range(rounds):
        for name in list(ways)[:: 1 if round_ % 2 == 0 else -1]:
            began = time.process_time()
            for _ in range(5):
                ways[name]()
            found[name].append((time.process_time() - began) / 5 / len(batch))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--calls", type=int, default=2000, help="1: calls per round and way")
    args = parser.parse_args()
    provider = TracerProvider(resource=Resource.create({"service.name": "bench"}))
    provider.add_span_processor(BatchSpanProcessor(
        Keep(), max_queue_size=1_000_000, schedule_delay_millis=3_600_000,
        max_export_batch_size=1_000_000,
    ))  # fmt: skip
    trace.set_tracer_provider(provider)
    meters = MeterProvider(resource=provider.resource, metric_readers=[InMemoryMetricReader()],
                           exemplar_filter=AlwaysOffExemplarFilter())  # fmt: skip
    gauges = Gauges()
    telemetry.install(
        OtelTracer(provider), (PrometheusMetrics(gauges), OtelMetrics(meters, gauges))
    )
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    for name, rounds in asyncio.run(spans(args.rounds, args.calls)).items():
        print(f"1. span and counts of a served tools/call, {name:26}"
              f" {statistics.median(rounds) * 1e6:6.1f} µs CPU per call")  # fmt: skip
    provider.force_flush()
    for name, rounds in encodings(KEPT[-512:], args.rounds).items():
        print(f"2. OTLP encoding, {name:38} {statistics.median(rounds) * 1e6:6.1f} µs CPU per"
              " span")  # fmt: skip
    telemetry.install()
    provider.shutdown()
    meters.shutdown()


if __name__ == "__main__":
    main()
