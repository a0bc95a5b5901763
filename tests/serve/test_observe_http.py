"""``gateway serve --mcp --http`` seen from outside: ``/metrics`` scraped and parsed with the
Prometheus parser after a few calls, on a listener of its own and behind a metrics token;
and a trace that starts in a client's ``_meta.traceparent`` continuing through the gateway
into a Pi package's tool call, exported over OTLP/HTTP to a real receiver on loopback, the
call's span covering the call though it is ended after the reply is written."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
from prometheus_client.parser import text_string_to_metric_families

from gateway.sandbox import package_dirs
from gateway.testing import otlp_receiver, span_attributes
from tests.serve._helpers import create_token, install_ready, need_sidecar, terminate
from tests.serve.test_http import _env, _package, _start

HERE = Path(__file__).resolve().parent
PI_TRACE = HERE / "fixtures" / "pi-trace"
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = "00f067aa0ba902b7"


@dataclass
class Home:
    base: Path
    env: dict[str, str]
    tokens: dict[str, str]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    need_sidecar()
    base = tmp_path_factory.mktemp("observe")
    env, folder = _env(base), base / "home"
    (base / "workspace").mkdir()
    install_ready(folder, _package(base / "alpha", "alpha", package_dirs(folder, "alpha")[0] / "c"))
    install_ready(folder, PI_TRACE)
    tokens = {}
    for name, extra in (("all", []), ("beta-only", ["--package", "pi-trace"]),
                        ("prom", ["--metrics"])):  # fmt: skip
        tokens[name] = create_token(env, name, *extra)
    return Home(base, env, tokens)


@pytest.fixture
def started(home: Home, tmp_path: Path) -> Iterator[Any]:
    processes: list[subprocess.Popen[bytes]] = []

    def start(*extra: str, env: dict[str, str] | None = None) -> tuple[str, Path]:
        errors = tmp_path / f"stderr-{len(processes)}.log"
        process, url = _start(env or home.env, home.base / "workspace", errors, *extra)
        processes.append(process)
        return url, errors

    def stop() -> None:
        """SIGTERM to the last server, and its exit (which flushes its telemetry)."""
        assert terminate(processes[-1], 30) == 0

    start.stop = stop  # type: ignore[attr-defined]

    yield start
    for process in processes:
        if process.poll() is None:
            terminate(process)


def rpc(url: str, token: str, method: str, params: dict[str, Any], session: str | None,
        request_id: int = 1) -> tuple[httpx2.Response, dict[str, Any] | None]:  # fmt: skip
    """One JSON-RPC request as a plain HTTP client sends it (no SDK: nothing injects a trace
    context but what the test puts in ``_meta``)."""
    headers = {"Authorization": f"Bearer {token}", "MCP-Protocol-Version": "2025-06-18",
               "Accept": "application/json, text/event-stream"}  # fmt: skip
    if session:
        headers["Mcp-Session-Id"] = session
    body: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if not method.startswith("notifications/"):
        body["id"] = request_id
    response = httpx2.post(url, headers=headers, json=body, timeout=60)
    assert response.status_code in (200, 202), response.text
    if "id" not in body:
        return response, None
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        replies = [json.loads(d) for d in data if d]
        return response, next(r for r in replies if r.get("id") == body["id"])
    return response, response.json()


def open_session(url: str, token: str) -> str:
    hello = {"protocolVersion": "2025-06-18", "capabilities": {},
             "clientInfo": {"name": "plain", "version": "1"}}  # fmt: skip
    response, _ = rpc(url, token, "initialize", hello, None)
    session = response.headers["mcp-session-id"]
    rpc(url, token, "notifications/initialized", {}, session)
    return session


def call(url: str, token: str, session: str, tool: str, meta: dict[str, str] | None = None,
         request_id: int = 2) -> dict[str, Any]:  # fmt: skip
    params: dict[str, Any] = {"name": tool, "arguments": {}}
    if meta:
        params["_meta"] = meta
    _, reply = rpc(url, token, "tools/call", params, session, request_id)
    assert reply is not None
    return reply


def metrics_address(errors: Path) -> str:
    for line in errors.read_text().splitlines():
        if line.startswith("gateway serve: metrics on "):
            return line.removeprefix("gateway serve: metrics on ").strip()
    raise AssertionError(errors.read_text())


def samples(text: str, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    """Every sample named ``name`` (``…_total``, ``…_count``, a gauge), by its labels."""
    return {
        tuple(sorted(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == name
    }


def test_metrics_on_their_own_listener_parse_after_a_few_calls(home: Home, started) -> None:
    url, errors = started("--metrics", "127.0.0.1:0")
    session = open_session(url, home.tokens["all"])
    for n in range(3):
        assert "error" not in call(url, home.tokens["all"], session, "alpha_echo", request_id=n)
    narrow = open_session(url, home.tokens["beta-only"])
    refused = call(url, home.tokens["beta-only"], narrow, "alpha_echo")
    assert "Unknown tool" in refused["error"]["message"]
    scraped = httpx2.get(metrics_address(errors), timeout=30)
    assert scraped.status_code == 200
    assert scraped.headers["content-type"].startswith("text/plain")
    calls = samples(scraped.text, "gateway_tool_calls_total")
    ok = (("ecosystem", "nimlet"), ("outcome", "ok"), ("package", "alpha"), ("tool", "alpha_echo"))
    assert calls[ok] == 3.0
    # Refused before it reached a tool: counted under no name the client chose.
    assert calls[(("ecosystem", ""), ("outcome", "refused"), ("package", ""), ("tool", ""))] == 1.0
    durations = samples(scraped.text, "gateway_tool_call_duration_seconds_count")
    assert durations[(("package", "alpha"), ("tool", "alpha_echo"))] == 3.0
    assert samples(scraped.text, "gateway_mcp_sessions")[(("transport", "http"),)] == 2.0
    assert samples(scraped.text, "gateway_tokens_in_use")[()] == 2.0
    starts = samples(scraped.text, "gateway_package_starts_total")
    assert starts[(("ecosystem", "nimlet"), ("kind", "start"), ("outcome", "ok"),
                   ("package", "alpha"))] == 1.0  # fmt: skip
    # The listener serves nothing else; the MCP address has no /metrics.
    assert httpx2.get(metrics_address(errors).replace("/metrics", "/mcp")).status_code == 404
    assert httpx2.get(url.replace("/mcp", "/metrics")).status_code == 404


def test_metrics_behind_a_metrics_token_open_nothing_else(home: Home, started) -> None:
    url, _ = started("--metrics", "token")
    where = url.replace("/mcp", "/metrics")

    def scrape(token: str | None) -> httpx2.Response:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx2.get(where, headers=headers, timeout=30)

    assert scrape(None).status_code == 401
    assert scrape(home.tokens["all"]).status_code == 401  # an MCP token is not a metrics token
    allowed = scrape(home.tokens["prom"])
    assert allowed.status_code == 200
    assert "gateway_info" in {f.name for f in text_string_to_metric_families(allowed.text)}
    refused = httpx2.post(url, headers={"Authorization": f"Bearer {home.tokens['prom']}"},
                          json={"jsonrpc": "2.0", "id": 1, "method": "ping"})  # fmt: skip
    assert refused.status_code == 401


def test_a_clients_trace_continues_through_the_gateway_into_a_pi_tool(home: Home, started) -> None:
    with otlp_receiver() as received:
        env = {**home.env, "OTEL_EXPORTER_OTLP_ENDPOINT": received.url,
               "OTEL_SERVICE_NAME": "gateway-under-test"}  # fmt: skip
        url, errors = started(env=env)
        session = open_session(url, home.tokens["all"])
        asked = time.time_ns()
        reply = call(url, home.tokens["all"], session, "trace_env",
                     {"traceparent": f"00-{TRACE}-{PARENT}-01"})  # fmt: skip
        answered = time.time_ns()
        passed_on = reply["result"]["content"][0]["text"]
        started.stop()  # everything pending is flushed at exit
        assert "Traceback" not in errors.read_text()
    spans = {span.name: span for span in received.spans() if span.trace_id.hex() == TRACE}
    server = spans["tools/call trace_env"]
    assert server.parent_span_id.hex() == PARENT
    # The span ends after the reply is written (its end, attributes and export left for
    # then), at the time the call ended: within the call as the client saw it.
    assert asked <= server.start_time_unix_nano <= server.end_time_unix_nano <= answered
    # One span for the served call: no execute_tool span, no span of the request to Pi
    # (the package's start, when the call starts it, is its own).
    assert set(spans) - {"start pi-trace"} == {"tools/call trace_env"}
    assert {"mcp.method.name": "tools/call", "gen_ai.tool.name": "trace_env",
            "extension_gateway.package": "pi-trace", "extension_gateway.ecosystem": "pi",
            "network.transport": "tcp", "mcp.session.id": session}.items() <= (
        span_attributes(server).items())  # fmt: skip
    assert span_attributes(server)["gen_ai.operation.name"] == "execute_tool"
    # Into the package: the Pi tool's pi.exec command got the call's one span as its parent.
    assert passed_on == f"00-{TRACE}-{server.span_id.hex()}-01"
    assert "start pi-trace" in {span.name for span in received.spans()}
    assert received.service_names() == {"gateway-under-test"}
    assert {"gateway.tool.calls", "gateway.tool.call.duration"} <= received.metric_names()
    audit = (home.base / "home" / "logs" / "audit.jsonl").read_text().splitlines()
    assert json.loads(audit[-1])["trace_id"] == TRACE
