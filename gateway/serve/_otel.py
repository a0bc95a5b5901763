"""OpenTelemetry for ``gateway serve``, configured by the standard ``OTEL_*`` variables.

Traces are on when ``OTEL_TRACES_EXPORTER`` is ``otlp`` or ``console``, or when it is unset
and an OTLP endpoint is (``OTEL_EXPORTER_OTLP_ENDPOINT`` or ``…_TRACES_ENDPOINT``); metrics
likewise (``OTEL_METRICS_EXPORTER``, ``…_METRICS_ENDPOINT``). ``OTEL_SDK_DISABLED=true`` turns
both off. The exporter is OTLP over HTTP (protobuf), which reads its endpoint, headers,
timeout, compression and certificates from ``OTEL_EXPORTER_OTLP_*`` itself; the resource
from ``OTEL_SERVICE_NAME`` and ``OTEL_RESOURCE_ATTRIBUTES``, the sampler from
``OTEL_TRACES_SAMPLER``, the batching from ``OTEL_BSP_*``, the metric interval from
``OTEL_METRIC_EXPORT_INTERVAL``; exemplars are off unless ``OTEL_METRICS_EXEMPLAR_FILTER``
is set. ``console`` writes to stderr (stdout is the protocol).

Nothing of OpenTelemetry's SDK is imported unless one is on. What is wanted and cannot be had
— the ``otel`` extra not installed, a protocol other than ``http/protobuf`` — is
``serve.telemetry_unavailable`` and the server runs untraced. The tracer provider is made
the global one, so the MCP SDK's own server span of each request (``tools/call NAME``, its
parent from the request's ``_meta.traceparent``, SEP-414) is exported with the gateway's
spans inside it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from gateway.base import Diagnostic, gateway_version, telemetry
from gateway.base.telemetry import AttributeValue, SpanHandle, SpanKind
from gateway.serve._codes import SERVE_TELEMETRY_UNAVAILABLE
from gateway.serve._gauges import BUCKETS, Gauges

__all__ = ["Telemetry", "otel_wanted", "start_otel"]

_ON = ("otlp", "console")
_OUTCOME = "extension_gateway.outcome"
Attributes = dict[str, AttributeValue]
_FLUSH_MS = 3000


def _exporter(env: Mapping[str, str], signal: str) -> str | None:
    """``otlp``, ``console`` or None (off) for ``signal`` (``TRACES``, ``METRICS``)."""
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return None
    chosen = env.get(f"OTEL_{signal}_EXPORTER", "").strip().lower()
    if chosen:
        first = chosen.split(",")[0].strip()
        return first if first in _ON else None
    endpoint = env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get(
        f"OTEL_EXPORTER_OTLP_{signal}_ENDPOINT"
    )
    return "otlp" if endpoint else None


def otel_wanted(env: Mapping[str, str] | None = None) -> tuple[str | None, str | None]:
    """(the traces exporter, the metrics exporter) ``OTEL_*`` asks for; None: off."""
    env = os.environ if env is None else env
    return _exporter(env, "TRACES"), _exporter(env, "METRICS")


class _Span:
    """One span, current while the block runs: what the SDK's ``start_as_current_span``
    does (recording nothing of an exception), without the two generator-based context
    managers it wraps each span in."""

    __slots__ = ("_span", "_token", "_tracer")

    def __init__(self, span: Any, tracer: OtelTracer) -> None:
        self._span = span
        self._tracer = tracer
        self._token: object = None

    def set(self, key: str, value: AttributeValue) -> None:
        self._span.set_attribute(key, value)

    def error(self, error_type: str, message: str = "") -> None:
        from opentelemetry.trace import StatusCode

        self._span.set_attribute(telemetry.ERROR_TYPE, error_type)
        self._span.set_status(StatusCode.ERROR, message or None)

    def __enter__(self) -> _Span:
        self._token = self._tracer.attach(self._span)
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self._tracer.detach(self._token)
        finally:
            self._span.end()


class OtelTracer:
    """``gateway.base.telemetry.Tracer`` on an OpenTelemetry tracer provider."""

    def __init__(self, provider: Any) -> None:
        from opentelemetry import context, trace
        from opentelemetry.trace import SpanKind as Kind

        self._tracer = provider.get_tracer("extension-gateway", gateway_version())
        self._kinds = {"internal": Kind.INTERNAL, "client": Kind.CLIENT, "server": Kind.SERVER}
        self._current = trace.get_current_span
        self._in_context = trace.set_span_in_context
        self._context_attach = context.attach
        self.detach: Callable[[Any], None] = context.detach

    def attach(self, span: Any) -> object:
        """Make ``span`` the current one (a token for ``detach``)."""
        return self._context_attach(self._in_context(span))

    def span(
        self, name: str, kind: SpanKind, attributes: Mapping[str, AttributeValue]
    ) -> AbstractContextManager[SpanHandle]:
        span = self._tracer.start_span(name, kind=self._kinds[kind], attributes=attributes)
        return _Span(span, self)

    def carrier(self) -> dict[str, str]:
        """The current span's W3C Trace Context as the W3C propagator writes it (version
        00), formatted here rather than through the global propagator (which
        ``OTEL_PROPAGATORS`` may make another format): a runtime's ``trace.context`` and
        SEP-414's ``_meta`` take ``traceparent`` / ``tracestate``."""
        found = self._current().get_span_context()
        if not found.is_valid:
            return {}
        parent = f"00-{found.trace_id:032x}-{found.span_id:016x}-{found.trace_flags:02x}"
        if not found.trace_state:
            return {"traceparent": parent}
        return {"traceparent": parent, "tracestate": found.trace_state.to_header()}


