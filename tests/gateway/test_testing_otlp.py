"""``gateway.testing.otlp_receiver``, the stand-in OpenTelemetry Collector the tests and the
benchmarks share: OpenTelemetry's own OTLP/HTTP exporter posts to it, gzip or not."""

from __future__ import annotations

import httpx2
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from gateway.testing import otlp_receiver, span_attributes


def export_one_span(url: str, compression: Compression) -> None:
    exporter = OTLPSpanExporter(endpoint=f"{url}/v1/traces", compression=compression)
    provider = TracerProvider(resource=Resource.create({"service.name": "under-test"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with provider.get_tracer("test").start_as_current_span("one", attributes={"n": 7}):
        pass
    provider.shutdown()


def test_a_keeping_receiver_decodes_what_the_exporter_sends_plain_or_gzipped() -> None:
    with otlp_receiver() as received:
        export_one_span(received.url, Compression.NoCompression)
        export_one_span(received.url, Compression.Gzip)
    assert [span.name for span in received.spans()] == ["one", "one"]
    assert span_attributes(received.spans()[0]) == {"n": 7}
    assert received.service_names() == {"under-test"}
    assert received.requests["/v1/traces"] == 2


def test_a_counting_receiver_keeps_nothing_but_counts_requests_and_bytes() -> None:
    with otlp_receiver(keep=False) as sink:
        export_one_span(sink.url, Compression.Gzip)
    assert (sink.requests["/v1/traces"], sink.traces) == (1, [])
    assert sink.bytes["/v1/traces"] > 0


def test_a_path_that_is_no_otlp_export_is_not_found_and_not_counted() -> None:
    with otlp_receiver() as received:
        reply = httpx2.post(f"{received.url}/v1/logs", content=b"")
    assert reply.status_code == 404
    assert sum(received.requests.values()) == 0
