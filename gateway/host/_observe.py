"""What the host records about its work (``gateway.base.telemetry``): a span, a count and a
duration for each tool call, command, hook and package start, labelled with the package
that owns it and that package's ecosystem. Nothing is recorded unless a backend is
installed; the trail of a tool call is filled for whoever asked for one (the audit log)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any

import anyio

from gateway.base import telemetry
from gateway.base.telemetry import CALL_TRAIL, CallTrail
from gateway.host._discovered_ids import discovered_owner
from gateway.host._state import GatewayState
from gateway.model import BUILTIN_OWNER, ToolEntry, ToolResult
from gateway.packages import PackageStatus
from gateway.wire import ExtensionError, ExtensionProcess, ExtensionTimeout
from gateway.wire.features import TRACE_CONTEXT

__all__ = [
    "ecosystem_of",
    "finish",
    "observe_start",
    "observe_tool_call",
    "package_of",
    "wire_request",
]

_OWN_SUFFIXES = (":tools", ":commands")


def package_of(owner: str) -> str:
    """The package an owner stands for: ``name#2`` (a second extension of one name) and
    ``ID:tools`` / ``ID:commands`` (what the gateway runs itself for ID) are ID's."""
    owner = owner.partition("#")[0]
    for suffix in _OWN_SUFFIXES:
        if owner.endswith(suffix):
            return owner[: -len(suffix)]
    return owner


def ecosystem_of(packages: Iterable[PackageStatus], owner: str) -> str:
    """The ecosystem of the package ``owner`` stands for (``nimlet`` for an extension found
    through ``extension.json``, ``gateway`` for the embedding agent's own tools)."""
    package = package_of(owner)
    for status in packages:
        if status.id == package:
            return status.entry.ecosystem
    if discovered_owner(package) == package:  # ``pi:NAME``, ``openclaw:ID``
        return package.partition(":")[0]
    return "gateway" if package == BUILTIN_OWNER else "nimlet"


def _outcome(result: ToolResult) -> str:
    code = result.error_code
    if code == "policy_denied":
        return "policy_denied"
    if code == "tool_unavailable":
        return "unavailable"
    if result.blocked:
        return "blocked"
    return "error" if result.is_error else "ok"


@contextmanager
def observe_tool_call(state: GatewayState, tool: ToolEntry) -> Iterator[CallTrail]:
    """Around one tool call: its span (``execute_tool NAME``), its count and duration, and
    its trail (the caller's, else one of its own) — the pipeline sets ``trail.outcome``
    where it decides (``denied``, ``invalid``), else it follows from the result
    (``finish``)."""
    trail = CALL_TRAIL.get() or CallTrail()
    trail.package = package = package_of(tool.owner)
    trail.ecosystem = ecosystem = ecosystem_of(state.packages, tool.owner)
    trail.outcome = "failed"
    began = time.perf_counter()
    spanned = trail.spanned or not telemetry.tracing()
    with (
        telemetry.NO_SPAN
        if spanned
        else telemetry.span(
            f"execute_tool {tool.name}",
            "internal",
            {
                telemetry.OPERATION: "execute_tool",
                telemetry.TOOL_NAME: tool.name,
                telemetry.PACKAGE: package,
                telemetry.ECOSYSTEM: ecosystem,
            },
        ) as span
    ):
        try:
            yield trail
        except anyio.get_cancelled_exc_class():
            trail.outcome = "cancelled"
            raise
        finally:
            telemetry.count_tool_call(
                tool.name, package, ecosystem, trail.outcome, time.perf_counter() - began
            )
            if trail.outcome != "ok":
                span.error(trail.outcome if trail.outcome != "error" else "tool_error")


def finish(trail: CallTrail, result: ToolResult) -> ToolResult:
    """The outcome of a call that returned ``result`` (unless the pipeline said already)."""
    if trail.outcome == "failed":
        trail.outcome = _outcome(result)
    return result


