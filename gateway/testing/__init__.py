"""Stand-ins for what a deployed gateway talks to, for tests and benchmarks — the
gateway's own and an operator's (does my ``OTEL_*`` configuration export what I expect?).

- ``otlp_receiver``: an OpenTelemetry Collector's OTLP/HTTP receiver on loopback, which
  counts every export and, with ``keep``, decodes and keeps it (``OtlpReceiver``).

Shipped with the gateway, as OpenTelemetry's SDK ships its in-memory span exporter: a
benchmark (``benchmarks/``) must not import the test suite, and a test of a deployment
should not need a Collector. Only the standard library is imported until a receiver that
keeps what it gets is opened (then ``opentelemetry-proto``, of the ``[otel]`` extra).
"""

from __future__ import annotations

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.testing._otlp import OtlpReceiver as OtlpReceiver
    from gateway.testing._otlp import otlp_receiver as otlp_receiver
    from gateway.testing._otlp import span_attributes as span_attributes

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
