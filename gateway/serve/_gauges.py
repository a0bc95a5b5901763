"""What a running server reports as gauges (open MCP sessions, tokens in use, calls in
flight, running packages): read when a scrape or an export asks, by both the Prometheus
and the OpenTelemetry metrics; and the histogram buckets both use."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

__all__ = ["BUCKETS", "Gauges", "Labels", "Read"]

BUCKETS: tuple[float, ...] = (
    0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
)  # fmt: skip
"""Seconds: OpenTelemetry's MCP conventions' buckets (``mcp.server.operation.duration``),
with three below 10 ms, where a warm tool call of the gateway lands."""

Labels = tuple[tuple[str, str], ...]
Read = Callable[[], Mapping[Labels, float]]


@dataclass
class Gauges:
    """Named gauges, each read by a callback returning {labels: value}."""

    _series: list[tuple[str, str, str, Read]] = field(default_factory=list)

    def add(self, name: str, unit: str, description: str, read: Read) -> None:
        """``name`` in snake case (``mcp_sessions``): Prometheus shows ``gateway_NAME``,
        OpenTelemetry ``gateway.NAME`` with dots."""
        self._series.append((name, unit, description, read))

    def series(self) -> list[tuple[str, str, str, Read]]:
        return list(self._series)

    @staticmethod
    def one(value: float, **labels: str) -> Mapping[Labels, float]:
        return {tuple(sorted(labels.items())): float(value)}
