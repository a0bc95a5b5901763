"""A real OTLP/HTTP receiver on loopback, as an OpenTelemetry Collector's ``otlphttp``
receiver is: POST ``/v1/traces`` and ``/v1/metrics`` with protobuf bodies (gzip or not),
each decoded with OpenTelemetry's own protobuf definitions and kept."""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


@dataclass
class Received:
    url: str
    traces: list[ExportTraceServiceRequest] = field(default_factory=list)
    metrics: list[ExportMetricsServiceRequest] = field(default_factory=list)

    def spans(self) -> list[Any]:
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
        return {
            attribute.value.string_value
            for request in self.traces
            for resource in request.resource_spans
            for attribute in resource.resource.attributes
            if attribute.key == "service.name"
        }


def attributes(span: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for item in span.attributes:
        value = item.value
        found[item.key] = getattr(value, value.WhichOneof("value"))
    return found


@contextmanager
def otlp_receiver() -> Iterator[Received]:
    received = Received("")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            if self.headers.get("content-encoding") == "gzip":
                body = gzip.decompress(body)
            if self.path == "/v1/traces":
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                received.traces.append(request)
                reply = ExportTraceServiceResponse().SerializeToString()
            elif self.path == "/v1/metrics":
                metrics = ExportMetricsServiceRequest()
                metrics.ParseFromString(body)
                received.metrics.append(metrics)
                reply = ExportMetricsServiceResponse().SerializeToString()
            else:
                self.send_response(404)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("content-type", "application/x-protobuf")
            self.send_header("content-length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

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
