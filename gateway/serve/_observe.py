"""What ``gateway serve --mcp`` reports about itself, when asked: OpenTelemetry traces and
metrics (``OTEL_*``, ``_otel``) and Prometheus metrics (``--metrics``, ``_prometheus``).

``start_observing`` installs them into ``gateway.base.telemetry`` for the whole process and
adds ``McpObserver`` to the MCP server: on the span of each request (the MCP SDK's span,
made by ``_mcp_span.McpSpan`` in the SDK middleware's place) it names the owning package and
ecosystem, the MCP session and the transport, gives each tool call a trail (``CALL_TRAIL``)
and counts a call that never reached a tool (unknown, refused or limited) under
``tool=""``. Asked for nothing, it installs nothing and adds nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from opentelemetry.trace import get_current_span  # imported by the MCP SDK's server already

from gateway.base import Diagnostic, telemetry
from gateway.base.telemetry import AFTER_REPLY, CALL_TRAIL, AfterReply, CallTrail
from gateway.serve._gauges import Gauges, Labels
from gateway.serve._mcp import McpBridge
from gateway.serve._mcp_span import McpSpan
from gateway.serve._otel import Telemetry, start_otel

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gateway.serve._http_bridge import HttpBridge
    from gateway.serve._prometheus import PrometheusMetrics

__all__ = [
    "McpObserver",
    "Observed",
    "answered",
    "http_gauges",
    "observe",
    "start_observing",
    "stdio_gauges",
]


@dataclass
class Observed:
    prometheus: PrometheusMetrics | None
    otel: Telemetry

    @property
    def active(self) -> bool:
        return self.prometheus is not None or bool(self.otel.providers)

    def close(self) -> None:
        """Record nothing more; flush what OpenTelemetry still holds (bounded)."""
        telemetry.install()
        self.otel.shutdown()


def start_observing(
    bridge: McpBridge,
    gauges: Gauges,
    *,
    prometheus: bool,
    transport: str,
    report: Callable[[Diagnostic], None],
) -> Observed:
    """Prometheus metrics when ``prometheus``, OpenTelemetry as ``OTEL_*`` asks; installed
    for this process. ``transport``: ``pipe`` (stdio) or ``tcp`` (HTTP)."""
    metrics = None
    if prometheus:
        from gateway.serve._prometheus import PrometheusMetrics

        metrics = PrometheusMetrics(gauges)
    otel = start_otel(gauges, report)
    sinks = tuple(sink for sink in (metrics, otel.metrics) if sink is not None)
    telemetry.install(otel.tracer, sinks)
    observed = Observed(metrics, otel)
    if observed.active:
        observe(bridge.server, transport)
    return observed


def observe(server: Any, transport: str) -> McpObserver:
    """``McpObserver`` last on ``server``'s middleware, and in the MCP SDK's
    ``OpenTelemetryMiddleware``'s place (first) ``McpSpan``, which makes the same span of
    each request with less work while the gateway traces."""
    observer = McpObserver(transport)
    for at, middleware in enumerate(server.middleware):
        if type(middleware).__name__ == "OpenTelemetryMiddleware":
            server.middleware[at] = observer.spans = McpSpan(middleware, observer.facts)
            break
    server.middleware.append(observer)
    return observer


async def answered(app: Any, scope: Any, receive: Any, send: Any) -> None:
    """One HTTP request to the MCP endpoint (``app``, ASGI), what its spans and counts leave
    for after the reply (``telemetry.after_reply``) done as soon as a part of the response
    is written after they were left — the reply itself, the request's handler having
    finished first —, and whatever is left when the request ends; nothing when the server
    records nothing. The client has its reply before the span ends (at the time it ended
    before) and is handed to the exporter, and before the call is counted; nothing is
    dropped."""
    if not (telemetry.tracing() or telemetry.counting()):
        await app(scope, receive, send)
        return
    later = AfterReply()

    async def sent(message: Any) -> None:
        await send(message)
        if later.pending and message["type"] == "http.response.body":
            later.run()

    given = AFTER_REPLY.set(later)
    try:
        await app(scope, receive, sent)
    finally:
        AFTER_REPLY.reset(given)
        later.close()


class McpObserver:
    """Server middleware: the gateway's attributes on the MCP SDK's request span, and the
    trail and count of each tool call."""

    def __init__(self, transport: str) -> None:
        self._transport = transport
        self.spans: McpSpan | None = None
        """The middleware that makes each request's span, where it is the gateway's."""

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        method = ctx.method
        if method not in ("tools/call", "prompts/get"):
            return await call_next(ctx)
        name = ctx.params.get("name") if ctx.params else None
        name = name if isinstance(name, str) else ""
        trail = CallTrail(spanned=True)  # the MCP SDK's span is the call's
        given = CALL_TRAIL.set(trail)
        try:
            return await call_next(ctx)
        finally:
            CALL_TRAIL.reset(given)
            if method == "tools/call" and not trail.package:
                # Never reached a tool (unknown, out of the token's scope, limited): counted
                # under tool="", never under a name the client chose.
                telemetry.count_tool_call("", "", "", trail.outcome, 0.0)
            if telemetry.tracing():
                self._describe(ctx, trail)

    def facts(self, ctx: ServerRequestContext[Any, Any]) -> dict[str, Any]:
        """The gateway's attributes known when a request starts: its transport and MCP
        session."""
        found: dict[str, Any] = {"network.transport": self._transport}
        headers = getattr(ctx.request, "headers", None)
        session = headers.get("mcp-session-id") if headers is not None else None
        if isinstance(session, str):
            found[telemetry.MCP_SESSION] = session[:64]
        return found

    def _describe(self, ctx: ServerRequestContext[Any, Any], trail: CallTrail) -> None:
        """The gateway's attributes on the span of this request (``McpSpan`` gave it those
        known at the start; the MCP SDK's middleware, when it made the span, none)."""
        span = get_current_span()  # the span of this request
        if not span.is_recording():  # sampled out: nothing of it is kept
            return
        ours = self.spans is not None and self.spans.lean  # McpSpan's: it ends after
        found = {} if ours else self.facts(ctx)
        if trail.package:  # the tool's owner (a command's is on its own span)
            found[telemetry.PACKAGE] = trail.package
            found[telemetry.ECOSYSTEM] = trail.ecosystem
        if ctx.method == "tools/call":  # error.type stays the SDK's (tool_error, a code)
            found["extension_gateway.outcome"] = trail.outcome
            if trail.runtime_error:  # the request to the runtime has no span of its own
                found[telemetry.RUNTIME_ERROR] = trail.runtime_error
        if found and ours:  # set once the reply is written, before the span ends
            telemetry.after_reply(span.set_attributes, found)
        elif found:
            span.set_attributes(found)


