"""The trace context of a request in the nanobot sidecar, which serves many at once: each
request's own (``api.trace_context()``, and OpenTelemetry's current span once the package
uses OpenTelemetry's API), never another's. A real gateway and sidecar; the gateway's spans
recorded in memory. No timing: the first call waits until the second one runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from gateway import open_gateway
from tests.serve._traced import by_name, provider, traced

from ._helpers import Sidecar, install_ready, write_package

pytestmark = pytest.mark.anyio

PROBE = """
import asyncio
from opentelemetry import trace  # the package uses OpenTelemetry's API, as a traced one does

arrived = []
both = asyncio.Event()


class Probe:
    description = "what trace this call runs in, before and after the other call ran"
    parameters = {"type": "object", "properties": {"label": {"type": "string"}}}

    def __init__(self, api, name, wait):
        self.api, self.name, self.wait = api, name, wait

    def seen(self):
        span = trace.get_current_span().get_span_context()
        otel = f"{span.trace_id:032x}-{span.span_id:016x}" if span.is_valid else ""
        return {"api": self.api.trace_context(), "otel": otel}

    async def execute(self, label=""):
        before = self.seen()
        if self.wait:
            arrived.append(label)
            if len(arrived) == 2:
                both.set()
            await both.wait()  # the first call waits here until the second one runs
        return {"before": before, "after": self.seen(), "arrived": list(arrived)}


def register(api):
    api.register_tool(Probe(api, "probe", True))
    api.register_tool(Probe(api, "seen", False))
"""


def probe(tmp_path: Path) -> Path:
    return write_package(tmp_path / "src" / "probe", "test.probe", PROBE, tools=["probe", "seen"])


def traceparent(span: Any) -> str:
    context = span.context
    return f"00-{context.trace_id:032x}-{context.span_id:016x}-{int(context.trace_flags):02x}"


async def test_two_calls_served_at_once_each_continue_their_own_trace(
    workspace: Any, tmp_path: Path
) -> None:
    install_ready(workspace.config.home, probe(tmp_path))
    tracer = provider().get_tracer("test-agent")
    seen: dict[str, Any] = {}
    with traced() as exporter:
        async with open_gateway(workspace.root, config=workspace.config) as gateway:

            async def call(label: str) -> None:
                with tracer.start_as_current_span(f"agent {label}"):
                    result = await gateway.call_tool("probe", {"label": label})
                seen[label] = json.loads(result.content)

            async with anyio.create_task_group() as group:
                group.start_soon(call, "a")
                group.start_soon(call, "b")
        spans = exporter.get_finished_spans()
    requests = [span for span in spans if span.name == "tool probe"]
    assert len(requests) == 2
    agents = by_name(spans)
    for label in ("a", "b"):
        trace_id = agents[f"agent {label}"].context.trace_id
        (request,) = [span for span in requests if span.context.trace_id == trace_id]
        expected = {"api": {"traceparent": traceparent(request)},
                    "otel": f"{trace_id:032x}-{request.context.span_id:016x}"}  # fmt: skip
        # Both calls were in the sidecar at once, and each kept its own parent throughout.
        assert sorted(seen[label]["arrived"]) == ["a", "b"]
        assert seen[label]["before"] == seen[label]["after"] == expected
    assert seen["a"]["before"] != seen["b"]["before"]


async def test_an_untraced_call_has_no_trace_context(workspace: Any, tmp_path: Path) -> None:
    install_ready(workspace.config.home, probe(tmp_path))
    async with open_gateway(workspace.root, config=workspace.config) as gateway:
        result = json.loads((await gateway.call_tool("seen", {})).content)
    assert result["before"] == {"api": {}, "otel": ""}


def test_only_a_negotiated_well_formed_trace_context_reaches_the_package(tmp_path: Path) -> None:
    parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    sent = {"traceparent": parent, "tracestate": "vendor=1"}
    root = probe(tmp_path)
    offered = {"version": 1, "features": ["register.diagnostics", "trace.context"]}
    with Sidecar(root, data_dir=tmp_path / "data", gateway=offered) as sidecar:
        sidecar.register()

        def seen(rid: str, gateway: Any) -> Any:
            message = {"type": "tool", "id": rid, "name": "seen", "arguments": {}}
            return json.loads(sidecar.request({**message, "gateway": gateway})["content"])

        assert seen("1", sent)["before"]["api"] == sent
        assert (
            seen("2", sent)["before"]["otel"] == "0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331"
        )
        assert seen("3", {"traceparent": "00-not-hex-01"})["before"] == {"api": {}, "otel": ""}
        assert seen("4", None)["before"]["api"] == {}
    with Sidecar(root, data_dir=tmp_path / "data") as plain:  # trace.context not offered
        plain.register()
        reply = plain.request({"type": "tool", "id": "1", "name": "seen", "arguments": {},
                               "gateway": sent})  # fmt: skip
        assert json.loads(reply["content"])["before"] == {"api": {}, "otel": ""}