class OtelMetrics:
    """``gateway.base.telemetry.MetricsSink`` on an OpenTelemetry meter provider; the
    server's gauges are observed at each export."""

    def __init__(self, provider: Any, gauges: Gauges) -> None:
        from opentelemetry.metrics import CallbackOptions, Observation

        meter = provider.get_meter("extension-gateway", gateway_version())
        self._calls = meter.create_counter(
            "gateway.tool.calls", unit="{call}", description="Tool calls, by outcome"
        )
        self._call_time = meter.create_histogram(
            "gateway.tool.call.duration", unit="s", description="Tool call duration",
            explicit_bucket_boundaries_advisory=BUCKETS,
        )  # fmt: skip
        self._hooks = meter.create_counter(
            "gateway.hook.calls", unit="{call}", description="Hook calls, by outcome"
        )
        self._hook_time = meter.create_histogram(
            "gateway.hook.duration", unit="s", description="Hook call duration",
            explicit_bucket_boundaries_advisory=BUCKETS,
        )  # fmt: skip
        self._starts = meter.create_counter(
            "gateway.package.starts", unit="{start}", description="Package starts and restarts"
        )
        self._tool_labels: dict[tuple[str, str, str, str], tuple[Attributes, Attributes]] = {}

        def observe(read: Callable[[], Mapping[tuple[tuple[str, str], ...], float]]) -> Any:
            def callback(options: CallbackOptions) -> list[Any]:
                return [Observation(value, dict(labels)) for labels, value in read().items()]

            return callback

        for name, unit, description, read in gauges.series():
            meter.create_observable_gauge(
                "gateway." + name.replace("_", "."), [observe(read)], unit=unit,
                description=description,
            )  # fmt: skip

    def tool_call(
        self, tool: str, package: str, ecosystem: str, outcome: str, seconds: float
    ) -> None:
        key = (tool, package, ecosystem, outcome)
        found = self._tool_labels.get(key)
        if found is None:  # built once per series (the SDK keeps them, never changes them)
            labels: Attributes = {telemetry.TOOL_NAME: tool, telemetry.PACKAGE: package,
                                  telemetry.ECOSYSTEM: ecosystem}  # fmt: skip
            found = self._tool_labels[key] = ({**labels, _OUTCOME: outcome}, labels)
        self._calls.add(1, found[0])
        self._call_time.record(seconds, found[1])

    def hook_call(self, event: str, package: str, outcome: str, seconds: float) -> None:
        labels = {telemetry.HOOK_EVENT: event, telemetry.PACKAGE: package}
        self._hooks.add(1, {**labels, "extension_gateway.outcome": outcome})
        self._hook_time.record(seconds, labels)

    def package_start(
        self, package: str, ecosystem: str, restart: bool, ok: bool, seconds: float
    ) -> None:
        self._starts.add(1, {telemetry.PACKAGE: package, telemetry.ECOSYSTEM: ecosystem,
                             "extension_gateway.restart": restart,
                             "extension_gateway.outcome": "ok" if ok else "failed"})  # fmt: skip


