"""A stand-in OpenTelemetry Collector: an OTLP/HTTP receiver on 127.0.0.1, as a
Collector's ``otlphttp`` receiver is — ``POST /v1/traces`` and ``/v1/metrics`` (protobuf,
gzip or not) answered 200 with the empty export response, anything else 404.

It counts every export (requests and bytes per path). With ``keep`` it also decodes each
with OpenTelemetry's own protobuf definitions (``opentelemetry-proto``, which the
``[otel]`` extra brings) and keeps it, for a test to read the spans and metrics a server
exported; without, it decodes nothing, so a benchmark that measures the CPU time of its
own process pays for its stand-in collector only what a socket costs.
"""

from __future__ import annotations

import gzip
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["OtlpReceiver", "otlp_receiver", "span_attributes"]

TRACES = "/v1/traces"
METRICS = "/v1/metrics"


@dataclass
class OtlpReceiver:
    """What the receiver got. ``traces`` and ``metrics`` hold the decoded export requests
    (``ExportTraceServiceRequest``, ``ExportMetricsServiceRequest``) when it keeps them."""

    url: str = ""
    """``http://127.0.0.1:PORT``: the value of ``OTEL_EXPORTER_OTLP_ENDPOINT``."""
    keep: bool = True
    requests: Counter[str] = field(default_factory=Counter)
    """Exports received, per path (``/v1/traces``, ``/v1/metrics``)."""
    bytes: Counter[str] = field(default_factory=Counter)
    """Bytes received (as sent: compressed when the exporter compressed), per path."""
    traces: list[Any] = field(default_factory=list)
    metrics: list[Any] = field(default_factory=list)

    def spans(self) -> list[Any]:
        """Every span kept, in the order received."""
        return [
            span
            for request in self.traces
            for resource in request.resource_spans
            for scope in resource.scope_spans
            for span in scope.spans
        ]

    def metric_names(self) -> set[str]:
        return {
            metric.name
            for request in self.metrics
            for resource in request.resource_metrics
            for scope in resource.scope_metrics
            for metric in scope.metrics
        }

    def service_names(self) -> set[str]:
        """The ``service.name`` of every resource whose spans were kept."""
        return {
            attribute.value.string_value
            for request in self.traces
            for resource in request.resource_spans
            for attribute in resource.resource.attributes
            if attribute.key == "service.name"
        }


def span_attributes(span: Any) -> dict[str, Any]:
    """A decoded span's attributes as plain values (a string, an int, a bool, …)."""
    found: dict[str, Any] = {}
    for item in span.attributes:
        value = item.value
        found[item.key] = getattr(value, value.WhichOneof("value"))
    return found


@contextmanager
def otlp_receiver(*, keep: bool = True) -> Iterator[OtlpReceiver]:
    """A receiver listening on a free loopback port while the block runs."""
    received = OtlpReceiver(keep=keep)
    decoders = _decoders() if keep else {}
    lock = threading.Lock()  # a threading server: one handler thread per connection

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # kept alive, as an exporter's session expects

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            if self.path not in (TRACES, METRICS):
                self.send_response(404)
                self.send_header("content-length", "0")
                self.end_headers()
                return
            decoded = None
            if keep:
                raw = (
                    gzip.decompress(body)
                    if self.headers.get("content-encoding") == "gzip"
                    else body
                )
                decoded = decoders[self.path]()
                decoded.ParseFromString(raw)
            with lock:
                received.requests[self.path] += 1
                received.bytes[self.path] += len(body)
                if decoded is not None:
                    (received.traces if self.path == TRACES else received.metrics).append(decoded)
            # An Export*ServiceResponse with nothing rejected: every field empty, zero bytes.
            self.send_response(200)
            self.send_header("content-type", "application/x-protobuf")
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    received.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield received
    finally:
        server.shutdown()
        server.server_close()


def _decoders() -> dict[str, Any]:
    """The export request types by path (ImportError without ``opentelemetry-proto``)."""
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
        ExportMetricsServiceRequest,
    )
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    return {TRACES: ExportTraceServiceRequest, METRICS: ExportMetricsServiceRequest}
