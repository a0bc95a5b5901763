"""``serve --mcp --http``: who a session belongs to and how many one token may hold, and the
DNS-rebinding check on every loopback address — each against a real server process, each
refusal with its control."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from gateway.sandbox import package_dirs
from gateway.serve._http import MAX_SESSIONS_PER_TOKEN, is_loopback, security_for
from tests.serve._helpers import create_token, install_ready, terminate
from tests.serve.test_http import Server, _env, _package, _start

pytestmark = pytest.mark.anyio

HELLO = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "plain", "version": "1"}},
}  # fmt: skip


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def start_server(base: Path, address: str, tokens: tuple[str, ...]) -> tuple[Any, Server]:
    env, home = _env(base), base / "home"
    (base / "workspace").mkdir()
    install_ready(home, _package(base / "alpha", "alpha", package_dirs(home, "alpha")[0] / "c"))
    made = {}
    for name in tokens:
        made[name] = create_token(env, name)
    process, url = _start(env, base / "workspace", base / "stderr.log", address=address)
    return process, Server(home, url, made, env)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for the module, on a loopback address other than 127.0.0.1 (the rebinding
    check's point; sessions are per token, each test's its own)."""
    process, served = start_server(tmp_path_factory.mktemp("sessions"), "127.0.0.2:0",
                                   ("greedy", "other", "t"))  # fmt: skip
    yield served
    terminate(process)


def post(url: str, token: str, body: dict[str, Any], session: str | None = None,
         **headers: str) -> httpx2.Response:  # fmt: skip
    sent = {"Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream", **headers}  # fmt: skip
    if session:
        sent["Mcp-Session-Id"] = session
    return httpx2.post(url, headers=sent, json=body, timeout=30)


def open_session(server: Server, token: str) -> httpx2.Response:
    return post(server.url, token, HELLO)


def test_one_token_cannot_take_every_session_and_the_others_still_open_theirs(server) -> None:
    greedy = server.tokens["greedy"]
    opened = [open_session(server, greedy) for _ in range(MAX_SESSIONS_PER_TOKEN)]
    assert [r.status_code for r in opened] == [200] * MAX_SESSIONS_PER_TOKEN
    refused = open_session(server, greedy)
    assert refused.status_code == 429
    assert refused.json()["code"] == "serve.sessions_per_token"
    # The control: another token still opens one, and the greedy one again once it ends one.
    assert open_session(server, server.tokens["other"]).status_code == 200
    first = opened[0].headers["mcp-session-id"]
    ended = httpx2.delete(server.url, headers={"Authorization": f"Bearer {greedy}",
                                               "Mcp-Session-Id": first})  # fmt: skip
    assert ended.status_code in (200, 204)
    assert open_session(server, greedy).status_code == 200


def test_another_token_does_not_find_a_tokens_session(server) -> None:
    opened = open_session(server, server.tokens["other"])
    session = opened.headers["mcp-session-id"]
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    assert post(server.url, server.tokens["greedy"], ping, session).status_code == 404
    assert post(server.url, server.tokens["other"], ping, session).status_code == 200


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "127.255.0.9", "::1", "localhost",
                                  "::ffff:127.0.0.3"])  # fmt: skip
def test_every_loopback_address_is_loopback(host: str) -> None:
    assert is_loopback(host)
    assert security_for(host, 80).enable_dns_rebinding_protection


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.4", "10.0.0.1", "example.com", "::"])
def test_other_addresses_are_not(host: str) -> None:
    assert not is_loopback(host)
    assert not security_for(host, 80).enable_dns_rebinding_protection


def test_the_rebinding_check_holds_on_127_0_0_2(server) -> None:
    assert server.url.startswith("http://127.0.0.2:")
    token = server.tokens["t"]
    port = server.url.removesuffix("/mcp").rpartition(":")[2]
    # A web page at attacker.example that resolved to 127.0.0.2 sends its own Host.
    rebound = post(server.url, token, HELLO, Host=f"attacker.example:{port}")
    assert rebound.status_code in (400, 403, 421), rebound.text
    origin = post(server.url, token, HELLO, Origin="http://attacker.example")
    assert origin.status_code in (400, 403), origin.text
    # The control: the address it listens on, as a local client names it.
    assert open_session(server, token).status_code == 200
