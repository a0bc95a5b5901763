"""The gateway's OTLP span encoder writes the very bytes OpenTelemetry's encoder writes, and
its exporter posts them as OpenTelemetry's exporter does."""

from __future__ import annotations

import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans as sdk_encode
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import (
    Link,
    NonRecordingSpan,
    SpanContext,
    SpanKind,
    Status,
    StatusCode,
    TraceFlags,
    TraceState,
    set_span_in_context,
)

from gateway.serve._otlp_spans import LeanOtlpSpanExporter, encode_spans
from gateway.testing import otlp_receiver, span_attributes

SERVED = {"mcp.method.name": "tools/call", "mcp.protocol.version": "2025-06-18",
          "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "echo"}  # fmt: skip


def _provider(resource: Resource) -> tuple[TracerProvider, InMemorySpanExporter]:
    kept = InMemorySpanExporter()
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(SimpleSpanProcessor(kept))
    return provider, kept


def _spans() -> list[ReadableSpan]:
    """Spans of every shape: a served call's, with a remote parent and its trace state, an
    error status, events, links, values of every type, and two resources (two providers
    with equal resources, one with another) and three scopes."""
    first, kept = _provider(Resource.create({"service.name": "one", "k": 1}))
    equal, kept_equal = _provider(Resource.create({"service.name": "one", "k": 1}))
    other, kept_other = _provider(Resource({"service.name": "two"}, schema_url="https://s/1"))
    mcp = first.get_tracer("mcp-python-sdk")
    ours = first.get_tracer("extension-gateway", "1.2.3", schema_url="https://s/2")
    remote = SpanContext(0x4BF92F3577B34DA6A3CE929D0E0E4736, 0x00F067AA0BA902B7, is_remote=True,
                         trace_flags=TraceFlags(1), trace_state=TraceState([("a", "1"), ("b", "x")]))  # fmt: skip
    for number in range(3):
        with mcp.start_as_current_span(
            "tools/call echo", kind=SpanKind.SERVER,
            attributes={**SERVED, "jsonrpc.request.id": str(number)},
            context=set_span_in_context(NonRecordingSpan(remote)) if number == 1 else None,
        ) as span:  # fmt: skip
            span.set_attributes({"extension_gateway.package": "echo", "network.transport": "tcp",
                                 "extension_gateway.outcome": "ok" if number else "error"})  # fmt: skip
            if number == 0:
                span.set_status(Status(StatusCode.ERROR, "it failed"))
            with ours.start_as_current_span("hook pre_tool_use", attributes={
                "flag": number == 2, "count": number - 2, "ratio": number / 3,
                "big": 2**63 - 1, "small": -(2**63), "empty": "", "unicode": "été ✓",
            }) as inner:  # fmt: skip
                if number == 2:
                    inner.set_status(Status(StatusCode.OK))
    with ours.start_as_current_span("odd values", attributes={"list": ["a", "b"], "ints": (1, 2)}):
        pass
    with ours.start_as_current_span("an event") as span:
        span.add_event("happened", {"n": 1})
    link = Link(remote, {"why": "because"})
    with ours.start_as_current_span("a link", links=[link], kind=SpanKind.CLIENT):
        pass
    with equal.get_tracer("mcp-python-sdk").start_as_current_span("equal resource"):
        pass
    with other.get_tracer("mcp-python-sdk").start_as_current_span("", kind=SpanKind.CONSUMER):
        pass
    spans = [*kept.get_finished_spans(), *kept_other.get_finished_spans(),
             *kept_equal.get_finished_spans()]  # fmt: skip
    return spans[:2] + spans[-2:] + spans[2:-2]  # the resources and scopes interleaved


@pytest.fixture(scope="module")
def spans() -> list[ReadableSpan]:
    return _spans()


def test_the_request_is_opentelemetrys_byte_for_byte(spans: list[ReadableSpan]) -> None:
    assert encode_spans(spans) == sdk_encode(spans).SerializePartialToString()
    for one in spans:
        assert encode_spans([one]) == sdk_encode([one]).SerializePartialToString()
    assert encode_spans([]) == sdk_encode([]).SerializePartialToString()


def test_what_is_kept_from_batch_to_batch_changes_nothing(spans: list[ReadableSpan]) -> None:
    from gateway.serve._otlp_spans import _Encoder

    encoder = _Encoder()
    for batch in (spans, spans[3:], spans[::-1], spans):
        assert encode_spans(batch, encoder) == sdk_encode(batch).SerializePartialToString()


def test_the_exporter_posts_what_a_collector_decodes(spans: list[ReadableSpan]) -> None:
    with otlp_receiver() as received:
        exporter = LeanOtlpSpanExporter(endpoint=f"{received.url}/v1/traces")
        assert exporter.export(spans) is SpanExportResult.SUCCESS
        assert exporter.export(spans[:2]) is SpanExportResult.SUCCESS
        exporter.shutdown()
    assert received.requests["/v1/traces"] == 2
    got = received.spans()
    assert [span.name for span in got[: len(spans)]] == [
        span.name for r in sdk_encode(spans).resource_spans for s in r.scope_spans
        for span in s.spans
    ]  # fmt: skip
    served = next(span for span in got if span.name == "tools/call echo")
    assert SERVED.items() <= span_attributes(served).items()


def test_a_batch_it_cannot_post_fails_as_opentelemetrys_does(spans: list[ReadableSpan]) -> None:
    with otlp_receiver() as received:
        too_large = LeanOtlpSpanExporter(endpoint=f"{received.url}/v1/traces",
                                         max_request_size=100)  # fmt: skip
        assert too_large.export(spans) is SpanExportResult.FAILURE
        missing = LeanOtlpSpanExporter(endpoint=f"{received.url}/nowhere", timeout=5)
        assert missing.export(spans[:1]) is SpanExportResult.FAILURE
    assert received.requests["/v1/traces"] == 0
    done = LeanOtlpSpanExporter(endpoint="http://127.0.0.1:9/v1/traces")
    done.shutdown()
    assert done.export(spans) is SpanExportResult.FAILURE


def test_under_a_release_it_was_not_tested_with_it_is_the_sdks_exporter(
    spans: list[ReadableSpan], monkeypatch: pytest.MonkeyPatch
) -> None:
    import gateway.serve._otlp_spans as lean

    monkeypatch.setattr(lean, "_exporter_release", lambda: "0.0")
    with otlp_receiver() as received:
        exporter = LeanOtlpSpanExporter(endpoint=f"{received.url}/v1/traces")
        monkeypatch.setattr(lean._Encoder, "request", _never_encoded)
        assert exporter.export(spans) is SpanExportResult.SUCCESS
        exporter.shutdown()
    assert sorted(span.name for span in received.spans()) == sorted(s.name for s in spans)


def _never_encoded(*_: object) -> bytes:
    raise AssertionError("encoded by the gateway under an untested release")