def stdio_gauges() -> Gauges:
    """``serve --mcp`` on stdio: one MCP connection while it runs."""
    gauges = Gauges()
    gauges.add("mcp_sessions", "{session}", "Open MCP sessions",
               lambda: Gauges.one(1, transport="stdio"))  # fmt: skip
    return gauges


def http_gauges(manager: Any, bridge: HttpBridge) -> Gauges:
    """``serve --mcp --http``: the SDK session manager's open sessions, the tokens in use
    (holding an open session or a call in flight) and the calls in flight."""
    gauges = Gauges()
    # The session manager keeps both maps privately; without them the gauges read 0.
    sessions: dict[str, Any] = getattr(manager, "_server_instances", {})
    owners: dict[str, Any] = getattr(manager, "_session_owners", {})

    def in_use() -> Mapping[Labels, float]:
        names = {(owners.get(s) or {}).get("client_id") for s in list(sessions)}
        names.discard(None)
        return Gauges.one(len(names | set(bridge.in_flight())))

    gauges.add("mcp_sessions", "{session}", "Open MCP sessions",
               lambda: Gauges.one(len(sessions), transport="http"))  # fmt: skip
    gauges.add("tokens_in_use", "{token}", "Tokens with an open session or a call in flight",
               in_use)  # fmt: skip
    gauges.add("tool_calls_in_flight", "{call}", "Tool calls in flight",
               lambda: Gauges.one(sum(bridge.in_flight().values())))  # fmt: skip
    return gauges
