"""The span of each MCP request ``gateway serve`` answers, made with less work than the MCP
SDK makes it, and the same span.

The MCP SDK puts ``OpenTelemetryMiddleware`` first on every server: a server span per
inbound message (``tools/call NAME``, its parent from ``_meta``'s trace context, SEP-414),
made through OpenTelemetry's ``start_as_current_span`` — the tracer proxy, then three
context managers — and the gateway then set its own attributes on it at the end of a call,
each cleaned again by OpenTelemetry's attribute store. ``McpSpan`` makes that span itself:
the same name, kind, tracer (``mcp-python-sdk``, from the global tracer provider, as the
SDK's), parent, attributes in the same order (the gateway's transport and session, known at
the start, given with the SDK's, so nothing is cleaned twice), and the same error handling
as the SDK's middleware; it is made current directly. What need not delay the reply — the
attributes (where the sampler does not read them), an error's status, the span's end at the
time the call ended — is done through ``telemetry.after_reply``: under ``serve --http``
once the reply is written, elsewhere at once; the span exported is the same.
``_observe.observe`` puts it in the SDK middleware's place; where the gateway traces nothing
(no tracer installed in ``gateway.base.telemetry``) the SDK's own middleware still makes the
span, as before.
"""

from __future__ import annotations

from collections.abc import Callable
from time import time_ns
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult
from opentelemetry import context, trace
from opentelemetry.propagate import extract
from opentelemetry.trace import SpanKind, StatusCode, set_span_in_context
from pydantic import ValidationError

from gateway.base import telemetry

__all__ = ["McpSpan", "SpanFacts", "sdk_attributes"]

SpanFacts = Callable[[ServerRequestContext[Any, Any]], dict[str, Any]]
"""The gateway's attributes of a tool call's or command's span known when the request
starts (transport, session)."""


def sdk_attributes(ctx: ServerRequestContext[Any, Any]) -> tuple[str, dict[str, Any]]:
    """The span's name and attributes, as the MCP SDK's ``OpenTelemetryMiddleware`` gives
    them (mcp 2.3)."""
    name = ctx.params.get("name") if ctx.params else None
    target = name if isinstance(name, str) else None
    attributes: dict[str, Any] = {
        "mcp.method.name": ctx.method,
        "mcp.protocol.version": ctx.protocol_version,
    }
    if ctx.request_id is not None:
        attributes["jsonrpc.request.id"] = str(ctx.request_id)
    if ctx.method == "tools/call":
        attributes["gen_ai.operation.name"] = "execute_tool"
        if target is not None:
            attributes["gen_ai.tool.name"] = target
    elif ctx.method == "prompts/get" and target is not None:
        attributes["gen_ai.prompt.name"] = target
    return f"{ctx.method}{f' {target}' if target else ''}", attributes


class McpSpan:
    """Server middleware in the MCP SDK's ``OpenTelemetryMiddleware``'s place (``sdk``, kept
    for when the gateway traces nothing): each request's span."""

    def __init__(self, sdk: Any, facts: SpanFacts, *, lean: bool = True) -> None:
        self._sdk = sdk
        self._facts = facts
        self.lean = lean
        """False: the SDK's middleware makes every span (as before; for comparison)."""
        self._tracers: tuple[Any, Any, bool] | None = None
        """The provider, its ``mcp-python-sdk`` tracer, and whether its sampler is blind to a
        span's attributes (``_blind``)."""

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if not (self.lean and telemetry.tracing()):
            return await (call_next(ctx) if self._sdk is None else self._sdk(ctx, call_next))
        name, attributes = sdk_attributes(ctx)
        if ctx.method in ("tools/call", "prompts/get"):
            attributes.update(self._facts(ctx))
        tracer, blind = self._tracer()
        span = tracer.start_span(
            name, context=_parent(ctx.meta), kind=SpanKind.SERVER,
            attributes=None if blind else attributes,
            record_exception=False, set_status_on_exception=False,
        )  # fmt: skip
        # What need not delay the reply is left for after it (``telemetry.after_reply``), in
        # this order: the attributes known now, where the sampler does not read them (set
        # first, as if given at the start); the error's attributes and status; the span's
        # end at the time it ends here (then handed to the span processor). A raised
        # exception is recorded at once.
        if blind and span.is_recording():
            telemetry.after_reply(span.set_attributes, attributes)
        token = context.attach(set_span_in_context(span))
        try:
            try:
                result = await call_next(ctx)
            except MCPError as e:
                code = str(e.error.code)
                telemetry.after_reply(_failed, span, code, e.error.message)
                raise
            except ValidationError:
                code = str(INVALID_PARAMS)
                telemetry.after_reply(_failed, span, code, "Invalid request parameters")
                raise
            except Exception as e:
                telemetry.catch_up()  # what the span was given before, first
                span.set_attribute("error.type", type(e).__qualname__)
                span.record_exception(e)
                span.set_status(StatusCode.ERROR, str(e))
                raise
            if ctx.method == "tools/call":
                match result:
                    case CallToolResult(is_error=True) | {"isError": True}:
                        telemetry.after_reply(_failed, span, "tool_error", None, False)
                    case _:
                        pass
            return result
        finally:
            context.detach(token)
            telemetry.after_reply(span.end, time_ns())

    def _tracer(self) -> tuple[Any, bool]:
        provider = trace.get_tracer_provider()
        if self._tracers is None or self._tracers[0] is not provider:
            tracer = provider.get_tracer("mcp-python-sdk")
            self._tracers = (provider, tracer, _blind(getattr(tracer, "sampler", None)))
        return self._tracers[1], self._tracers[2]


_DELEGATES = ("_root", "_remote_parent_sampled", "_remote_parent_not_sampled",
              "_local_parent_sampled", "_local_parent_not_sampled")  # fmt: skip


def _blind(sampler: Any) -> bool:
    """The sampler, and each it delegates to, is one of OpenTelemetry's own that
    ``OTEL_TRACES_SAMPLER`` names — always on or off, trace-id ratio, parent-based — which
    pass a span's attributes through without reading them: a span started without them
    and given them at once is the same span. Anything else (a sampler of a plugin, one not
    found where opentelemetry-sdk 1.45 keeps its delegates) is given them at the start."""
    try:
        from opentelemetry.sdk.trace import sampling
    except ImportError:
        return False
    if type(sampler).__module__ != sampling.__name__:
        return False
    if isinstance(sampler, sampling.ParentBased):
        return all(_blind(getattr(sampler, name, None)) for name in _DELEGATES)
    return isinstance(sampler, sampling.StaticSampler | sampling.TraceIdRatioBased)


def _failed(span: Any, code: str, message: str | None, response: bool = True) -> None:
    """An error span as the MCP SDK's middleware marks it: ``error.type`` (and, for an MCP
    error, ``rpc.response.status_code``), status ERROR."""
    if response:
        span.set_attributes({"error.type": code, "rpc.response.status_code": code})
    else:
        span.set_attribute("error.type", code)
    span.set_status(StatusCode.ERROR, message)


def _parent(meta: Any) -> Any:
    """As the SDK's ``extract_trace_context``: the context of ``_meta``'s valid trace
    (through the global propagator), else None (the current context is the parent)."""
    if not meta:
        return None
    try:
        found = extract(meta)
    except (ValueError, TypeError):
        return None
    if not trace.get_current_span(found).get_span_context().is_valid:
        return None
    return found
