"""Spans and metrics of ``gateway serve --mcp``, in process: an MCP client (the SDK's own)
over memory streams, the gateway's spans and the MCP SDK's recorded by OpenTelemetry's
in-memory span exporter, the counts by the Prometheus sink and read back with the
Prometheus parser. A nimlet extension with two tools and a ``tool_call`` hook that blocks
one of them."""

from __future__ import annotations

import json
import sys
import textwrap
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.shared.exceptions import MCPError
from mcp.shared.memory import create_client_server_memory_streams
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind, StatusCode
from prometheus_client.parser import text_string_to_metric_families

from gateway import GatewayConfig
from gateway.base.telemetry import AFTER_REPLY, AfterReply
from gateway.serve import ServeOptions, open_served
from gateway.serve._gauges import Gauges
from gateway.serve._mcp import McpBridge
from gateway.serve._mcp_span import McpSpan
from gateway.serve._observe import observe
from gateway.serve._prometheus import PrometheusMetrics
from tests.serve._traced import attributes, by_name, parent_of, provider, traced

pytestmark = pytest.mark.anyio

DESK = textwrap.dedent(
    """\
    import json, sys

    def send(message):
        sys.stdout.write(json.dumps(message) + "\\n")
        sys.stdout.flush()

    schema = {"type": "object"}
    send({"type": "register", "commands": [{"name": "hello", "description": "hi"}],
          "events": ["tool_call"],
          "tools": [{"name": "echo", "description": "echo", "input_schema": schema},
                    {"name": "danger", "description": "blocked", "input_schema": schema},
                    {"name": "vanish", "description": "exits", "input_schema": schema}]})
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "tool" and message["name"] == "vanish":  # dies before it answers
            sys.exit(3)
        if kind == "tool":  # says which fields the request had
            send({"type": "response", "id": message["id"], "content": json.dumps(sorted(message))})
        elif kind == "command":
            send({"type": "response", "id": message["id"], "message": "hello"})
        elif kind == "event":
            blocked = message["payload"].get("tool") == "danger"
            send({"type": "response", "id": message["id"],
                  **({"allow": False, "reason": "not this one"} if blocked else {})})
        elif kind == "shutdown":
            break
    """
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def depth(monkeypatch: pytest.MonkeyPatch) -> None:
    """``open_served`` counts its nesting in this process's environment: put it back after
    each test, or a later ``serve`` child of this worker would count it."""
    monkeypatch.setenv("GATEWAY_SERVE_DEPTH", "0")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws" / ".nimlet" / "extensions" / "desk"
    folder.mkdir(parents=True)
    (folder / "desk.py").write_text(DESK)
    manifest = {"name": "desk", "command": [sys.executable, str(folder / "desk.py")]}
    (folder / "extension.json").write_text(json.dumps(manifest))
    return tmp_path / "ws"


@asynccontextmanager
async def served(
    workspace: Path, lean: bool = True, later: AfterReply | None = None
) -> AsyncIterator[ClientSession]:
    """``later``: what the requests leave for after their replies is kept there (as
    ``serve --http`` keeps it per request) until the test runs it."""
    given = AFTER_REPLY.set(later)  # the server's tasks, started below, inherit it
    try:
        async with _served(workspace, lean) as session:
            yield session
    finally:
        AFTER_REPLY.reset(given)


@asynccontextmanager
async def _served(workspace: Path, lean: bool) -> AsyncIterator[ClientSession]:
    home = workspace.parent / "home"
    options = ServeOptions(
        workspace=workspace, trust=True, config=GatewayConfig(home=home, user_home=home)
    )
    async with open_served(options) as gateway:
        await gateway.start_session()
        bridge = McpBridge(gateway)
        observe(bridge.server, "pipe")
        for middleware in bridge.server.middleware:
            if isinstance(middleware, McpSpan):
                middleware.lean = lean  # False: the MCP SDK's middleware makes the span
        async with (
            create_client_server_memory_streams() as (client, server),
            anyio.create_task_group() as group,
        ):
            group.start_soon(bridge.run, *server)
            async with ClientSession(*client) as session:
                await session.initialize()
                yield session
            group.cancel_scope.cancel()


async def test_a_trace_started_by_the_client_continues_through_the_gateway_to_the_package(
    workspace: Path,
) -> None:
    tracer = provider().get_tracer("test-agent")
    with traced() as exporter:
        async with served(workspace) as session:
            with tracer.start_as_current_span("agent turn") as turn:
                result = await session.call_tool("echo", {"x": 1})
        spans = exporter.get_finished_spans()
    named = by_name(spans)
    trace_id = turn.get_span_context().trace_id
    server, hook = named["tools/call echo"], named["event tool_call"]
    assert {s.context.trace_id for s in (server, hook)} == {trace_id}
    # client span (the SDK's, injected into _meta) → server span: the call's one span (the
    # execute_tool span of the conventions; the gateway adds none of its own, neither
    # execute_tool nor one around the request to the package) → the hook asked on the way
    assert parent_of(named["MCP send tools/call echo"]) == turn.get_span_context().span_id
    assert parent_of(server) == named["MCP send tools/call echo"].context.span_id
    assert parent_of(hook) == server.context.span_id
    assert not {"execute_tool echo", "tool echo"} & set(named)
    assert (server.kind, hook.kind) == (SpanKind.SERVER, SpanKind.CLIENT)
    assert {"mcp.method.name": "tools/call", "gen_ai.tool.name": "echo",
            "gen_ai.operation.name": "execute_tool", "extension_gateway.package": "desk",
            "extension_gateway.ecosystem": "nimlet", "extension_gateway.outcome": "ok",
            "network.transport": "pipe"}.items() <= attributes(server).items()  # fmt: skip
    assert "extension_gateway.runtime.error" not in attributes(server)
    assert attributes(hook)["extension_gateway.hook.event"] == "tool_call"
    # A plain nimlet extension was offered no trace.context: its request has no gateway key.
    assert json.loads(result.content[0].text) == ["arguments", "id", "name", "type"]


def _seen(span: ReadableSpan) -> tuple[Any, ...]:
    """All of a span but its ids and times: the parent only as remote or local or none."""
    parent = span.parent
    return (span.name, span.kind, span.instrumentation_scope, list((span.attributes or {}).items()),
            span.status.status_code, span.status.description, [e.name for e in span.events],
            None if parent is None else parent.is_remote)  # fmt: skip


async def test_the_gateways_span_of_a_request_is_the_mcp_sdks(workspace: Path) -> None:
    """``McpSpan`` in the MCP SDK middleware's place makes the span that middleware made
    (with the gateway's attributes after): the same requests, each way, the same spans —
    also when what follows each call is left for after its reply (``serve --http``): no
    span is finished while its reply is all the client has, each is once that work runs,
    ended at the time the call ended, as it was."""
    tracer = provider().get_tracer("test-agent")
    found = []
    for lean, later in ((False, None), (True, None), (True, AfterReply())):
        with traced() as exporter:
            async with served(workspace, lean, later) as session:
                with tracer.start_as_current_span("agent turn"):
                    await session.call_tool("echo", {"x": 1})
                await session.call_tool("echo", {})
                await session.call_tool("danger", {})
                with pytest.raises(MCPError):  # the SDK's MCPError path
                    await session.call_tool("nowhere", {})
                await session.get_prompt("hello", {"arguments": ""})
                await session.list_tools()
                await session.call_tool("vanish", {})
                replied = time.time_ns()
                if later is not None:
                    assert not [span for span in exporter.get_finished_spans()
                                if span.kind is SpanKind.SERVER]  # fmt: skip
                    assert later.pending
                    later.close()
            spans = [span for span in exporter.get_finished_spans()
                     if span.name not in ("start desk", "agent turn")]  # fmt: skip
            assert all(span.end_time is not None and span.end_time <= replied for span in spans)
            found.append(sorted(_seen(span) for span in spans))
    assert found[0] == found[1] == found[2]
    assert {"tools/call echo", "tools/call danger", "tools/call nowhere", "tools/list",
            "prompts/get hello", "tools/call vanish"} <= {seen[0] for seen in found[1]}  # fmt: skip


async def test_a_call_a_hook_blocks_is_an_error_span_whose_outcome_is_blocked(
    workspace: Path,
) -> None:
    with traced() as exporter:
        async with served(workspace) as session:
            result = await session.call_tool("danger", {})
        named = by_name(exporter.get_finished_spans())
    assert result.is_error
    call = named["tools/call danger"]
    assert call.status.status_code is StatusCode.ERROR
    assert attributes(call)["error.type"] == "tool_error"  # the conventions' for isError
    assert attributes(call)["extension_gateway.outcome"] == "blocked"  # and why
    assert "tool danger" not in named  # blocked before the request


async def test_a_request_the_runtime_never_answers_is_named_on_the_calls_one_span(
    workspace: Path,
) -> None:
    with traced() as exporter:
        async with served(workspace) as session:
            result = await session.call_tool("vanish", {})
        named = by_name(exporter.get_finished_spans())
    assert result.is_error
    call = named["tools/call vanish"]
    assert call.status.status_code is StatusCode.ERROR
    assert attributes(call)["extension_gateway.outcome"] == "error"
    assert attributes(call)["extension_gateway.runtime.error"] == "ExtensionExited"
    assert "tool vanish" not in named


async def test_without_an_mcp_server_span_a_call_has_an_execute_tool_span(
    workspace: Path,
) -> None:
    home = workspace.parent / "home"
    options = ServeOptions(
        workspace=workspace, trust=True, config=GatewayConfig(home=home, user_home=home)
    )
    with traced() as exporter:
        async with open_served(options) as gateway:
            await gateway.call_tool("echo", {})  # the embedding API: no MCP server around it
        named = by_name(exporter.get_finished_spans())
    call = named["execute_tool echo"]
    assert {"gen_ai.operation.name": "execute_tool", "extension_gateway.package": "desk",
            "extension_gateway.ecosystem": "nimlet"}.items() <= attributes(call).items()  # fmt: skip
    assert parent_of(named["tool echo"]) == call.context.span_id


async def test_a_command_and_the_package_start_have_spans(workspace: Path) -> None:
    with traced() as exporter:
        async with served(workspace) as session:
            await session.get_prompt("hello", {"arguments": ""})
        named = by_name(exporter.get_finished_spans())
    assert attributes(named["command hello"])["gen_ai.prompt.name"] == "hello"
    assert parent_of(named["command hello"]) == named["prompts/get hello"].context.span_id
    start = named["start desk"]
    assert attributes(start)["extension_gateway.package"] == "desk"
    assert start.status.status_code is not StatusCode.ERROR


async def test_counts_and_durations_parse_with_the_prometheus_parser(workspace: Path) -> None:
    metrics = PrometheusMetrics(Gauges())
    with traced(metrics):
        async with served(workspace) as session:
            for _ in range(3):
                await session.call_tool("echo", {})
            await session.call_tool("danger", {})
            with pytest.raises(Exception, match="Unknown tool"):
                await session.call_tool("nothing-here", {})
    families = {f.name: f for f in text_string_to_metric_families(metrics.render().decode())}
    calls = {
        (s.labels["tool"], s.labels["outcome"]): s.value
        for s in families["gateway_tool_calls"].samples
        if s.name == "gateway_tool_calls_total"
    }
    assert calls == {("echo", "ok"): 3.0, ("danger", "blocked"): 1.0, ("", "failed"): 1.0}
    durations = {
        s.labels["tool"]: s.value
        for s in families["gateway_tool_call_duration_seconds"].samples
        if s.name.endswith("_count")
    }
    assert durations == {"echo": 3.0, "danger": 1.0, "": 1.0}
    hooks = {
        (s.labels["event"], s.labels["package"], s.labels["outcome"]): s.value
        for s in families["gateway_hook_calls"].samples
        if s.name == "gateway_hook_calls_total"
    }
    assert hooks == {("tool_call", "desk", "ok"): 4.0}  # the unknown tool asked no hook
    starts = [s for s in families["gateway_package_starts"].samples if s.name.endswith("_total")]
    assert [(s.labels["package"], s.labels["kind"], s.labels["outcome"], s.value)
            for s in starts] == [("desk", "start", "ok", 1.0)]  # fmt: skip


def test_the_trace_passed_on_is_what_the_w3c_propagator_writes() -> None:
    from opentelemetry import context, trace
    from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, TraceState
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    from gateway.serve._otel import OtelTracer

    tracer = OtelTracer(provider())
    state = TraceState([("vendor", "a1"), ("other", "b2")])
    for flags, kept in ((TraceFlags(1), state), (TraceFlags(0), TraceState())):
        parent = SpanContext(0xABC, 0xDEF, is_remote=True, trace_flags=flags, trace_state=kept)
        token = context.attach(trace.set_span_in_context(NonRecordingSpan(parent)))
        try:
            with tracer.span("tool echo", "client", {}):
                written: dict[str, str] = {}
                TraceContextTextMapPropagator().inject(written)
                assert tracer.carrier() == written and written["traceparent"]
            assert tracer.carrier() == {"traceparent": f"00-{0xABC:032x}-{0xDEF:016x}-"
                                        f"{int(flags):02x}", **({"tracestate": "vendor=a1,other=b2"}
                                        if kept else {})}  # fmt: skip
        finally:
            context.detach(token)
    assert tracer.carrier() == {}  # no span: nothing to pass on
