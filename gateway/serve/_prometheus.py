"""The server's metrics in the Prometheus text format (``prometheus-client``), on a registry
of their own: counters and histograms recorded as calls happen
(``gateway.base.telemetry.MetricsSink``), gauges read at each scrape (``Gauges``).

- ``gateway_tool_calls_total`` {tool, package, ecosystem, outcome}: ``telemetry.OUTCOMES``;
- ``gateway_tool_call_duration_seconds`` (histogram) {tool, package};
- ``gateway_hook_calls_total`` {event, package, outcome}: ``ok``, ``error``, ``cancelled``;
- ``gateway_hook_duration_seconds`` (histogram) {event, package};
- ``gateway_package_starts_total`` {package, ecosystem, kind, outcome}: ``start`` or
  ``restart``, ``ok`` or ``failed``; ``gateway_package_start_duration_seconds`` {package};
- ``gateway_info`` {version}, and the gauges the server adds (``gateway.serve._gauges``).

A label's value is a name the registry holds (a tool, a package), never text a client chose:
a call of a tool the server does not offer is counted under ``tool=""``. Label values are
cut at 128 characters; the library escapes them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.metrics_core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from gateway.base import gateway_version
from gateway.serve._gauges import BUCKETS, Gauges

__all__ = ["CONTENT_TYPE", "PrometheusMetrics"]

CONTENT_TYPE = CONTENT_TYPE_LATEST
_CUT = 128


def _cut(value: str) -> str:
    return value[:_CUT]


class _GaugeCollector(Collector):
    def __init__(self, gauges: Gauges) -> None:
        self._gauges = gauges

    def collect(self) -> Iterator[Metric]:
        info = GaugeMetricFamily("gateway_info", "The gateway's version", labels=["version"])
        info.add_metric([gateway_version()], 1)
        yield info
        for name, _unit, description, read in self._gauges.series():
            values = read()
            keys = sorted({key for labels in values for key, _ in labels})
            family = GaugeMetricFamily(f"gateway_{name}", description, labels=keys)
            for labels, value in values.items():
                given = dict(labels)
                family.add_metric([_cut(given.get(key, "")) for key in keys], value)
            yield family


class PrometheusMetrics:
    """A ``MetricsSink`` with its own registry; ``render`` is one scrape."""

    def __init__(self, gauges: Gauges) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._calls = Counter(
            "gateway_tool_calls", "Tool calls, by tool, package and outcome",
            ["tool", "package", "ecosystem", "outcome"], registry=self.registry,
        )  # fmt: skip
        self._call_time = Histogram(
            "gateway_tool_call_duration_seconds", "Tool call duration",
            ["tool", "package"], buckets=BUCKETS, registry=self.registry,
        )  # fmt: skip
        self._hooks = Counter(
            "gateway_hook_calls", "Hook calls, by event, package and outcome",
            ["event", "package", "outcome"], registry=self.registry,
        )  # fmt: skip
        self._hook_time = Histogram(
            "gateway_hook_duration_seconds", "Hook call duration",
            ["event", "package"], buckets=BUCKETS, registry=self.registry,
        )  # fmt: skip
        self._starts = Counter(
            "gateway_package_starts", "Package starts and restarts",
            ["package", "ecosystem", "kind", "outcome"], registry=self.registry,
        )  # fmt: skip
        self._start_time = Histogram(
            "gateway_package_start_duration_seconds", "Package start duration",
            ["package"], buckets=BUCKETS, registry=self.registry,
        )  # fmt: skip
        self.registry.register(_GaugeCollector(gauges))
        self._tool_series: dict[tuple[str, str, str, str], tuple[Any, Any]] = {}
        """A tool call's two series, found once (``labels()`` checks and locks each time):
        as many as the registry holds already."""

    def tool_call(
        self, tool: str, package: str, ecosystem: str, outcome: str, seconds: float
    ) -> None:
        key = (tool, package, ecosystem, outcome)
        series = self._tool_series.get(key)
        if series is None:
            tool, package = _cut(tool), _cut(package)
            series = self._tool_series[key] = (
                self._calls.labels(tool, package, ecosystem, outcome),
                self._call_time.labels(tool, package),
            )
        series[0].inc()
        series[1].observe(seconds)

    def hook_call(self, event: str, package: str, outcome: str, seconds: float) -> None:
        package = _cut(package)
        self._hooks.labels(event, package, outcome).inc()
        self._hook_time.labels(event, package).observe(seconds)

    def package_start(
        self, package: str, ecosystem: str, restart: bool, ok: bool, seconds: float
    ) -> None:
        package = _cut(package)
        kind = "restart" if restart else "start"
        self._starts.labels(package, ecosystem, kind, "ok" if ok else "failed").inc()
        self._start_time.labels(package).observe(seconds)

    def render(self) -> bytes:
        return generate_latest(self.registry)
