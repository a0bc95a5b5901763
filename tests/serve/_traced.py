"""OpenTelemetry in this test process: one tracer provider for the whole process (the MCP
SDK's tracer binds to the first global provider it sees, so it is set once), its spans kept
in memory, and the gateway's telemetry installed on it for one test at a time."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from gateway.base import telemetry
from gateway.base.telemetry import MetricsSink
from gateway.serve._otel import OtelTracer

_EXPORTER = InMemorySpanExporter()
_PROVIDER: TracerProvider | None = None


def provider() -> TracerProvider:
    global _PROVIDER
    if _PROVIDER is None:
        current = trace.get_tracer_provider()
        if isinstance(current, TracerProvider):
            _PROVIDER = current  # another module of this worker set it first
        else:
            _PROVIDER = TracerProvider()
            trace.set_tracer_provider(_PROVIDER)
        _PROVIDER.add_span_processor(SimpleSpanProcessor(_EXPORTER))
    return _PROVIDER


@contextmanager
def traced(*sinks: MetricsSink) -> Iterator[InMemorySpanExporter]:
    """The gateway's spans (and the MCP SDK's) recorded in memory while the block runs."""
    tracer = OtelTracer(provider())
    _EXPORTER.clear()
    telemetry.install(tracer, tuple(sinks))
    try:
        yield _EXPORTER
    finally:
        telemetry.install()


def by_name(spans: tuple[ReadableSpan, ...] | list[ReadableSpan]) -> dict[str, ReadableSpan]:
    return {span.name: span for span in spans}


def parent_of(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent is not None else None


def attributes(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})
