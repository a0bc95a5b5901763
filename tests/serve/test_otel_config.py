"""When ``gateway serve`` traces and meters: the standard ``OTEL_*`` variables decide, and
nothing of OpenTelemetry's SDK or of ``prometheus-client`` is imported unless asked for."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gateway.base import Diagnostic
from gateway.serve._gauges import Gauges
from gateway.serve._otel import otel_wanted, start_otel


@pytest.mark.parametrize(
    ("env", "wanted"),
    [
        ({}, (None, None)),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, ("otlp", "otlp")),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, ("otlp", None)),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_METRICS_EXPORTER": "none"},
         ("otlp", None)),
        ({"OTEL_TRACES_EXPORTER": "console"}, ("console", None)),
        ({"OTEL_TRACES_EXPORTER": "zipkin"}, (None, None)),  # not one the gateway has
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"},
         (None, None)),
    ],
)  # fmt: skip
def test_the_otel_variables_decide_what_is_exported(env, wanted) -> None:
    assert otel_wanted(env) == wanted


def test_grpc_is_said_and_nothing_is_exported() -> None:
    said: list[Diagnostic] = []
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
    done = start_otel(Gauges(), said.append, env)
    assert done.tracer is None and done.metrics is None and not done.providers
    assert [d.code for d in said] == ["serve.telemetry_unavailable"] * 2
    assert "http/protobuf" in said[0].message


NOTHING_ASKED = """
import json, sys
from gateway.serve._mcp import McpBridge
from gateway.serve._observe import start_observing, stdio_gauges
observed = start_observing(McpBridge(), stdio_gauges(), prometheus=False, transport="pipe",
                           report=print)
heavy = [m for m in sys.modules if m.startswith(("opentelemetry.sdk", "opentelemetry.exporter",
                                                 "prometheus_client"))]
print(json.dumps({"active": observed.active, "heavy": heavy}))
"""


def test_without_otel_variables_or_metrics_nothing_heavy_is_imported() -> None:
    env = {"PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", NOTHING_ASKED], env=env, capture_output=True,
                          text=True, timeout=120, check=True)  # fmt: skip
    assert json.loads(done.stdout) == {"active": False, "heavy": []}


@pytest.mark.parametrize(
    ("env", "kind"),
    [({}, "AlwaysOffExemplarFilter"),
     ({"OTEL_METRICS_EXEMPLAR_FILTER": "trace_based"}, "TraceBasedExemplarFilter")],
)  # fmt: skip
def test_exemplars_are_kept_only_when_the_otel_variable_asks(monkeypatch, env, kind) -> None:
    from opentelemetry.sdk.resources import Resource

    from gateway.serve._otel import _meter_provider

    for name, value in env.items():
        monkeypatch.setenv(name, value)  # the SDK reads the variable itself
    provider = _meter_provider("console", Resource.create({}), env)
    try:
        assert type(provider._sdk_config.exemplar_filter).__name__ == kind
    finally:
        provider.shutdown()
