"""What the gateway's own telemetry costs per tool call, without an MCP server around it: the
same gateway (``open_gateway``, the echo extension of every benchmark) calls ``echo`` in
batches with nothing installed, with Prometheus counting (``PrometheusMetrics``), with
OpenTelemetry tracing (a ``TracerProvider`` with its ``BatchSpanProcessor`` and the
OTLP/HTTP exporter ``serve`` uses, posting to a stand-in collector on 127.0.0.1), with both,
and with one trace in ten sampled (``ParentBased(TraceIdRatioBased(0.1))``, what
``OTEL_TRACES_SAMPLER`` sets), with OpenTelemetry metrics (``OtelMetrics`` on a
``MeterProvider`` exporting over OTLP/HTTP), and with all that ``serve --metrics`` with
``OTEL_EXPORTER_OTLP_ENDPOINT`` installs (every call traced, OpenTelemetry and Prometheus
metrics); and the last two again as ``serve`` calls, each call inside a server span
``tools/call echo`` that is the call's (``CallTrail(spanned=True)``, what ``serve``'s
``McpObserver`` sets; the span made here as the MCP SDK makes its own).

    python benchmarks/bench_telemetry.py [--calls N] [--batch N]

Each round runs one batch per setting, the order rotating from round to round; a setting is
installed into ``gateway.base.telemetry`` for its batch only, and what it recorded is
exported (flushed) before the batch's clock stops. Per call: p50 wall time and the
process's CPU time (``time.process_time``: every thread, so the exporter's encoding and
posting count), each as a ratio against nothing installed in the same run. A call without
an MCP request around it gets the gateway's own ``execute_tool`` span and the ``tool echo``
request span; a served call (``served:``) is one span, the server span.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from gateway import GatewayConfig, open_gateway  # noqa: E402
from gateway.base import telemetry  # noqa: E402
from gateway.base.telemetry import CALL_TRAIL, CallTrail  # noqa: E402
from gateway.serve._gauges import Gauges  # noqa: E402
from gateway.serve._otel import OtelMetrics, OtelTracer  # noqa: E402
from gateway.serve._prometheus import PrometheusMetrics  # noqa: E402
from gateway.testing import otlp_receiver  # noqa: E402

ECHO = HERE / "echo_extension.py"


Setting = tuple[Any, tuple[Any, ...], tuple[Any, ...]]
SERVED = "served: "
"""A setting's name starting so: each call as ``serve`` makes it, inside its server span."""
SERVER_SPAN = {"mcp.method.name": "tools/call", "gen_ai.tool.name": "echo",
               "gen_ai.operation.name": "execute_tool", "network.transport": "pipe"}  # fmt: skip


def settings(sink: str) -> dict[str, Setting]:
    """Each setting's (tracer, sinks, the providers whose exports its batch pays for). The
    tracer providers share one span processor: flushing (or shutting down) one does both."""
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
    from opentelemetry.sdk.metrics import AlwaysOffExemplarFilter, MeterProvider
    from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor
    from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased

    from gateway.serve._otlp_spans import LeanOtlpSpanExporter  # as serve exports them

    exporter = BatchSpanProcessor(LeanOtlpSpanExporter(endpoint=f"{sink}/v1/traces"))
    every, tenth = TracerProvider(), TracerProvider(sampler=ParentBased(TraceIdRatioBased(0.1)))
    for provider in (every, tenth):
        provider.add_span_processor(exporter)
    reader = PeriodicExportingMetricReader(OTLPMetricExporter(endpoint=f"{sink}/v1/metrics"))
    # As serve makes it: no exemplars unless OTEL_METRICS_EXEMPLAR_FILTER asks (_otel.py).
    meters = MeterProvider(metric_readers=[reader], exemplar_filter=AlwaysOffExemplarFilter())
    otel_metrics = OtelMetrics(meters, Gauges())
    prometheus = PrometheusMetrics(Gauges())
    return {
        "nothing": (None, (), ()),
        "prometheus": (None, (prometheus,), ()),
        "tracing": (OtelTracer(every), (), (every,)),
        "tracing + prometheus": (OtelTracer(every), (prometheus,), (every,)),
        "1/10 traced": (OtelTracer(tenth), (), (every,)),
        "OpenTelemetry metrics": (None, (otel_metrics,), (meters,)),
        "as serve with OTEL_*": (OtelTracer(every), (otel_metrics, prometheus), (every, meters)),
        SERVED + "tracing": (OtelTracer(every), (), (every,)),
        SERVED + "as with OTEL_*": (OtelTracer(every), (otel_metrics, prometheus), (every, meters)),
    }


