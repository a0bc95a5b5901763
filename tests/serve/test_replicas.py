"""Replicas without affinity (docs/deploy.md): two ``gateway serve --mcp --http`` processes
on one home, and a client of MCP 2026-07-28 — stateless: every request carries its
protocol version and capabilities, no ``Mcp-Session-Id`` — sending each request to the
other replica in turn, as a load balancer without affinity would. Any replica answers any
request. A handshake-era session lives in the replica that opened it: the other answers
404, which is why those clients need affinity."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from gateway.sandbox import package_dirs
from tests.serve._helpers import create_token, install_ready, reap
from tests.serve.test_http import _env, _package, _start

MODERN = "2026-07-28"


@pytest.fixture(scope="module")
def replicas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[list[str], str, Path]]:
    base = tmp_path_factory.mktemp("replicas")
    env, home = _env(base), base / "home"
    (base / "workspace").mkdir()
    install_ready(home, _package(base / "alpha", "alpha", package_dirs(home, "alpha")[0] / "c"))
    token = create_token(env, "lb")
    started = [_start(env, base / "workspace", base / f"stderr-{n}.log") for n in range(2)]
    try:
        yield [url for _, url in started], token, home
    finally:
        for process, _ in started:
            process.send_signal(signal.SIGTERM)
        for process, _ in started:
            assert reap(process, 30) == 0


def stateless(url: str, token: str, request_id: int, method: str,
              params: dict[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    """One 2026-07-28 request: self-contained, no session."""
    params = dict(params or {})
    params["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "stateless", "version": "1"},
    }
    headers = {"Authorization": f"Bearer {token}", "MCP-Protocol-Version": MODERN,
               "Mcp-Method": method, "Accept": "application/json, text/event-stream"}  # fmt: skip
    if "name" in params:
        headers["Mcp-Name"] = params["name"]
    body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    response = httpx2.post(url, headers=headers, json=body, timeout=60)
    assert response.status_code == 200, response.text
    assert "mcp-session-id" not in response.headers
    if response.headers["content-type"].startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        return next(r for r in map(json.loads, filter(None, data)) if r.get("id") == request_id)
    found: dict[str, Any] = response.json()
    return found


def test_each_request_of_a_stateless_client_is_answered_by_whichever_replica_gets_it(
    replicas: tuple[list[str], str, Path],
) -> None:
    urls, token, home = replicas
    steps = [("server/discover", None), ("tools/list", None),
             ("tools/call", {"name": "alpha_echo", "arguments": {"n": 1}}),
             ("tools/call", {"name": "alpha_echo", "arguments": {"n": 2}}),
             ("prompts/list", None), ("tools/list", None)]  # fmt: skip
    answers = [
        stateless(urls[n % 2], token, n + 1, method, params)
        for n, (method, params) in enumerate(steps)
    ]
    assert all("result" in answer for answer in answers), answers
    assert MODERN in answers[0]["result"]["supportedVersions"]
    assert {tool["name"] for tool in answers[1]["result"]["tools"]} == {"alpha_echo", "alpha_ask"}
    assert answers[1]["result"] == answers[5]["result"]  # both replicas list the same
    texts = [answer["result"]["content"][0]["text"] for answer in answers[2:4]]
    assert texts == ['alpha {"n": 1}', 'alpha {"n": 2}']
    # Each replica ran one of the two calls, and wrote it in its audit trail.
    audited = [
        json.loads(line) for line in (home / "logs" / "audit.jsonl").read_text().splitlines()
    ]
    assert [(a["tool"], a["outcome"], a["session"], a["protocol"]) for a in audited[-2:]] == [
        ("alpha_echo", "ok", None, MODERN)
    ] * 2


def test_a_handshake_session_is_known_only_to_the_replica_that_opened_it(
    replicas: tuple[list[str], str, Path],
) -> None:
    urls, token, _ = replicas
    headers = {"Authorization": f"Bearer {token}", "MCP-Protocol-Version": "2025-06-18",
               "Accept": "application/json, text/event-stream"}  # fmt: skip
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "handshake", "version": "1"}}}  # fmt: skip
    opened = httpx2.post(urls[0], headers=headers, json=hello, timeout=60)
    session = opened.headers["mcp-session-id"]
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    elsewhere = httpx2.post(urls[1], headers={**headers, "Mcp-Session-Id": session},
                            json=listing, timeout=60)  # fmt: skip
    assert elsewhere.status_code == 404  # MCP's signal to start a new session