@contextmanager
def observe_start(state: GatewayState, name: str, restart: bool = False) -> Iterator[list[bool]]:
    """Around one package start: its span (``start NAME``), count and duration. The caller
    appends True to the yielded list once the package runs."""
    package = package_of(name)
    ecosystem = ecosystem_of(state.packages, name)
    ok: list[bool] = []
    began = time.perf_counter()
    with telemetry.span(
        f"start {package}",
        "internal",
        {telemetry.PACKAGE: package, telemetry.ECOSYSTEM: ecosystem,
         "extension_gateway.restart": restart},
    ) as span:  # fmt: skip
        try:
            yield ok
        finally:
            telemetry.count_package_start(
                package, ecosystem, restart, bool(ok), time.perf_counter() - began
            )
            if not ok:
                span.error("start_failed")


_UNTRACED: AbstractContextManager[dict[str, Any] | None] = nullcontext(None)
_NAME_ATTRIBUTE = {"tool": telemetry.TOOL_NAME, "command": telemetry.PROMPT_NAME,
                   "event": telemetry.HOOK_EVENT}  # fmt: skip


def wire_request(
    state: GatewayState, process: ExtensionProcess, owner: str, kind: str, name: str
) -> AbstractContextManager[dict[str, Any] | None]:
    """Around one request to a runtime (``tool``, ``command``, or ``event``: one hook): a
    client span (``tool NAME``, …); an event is counted and timed as a hook call. Yields
    the ``gateway`` extra that passes the span's trace context on (``trace.context``), or
    None."""
    if not telemetry.tracing() and (kind != "event" or not telemetry.counting()):
        return _UNTRACED
    if kind == "tool" and (trail := CALL_TRAIL.get()) is not None and trail.spanned:
        return _InCallersSpan(trail, TRACE_CONTEXT in process.plan.features)
    return _wire_request(state, process, owner, kind, name)


class _InCallersSpan:
    """A tool's request to its runtime inside a caller's span that is the call's (an MCP
    server's ``tools/call NAME``): no span of its own — one span per served call, which the
    MCP conventions allow (the server span is the ``execute_tool`` span) and which halves
    what OpenTelemetry's SDK costs a traced call. The runtime gets the caller's span's
    trace context; a failure of the request is left on the trail for that span."""

    __slots__ = ("_trace", "_trail")

    def __init__(self, trail: CallTrail, trace: bool) -> None:
        self._trail = trail
        self._trace = trace

    def __enter__(self) -> dict[str, Any] | None:
        return (telemetry.carrier() or None) if self._trace else None

    def __exit__(self, kind: type[BaseException] | None, error: object, *rest: object) -> None:
        if kind is None:
            return
        if issubclass(kind, ExtensionTimeout):
            self._trail.runtime_error = "timeout"
        elif issubclass(kind, ExtensionError):
            self._trail.runtime_error = kind.__name__
        elif issubclass(kind, anyio.get_cancelled_exc_class()):
            self._trail.runtime_error = "cancelled"


@contextmanager
def _wire_request(
    state: GatewayState, process: ExtensionProcess, owner: str, kind: str, name: str
) -> Iterator[dict[str, Any] | None]:
    package = package_of(owner)
    began = time.perf_counter()
    outcome = "error"
    with telemetry.span(
        f"{kind} {name}",
        "client",
        {_NAME_ATTRIBUTE[kind]: name, telemetry.PACKAGE: package,
         telemetry.ECOSYSTEM: ecosystem_of(state.packages, owner)},
    ) as span:  # fmt: skip
        trace = telemetry.carrier() if TRACE_CONTEXT in process.plan.features else None
        try:
            yield trace or None
            outcome = "ok"
        except ExtensionTimeout:
            span.error("timeout")
            raise
        except ExtensionError as error:
            span.error(type(error).__name__, str(error))
            raise
        except anyio.get_cancelled_exc_class():
            outcome = "cancelled"
            span.error("cancelled")
            raise
        finally:
            if kind == "event":
                telemetry.count_hook_call(name, package, outcome, time.perf_counter() - began)