async def served_call(gateway: Any) -> None:
    """One call as ``serve`` makes it: in a server span that is the call's."""
    given = CALL_TRAIL.set(CallTrail(spanned=True))
    try:
        with telemetry.span("tools/call echo", "server", SERVER_SPAN):
            await gateway.call_tool("echo", {"text": "hi"})
    finally:
        CALL_TRAIL.reset(given)


async def measure(workspace: Path, config: GatewayConfig, sink: str, calls: int, batch: int
                  ) -> tuple[dict[str, list[float]], dict[str, float]]:  # fmt: skip
    """Wall time per call, and CPU time per call including the export of what the batch
    recorded (flushed at its end, so that no batch pays for another's spans)."""
    chosen = settings(sink)
    names = list(chosen)
    wall: dict[str, list[float]] = {name: [] for name in names}
    cpu = dict.fromkeys(names, 0.0)
    async with open_gateway(workspace, trust=True, config=config) as gateway:
        for _ in range(100):  # warm: the extension started, caches filled
            await gateway.call_tool("echo", {"text": "hi"})
        for round_ in range(max(1, calls // batch)):
            shift = round_ % len(names)
            for name in names[shift:] + names[:shift]:
                tracer, sinks, flushed = chosen[name]
                telemetry.install(tracer, sinks)
                served = name.startswith(SERVED)
                began = time.process_time()
                for _ in range(batch):
                    start = time.perf_counter()
                    if served:
                        await served_call(gateway)
                    else:
                        await gateway.call_tool("echo", {"text": "hi"})
                    wall[name].append(time.perf_counter() - start)
                telemetry.install()
                for provider in flushed:
                    provider.force_flush()
                cpu[name] += time.process_time() - began
    for provider in {p for _, _, flushed in chosen.values() for p in flushed}:
        provider.shutdown()
    return wall, {name: spent / len(wall[name]) for name, spent in cpu.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=4000, help="calls per setting")
    parser.add_argument("--batch", type=int, default=100, help="calls per batch")
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"{os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f};"
          f" Python {sys.version.split()[0]}")  # fmt: skip
    with tempfile.TemporaryDirectory() as folder, otlp_receiver(keep=False) as sink:
        root = Path(folder)
        extension = root / "ws" / ".nimlet" / "extensions" / "echo"
        extension.mkdir(parents=True)
        manifest = {"name": "echo", "command": [sys.executable, str(ECHO)]}
        (extension / "extension.json").write_text(json.dumps(manifest))
        config = GatewayConfig(home=root / "home", user_home=root)
        wall, cpu = anyio.run(measure, root / "ws", config, sink.url, args.calls, args.batch)
        exported = sink.requests["/v1/traces"], sink.bytes["/v1/traces"]
    base_wall, base_cpu = statistics.median(wall["nothing"]), cpu["nothing"]
    print(f"\none gateway, {args.calls} calls of echo per setting in batches of {args.batch}")
    for name, samples in wall.items():
        p50 = statistics.median(samples)
        print(f"  {name:22} p50 {p50 * 1e3:6.3f} ms ({p50 / base_wall:.3f}x)   CPU"
              f" {cpu[name] * 1e3:6.3f} ms/call ({cpu[name] / base_cpu:.3f}x,"
              f" {(cpu[name] - base_cpu) * 1e6:+.0f} us)")  # fmt: skip
    print(f"  the collector stand-in received {exported[0]} trace exports"
          f" ({exported[1] / 1024:.0f} KiB)")  # fmt: skip
    load = os.getloadavg()
    print(f"load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
