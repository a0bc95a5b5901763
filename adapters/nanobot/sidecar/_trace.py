"""The W3C trace context of the request being served, one per request, never per process.

With ``trace.context`` negotiated, the gateway's ``tool``, ``command`` and ``event``
requests carry ``gateway: {traceparent, tracestate?}``: the span of that request (a
tool call ``serve`` answers: the call's one span). This process serves many requests at
once, so an environment variable or a module global would hand one request's parent to
another's work. Each request runs as its own asyncio task, and a task runs in its own copy
of the context variables: ``enter`` sets ``CURRENT`` inside the task, where the package's
code running for that request (and any task it starts) reads it — ``api.trace_context()``
— and no other request does.

When the package has imported OpenTelemetry's API (``opentelemetry.trace`` is loaded:
it does at import or in ``register``, where it sets up its tracer provider), the request's
context is also made OpenTelemetry's current context in the task — as the MCP Python SDK
does with a request's ``_meta.traceparent`` — so a span the package starts for the request
is a child of the gateway's span without the package reading anything. The sidecar never
imports OpenTelemetry itself: a package that does not use it pays nothing.
"""

from __future__ import annotations

import sys
from contextvars import ContextVar

# For type checkers only: importing typing would cost the sidecar ≈7 ms at start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["CURRENT", "enter", "trace_context"]

CURRENT: ContextVar[dict[str, str] | None] = ContextVar("nanobot_request_trace", default=None)
"""The trace context of the request this task serves (checked W3C shape), or None."""


def enter(message: dict[str, Any]) -> None:
    """At the start of a request's task (negotiated ``trace.context``): its trace context
    becomes the task's. A request without one (the gateway does not trace) or with one not
    in the W3C shape sets nothing."""
    carried = message.get("gateway")
    if carried is None:
        return
    found = _checker()(carried)
    if not found:
        return
    CURRENT.set(found)
    if "opentelemetry.trace" in sys.modules:
        _make_current_in_opentelemetry(found)


def trace_context() -> dict[str, str]:
    """A copy of the current request's ``{traceparent, tracestate?}``; {} outside one."""
    found = CURRENT.get()
    return dict(found) if found else {}


_checked: Callable[[object], dict[str, str]] | None = None


def _checker() -> Callable[[object], dict[str, str]]:
    """``gateway.base.telemetry.checked_trace`` (the one W3C check), imported at the first
    request that carries a trace and kept: an import statement per request costs more than
    the check."""
    global _checked
    if _checked is None:
        from gateway.base.telemetry import checked_trace

        _checked = checked_trace
    return _checked


def _make_current_in_opentelemetry(found: dict[str, str]) -> None:
    """The request's context as OpenTelemetry's current one, for this task only (the task's
    context copy is dropped with it, so nothing is detached). Built as the W3C propagator
    builds it from a checked ``traceparent`` — a remote parent, its flags and ``tracestate``
    — without the propagator's second parse, which doubled the cost."""
    try:
        from opentelemetry import context, trace
        from opentelemetry.trace.span import TraceState
    except ImportError:  # a package shadowing the name, or an API too old: nothing to do
        return
    version, trace_id, span_id, flags = found["traceparent"].split("-")
    if version == "ff":  # W3C: an invalid version
        return
    state = found.get("tracestate")
    parent = trace.SpanContext(
        int(trace_id, 16),
        int(span_id, 16),
        is_remote=True,
        trace_flags=trace.TraceFlags(int(flags, 16)),
        trace_state=TraceState.from_header([state]) if state else None,
    )
    if parent.is_valid:  # all-zero ids are no parent
        context.attach(trace.set_span_in_context(trace.NonRecordingSpan(parent)))