@dataclass
class Telemetry:
    """What ``start_otel`` set up; ``shutdown`` flushes what is pending (bounded)."""

    providers: list[Any] = field(default_factory=list)
    tracer: OtelTracer | None = None
    metrics: OtelMetrics | None = None

    def shutdown(self) -> None:
        for provider in self.providers:
            try:
                provider.force_flush(_FLUSH_MS)
                provider.shutdown()
            except Exception as error:  # an exporter's own failure must not fail the exit
                print(f"gateway serve: telemetry not flushed: {error}", file=sys.stderr)


def start_otel(
    gauges: Gauges, report: Callable[[Diagnostic], None], env: Mapping[str, str] | None = None
) -> Telemetry:
    """OpenTelemetry as ``OTEL_*`` asks; an empty ``Telemetry`` when it asks for nothing or
    cannot be had (``report`` says why). The caller installs what it returns."""
    env = os.environ if env is None else env
    traces, metrics = otel_wanted(env)
    done = Telemetry()
    if traces is None and metrics is None:
        return done
    for signal, chosen in (("TRACES", traces), ("METRICS", metrics)):
        protocol = env.get(f"OTEL_EXPORTER_OTLP_{signal}_PROTOCOL") or env.get(
            "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"
        )
        if chosen == "otlp" and protocol.strip() != "http/protobuf":
            report(SERVE_TELEMETRY_UNAVAILABLE(
                f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol!r}: the gateway exports OTLP over HTTP "
                f"(http/protobuf) only; {signal.lower()} are not exported",
                hint="set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf and the collector's HTTP "
                "port (4318)",
            ))  # fmt: skip
            traces, metrics = (None, metrics) if signal == "TRACES" else (traces, None)
    try:
        from opentelemetry import metrics as otel_metrics
        from opentelemetry import trace
        from opentelemetry.sdk.resources import SERVICE_NAME, SERVICE_VERSION, Resource
    except ImportError as error:
        report(SERVE_TELEMETRY_UNAVAILABLE(
            f"OTEL_* asks for telemetry, but OpenTelemetry's SDK is not installed ({error.name})",
            hint="pip install 'extension-gateway[otel]'",
        ))  # fmt: skip
        return done
    resource = Resource.create(
        {SERVICE_NAME: env.get("OTEL_SERVICE_NAME") or "extension-gateway",
         SERVICE_VERSION: gateway_version()}
    )  # fmt: skip
    try:
        if traces is not None:
            provider = _tracer_provider(traces, resource)
            trace.set_tracer_provider(provider)
            done.providers.append(provider)
            done.tracer = OtelTracer(provider)
        if metrics is not None:
            meters = _meter_provider(metrics, resource, env)
            otel_metrics.set_meter_provider(meters)
            done.providers.append(meters)
            done.metrics = OtelMetrics(meters, gauges)
    except ImportError as error:
        report(SERVE_TELEMETRY_UNAVAILABLE(
            f"OTEL_* asks for telemetry, but its exporter is not installed ({error.name})",
            hint="pip install 'extension-gateway[otel]'",
        ))  # fmt: skip
    return done


def _tracer_provider(exporter: str, resource: Any) -> Any:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

    provider = TracerProvider(resource=resource)
    if exporter == "console":
        provider.add_span_processor(BatchSpanProcessor(ConsoleSpanExporter(out=sys.stderr)))
    else:
        from gateway.serve._otlp_spans import LeanOtlpSpanExporter

        provider.add_span_processor(BatchSpanProcessor(LeanOtlpSpanExporter()))
    return provider


def _meter_provider(exporter: str, resource: Any, env: Mapping[str, str]) -> Any:
    """Exemplars (a sampled span's id kept with a measurement) only when
    ``OTEL_METRICS_EXEMPLAR_FILTER`` asks: the SDK's default (``trace_based``) offers one
    for every measurement under a traced call — a cost per call for what the Prometheus
    endpoint never shows."""
    from opentelemetry.sdk.metrics import AlwaysOffExemplarFilter, MeterProvider
    from opentelemetry.sdk.metrics.export import (
        ConsoleMetricExporter,
        MetricExporter,
        PeriodicExportingMetricReader,
    )

    chosen: MetricExporter
    if exporter == "console":
        chosen = ConsoleMetricExporter(out=sys.stderr)
    else:
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter

        chosen = OTLPMetricExporter()
    exemplars = None if env.get("OTEL_METRICS_EXEMPLAR_FILTER") else AlwaysOffExemplarFilter()
    return MeterProvider(
        resource=resource,
        metric_readers=[PeriodicExportingMetricReader(chosen)],
        exemplar_filter=exemplars,
    )
