"""Where the gateway's spans and metrics go: nowhere, until a server installs a backend.

Every floor records through this module: a span around each tool call, command, hook and
package start (``span``), a count and a duration for each (``count_tool_call``, …), and the
W3C trace context of the current span for a request to a package (``carrier``). It imports
the standard library only. With nothing installed — the CLI, an embedding that does not
ask, a server without ``OTEL_*`` and without ``/metrics`` — a span is one global read and a
shared no-op context manager, and a count is one global read: OpenTelemetry is never
imported. ``gateway serve`` installs an OpenTelemetry tracer (``gateway.serve``'s
``configure_telemetry``) and metrics sinks (Prometheus, OpenTelemetry) when configured.

``AFTER_REPLY`` holds, for one request a server answers, what need not delay its reply: a
span's end, its attributes known at the end, a call's counts (``after_reply``). The server
runs that work once the reply is written (``AfterReply.run``); where no server set one (the
Python API, stdio), the work is done at once.

``CALL_TRAIL`` carries, for one tool call, what the gateway decided on the way (the owning
package, permission, hooks, policy): a server sets a fresh ``CallTrail`` before it calls,
the tool pipeline fills it, and the server writes its audit line from it.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from contextvars import Context, ContextVar, copy_context
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

__all__ = [
    "AFTER_REPLY",
    "CALL_TRAIL",
    "ECOSYSTEM",
    "ERROR_TYPE",
    "HOOK_EVENT",
    "MCP_METHOD",
    "MCP_SESSION",
    "NO_SPAN",
    "OPERATION",
    "OUTCOMES",
    "PACKAGE",
    "PROMPT_NAME",
    "RUNTIME_ERROR",
    "TOOL_NAME",
    "AfterReply",
    "AttributeValue",
    "CallTrail",
    "MetricsSink",
    "SpanHandle",
    "SpanKind",
    "Tracer",
    "after_reply",
    "carrier",
    "catch_up",
    "checked_trace",
    "count_hook_call",
    "count_package_start",
    "count_tool_call",
    "counting",
    "install",
    "installed",
    "span",
    "tracing",
]

# Attribute names: OpenTelemetry's semantic conventions for MCP and GenAI tool execution
# (semantic-conventions-genai, docs/gen-ai/mcp.md), and the gateway's own, namespaced.
MCP_METHOD = "mcp.method.name"
MCP_SESSION = "mcp.session.id"
TOOL_NAME = "gen_ai.tool.name"
PROMPT_NAME = "gen_ai.prompt.name"
OPERATION = "gen_ai.operation.name"
ERROR_TYPE = "error.type"
PACKAGE = "extension_gateway.package"
"""The package that owns the tool, command or hook (its id; a discovered extension's name)."""
ECOSYSTEM = "extension_gateway.ecosystem"
"""The ecosystem of that package: pi, openclaw, nu, nanobot, nimlet, agent-plugins, …"""
HOOK_EVENT = "extension_gateway.hook.event"
RUNTIME_ERROR = "extension_gateway.runtime.error"
"""On a served call's span: why the request to the package's runtime failed (``timeout``,
``cancelled``, the error's class), the request having no span of its own there."""

OUTCOMES = (
    "ok",  # the tool ran and its result is not an error
    "error",  # the tool ran (or failed to answer) and its result is an error
    "blocked",  # a tool_call hook blocked it
    "denied",  # nimlet's permission prompt was answered no
    "policy_denied",  # an adopted policy rule denied it
    "unavailable",  # plan mode: not a read/user tool
    "invalid",  # arguments nested too deep to look at
    "cancelled",  # the caller went away, or the server is stopping
    "failed",  # the gateway raised (an unknown tool, an internal error)
    "refused",  # serve --http: outside the token's scope
    "limited",  # serve --http: the token's --max-calls or --rate
)
"""Every outcome a tool call is counted and logged under (a fixed set: a label, never text
a client or a package chose)."""

AttributeValue = str | bool | int | float
SpanKind = Literal["internal", "client", "server"]


class SpanHandle(Protocol):
    def set(self, key: str, value: AttributeValue) -> None: ...

    def error(self, error_type: str, message: str = "") -> None:
        """The operation failed: ``error.type`` and the span's status."""
        ...


class Tracer(Protocol):
    def span(
        self, name: str, kind: SpanKind, attributes: Mapping[str, AttributeValue]
    ) -> AbstractContextManager[SpanHandle]:
        """A span, current while the block runs (a child of the current one)."""
        ...

    def carrier(self) -> dict[str, str]:
        """The current span's W3C trace context (``traceparent``, ``tracestate``), or {}."""
        ...


class MetricsSink(Protocol):
    def tool_call(
        self, tool: str, package: str, ecosystem: str, outcome: str, seconds: float
    ) -> None: ...

    def hook_call(self, event: str, package: str, outcome: str, seconds: float) -> None: ...

    def package_start(
        self, package: str, ecosystem: str, restart: bool, ok: bool, seconds: float
    ) -> None: ...


class _NullSpan:
    __slots__ = ()

    def set(self, key: str, value: AttributeValue) -> None:
        pass

    def error(self, error_type: str, message: str = "") -> None:
        pass

    def __enter__(self) -> _NullSpan:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


_NULL = _NullSpan()
NO_SPAN: AbstractContextManager[SpanHandle] = _NULL
"""A span that records nothing (where the caller's span already says it all)."""
_NO_ATTRIBUTES: Mapping[str, AttributeValue] = {}


@dataclass(slots=True)
class _Installed:
    tracer: Tracer | None = None
    sinks: tuple[MetricsSink, ...] = ()


_now = _Installed()


def install(tracer: Tracer | None = None, sinks: tuple[MetricsSink, ...] = ()) -> None:
    """Spans go to ``tracer`` and counts to every sink from now on (None, (): nowhere)."""
    global _now
    _now = _Installed(tracer, tuple(sinks))


def installed() -> tuple[Tracer | None, tuple[MetricsSink, ...]]:
    return _now.tracer, _now.sinks


def tracing() -> bool:
    """Spans are recorded (a caller may skip building what only a span would show)."""
    return _now.tracer is not None


def counting() -> bool:
    """Counts go somewhere (a metrics sink is installed)."""
    return bool(_now.sinks)


def span(
    name: str,
    kind: SpanKind = "internal",
    attributes: Mapping[str, AttributeValue] = _NO_ATTRIBUTES,
) -> AbstractContextManager[SpanHandle]:
    tracer = _now.tracer
    if tracer is None:
        return _NULL
    return tracer.span(name, kind, attributes)


def carrier() -> dict[str, str]:
    """The current span's ``traceparent`` (and ``tracestate``) to pass on; {} untraced."""
    tracer = _now.tracer
    return {} if tracer is None else tracer.carrier()


_TRACEPARENT = re.compile(r"[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}")
_TRACESTATE = re.compile(r"[\x20-\x7e]{1,512}")


def checked_trace(value: object) -> dict[str, str]:
    """A W3C trace context another process sent (``{traceparent, tracestate?}``: a
    runtime's ``trace.context``), kept only in its W3C shape — a ``traceparent`` of hex
    fields, a ``tracestate`` of at most 512 printable characters — so that nothing else
    a process wrote reaches another program; {} when absent or malformed."""
    if not isinstance(value, Mapping):
        return {}
    parent, state = value.get("traceparent"), value.get("tracestate")
    if not isinstance(parent, str) or not _TRACEPARENT.fullmatch(parent):
        return {}
    found = {"traceparent": parent}
    if isinstance(state, str) and _TRACESTATE.fullmatch(state):
        found["tracestate"] = state
    return found


class AfterReply:
    """What one request's span and counts still need once its reply is written: each piece
    of work run (``run``) in the context it was handed over in, in the order handed over;
    handed over after ``close``, it is done at once."""

    __slots__ = ("_closed", "_work")

    def __init__(self) -> None:
        self._work: list[tuple[Context, Callable[..., object], tuple[object, ...]]] = []
        self._closed = False

    def add(self, work: Callable[..., object], *args: object) -> None:
        if self._closed:
            work(*args)
        else:
            self._work.append((copy_context(), work, args))

    @property
    def pending(self) -> bool:
        return bool(self._work)

    def run(self) -> None:
        """Do what was handed over so far (one failure stops none of the rest)."""
        work, self._work = self._work, []
        for context, done, args in work:
            try:
                context.run(done, *args)
            except Exception as error:  # an exporter's or sink's own failure
                print(f"gateway: telemetry after a reply failed: {error!r}", file=sys.stderr)

    def close(self) -> None:
        """The request is over: do what is left, and from now on do all at once."""
        self._closed = True
        self.run()


AFTER_REPLY: ContextVar[AfterReply | None] = ContextVar("after_reply", default=None)
"""The work left for after the reply of the request this task answers, where a server keeps
it (``serve --mcp --http``)."""


def after_reply(work: Callable[..., object], *args: object) -> None:
    """``work(*args)`` once the reply of the request this task answers is written (in this
    context), or now where no server keeps such work."""
    later = AFTER_REPLY.get()
    if later is None:
        work(*args)
    else:
        later.add(work, *args)


def catch_up() -> None:
    """Do now what this request left for after its reply (an error's span records its
    exception as it is raised, after what was set on the span before)."""
    later = AFTER_REPLY.get()
    if later is not None:
        later.run()


def _tool_call(
    sinks: tuple[MetricsSink, ...], tool: str, package: str, ecosystem: str, outcome: str,
    seconds: float,
) -> None:  # fmt: skip
    for sink in sinks:
        sink.tool_call(tool, package, ecosystem, outcome, seconds)


def _hook_call(
    sinks: tuple[MetricsSink, ...], event: str, package: str, outcome: str, seconds: float
) -> None:
    for sink in sinks:
        sink.hook_call(event, package, outcome, seconds)


def count_tool_call(tool: str, package: str, ecosystem: str, outcome: str, seconds: float) -> None:
    """Counted once the reply is written (``after_reply``), with the duration measured now."""
    sinks = _now.sinks
    if sinks:
        after_reply(_tool_call, sinks, tool, package, ecosystem, outcome, seconds)


def count_hook_call(event: str, package: str, outcome: str, seconds: float) -> None:
    sinks = _now.sinks
    if sinks:
        after_reply(_hook_call, sinks, event, package, outcome, seconds)


def count_package_start(
    package: str, ecosystem: str, restart: bool, ok: bool, seconds: float
) -> None:
    for sink in _now.sinks:
        sink.package_start(package, ecosystem, restart, ok, seconds)


@dataclass(slots=True)
class CallTrail:
    """What the gateway decided about one tool call (for the audit log); never its
    arguments or result."""

    package: str = ""
    ecosystem: str = ""
    outcome: str = "failed"
    """One of ``OUTCOMES``."""
    hooks: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per event (``tool_call``, ``tool_result``), when a hook was asked: ``asked``,
    ``failed``, and ``blocked`` / ``rewrote`` (tool_call) or ``replaced`` (tool_result)."""
    policy: dict[str, Any] | None = None
    """The adopted policy's decision when a rule decided: ``{decision, rule, reason}``."""
    spanned: bool = False
    """The caller's span is this call's (an MCP server's ``tools/call NAME``, which is an
    ``execute_tool`` span by the conventions): the gateway adds no span of its own for it —
    neither ``execute_tool NAME`` nor ``tool NAME`` around the request to the runtime, whose
    trace context is then the caller's span's."""
    runtime_error: str = ""
    """Where ``spanned``: why the request to the runtime failed (``timeout``, ``cancelled``
    or the error's class), for the caller's span to carry."""


CALL_TRAIL: ContextVar[CallTrail | None] = ContextVar("call_trail", default=None)
"""The trail of the tool call running in this task, when its caller wants one."""
