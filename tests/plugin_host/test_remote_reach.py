"""A remote MCP server that cannot be connected fails its start without the MCP SDK's HTTP
client being imported (``_reach``: a stdlib resolve and connect first, on the client's own
path: straight, or through the proxy the environment names), with the diagnostic the SDK's
client gave; one that can be connected is left to the SDK's client as before (the
connected tests of test_remote.py go through the same attempt)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from anyio.abc import SocketListener

from adapters.plugin_host._reach import Route, environment_proxies, reach, route
from gateway.sandbox import Destination
from gateway.sandbox.egress import Grant, handle_client, system_resolver, upstream_from_environment

CASES = Path(__file__).parent / "fixtures" / "unreachable_starts.py"


def test_an_unreachable_server_is_said_as_the_sdk_said_it_without_importing_the_sdk() -> None:
    # A process of its own: what it proves is which modules that process imported.
    done = subprocess.run([sys.executable, "-P", str(CASES)], capture_output=True, text=True,
                          timeout=240, check=True)  # fmt: skip
    found = json.loads(done.stdout)
    assert found["imported"] == [], found["imported"]  # no mcp.*, httpx2 after the first round
    assert found["sdk_round_imported_it"]  # the second round was the SDK's client
    assert found["lean"] == found["sdk"]  # code and text, case by case
    said = [[f"{d['code']}: {d['message']}" for d in case] for case in found["lean"]]
    assert [len(case) for case in said] == [1, 1, 1, 1, 1, 1, 2]
    assert all(case[-1].startswith("remote_mcp.unreachable: ") for case in said)
    assert said[0][0].endswith("could not be connected: ConnectError: All connection "
                               "attempts failed")  # fmt: skip
    assert "(https://nothing.invalid/mcp) could not be connected: ConnectError: " in said[2][0]
    assert said[3][0].endswith(": ProxyError: 502 Bad Gateway")  # granted, not reachable
    assert said[4][0].endswith(": ProxyError: 403 Forbidden")  # not granted
    # Signed in, the token due: refreshed first (as the SDK's auth does), which fails too.
    assert said[6][0].startswith("remote_mcp.refresh_failed: ")


_PROXY = "http://127.0.0.1:3128"
_EGRESS = {"HTTP_PROXY": _PROXY, "HTTPS_PROXY": _PROXY, "NO_PROXY": "localhost,127.0.0.1,::1"}


@pytest.mark.parametrize(
    ("url", "env", "expected"),
    [
        ("https://mcp.example.com/api", {}, Route("mcp.example.com", 443)),
        ("http://127.0.0.1:8080/mcp", {}, Route("127.0.0.1", 8080)),
        ("http://[::1]:8080/mcp", {}, Route("::1", 8080)),
        (
            "https://mcp.example.com/api",
            _EGRESS,
            Route("mcp.example.com", 443, ("127.0.0.1", 3128)),
        ),
        (
            "https://MCP.Example.com:8443/a",
            _EGRESS,
            Route("mcp.example.com", 8443, ("127.0.0.1", 3128)),
        ),
        ("http://127.0.0.1:8080/mcp", _EGRESS, Route("127.0.0.1", 8080)),  # NO_PROXY
        ("http://localhost:8080/mcp", _EGRESS, Route("localhost", 8080)),
        (
            "https://a.example.com/",
            {"ALL_PROXY": "proxy.test:8080"},
            Route("a.example.com", 443, ("proxy.test", 8080)),
        ),
        ("https://a.example.com/", {**_EGRESS, "NO_PROXY": "*"}, Route("a.example.com", 443)),
        (
            "https://a.example.com/",
            {**_EGRESS, "NO_PROXY": "example.com"},
            Route("a.example.com", 443),
        ),
        (
            "https://example.com/",
            {**_EGRESS, "NO_PROXY": ".example.com"},
            Route("example.com", 443, ("127.0.0.1", 3128)),
        ),
        (
            "https://a.example.com/",
            {**_EGRESS, "NO_PROXY": "*.example.com"},
            Route("a.example.com", 443),
        ),
        (
            "https://aexample.com/",
            {**_EGRESS, "NO_PROXY": "example.com"},
            Route("aexample.com", 443, ("127.0.0.1", 3128)),
        ),
        # Left to the SDK's client: a plain-HTTP URL through a proxy (forwarded, not
        # tunnelled), a proxy with credentials or not HTTP, a NO_PROXY network or port.
        ("http://127.0.0.1:8080/mcp", {**_EGRESS, "NO_PROXY": "localhost"}, None),
        ("https://a.example.com/", {"HTTPS_PROXY": "http://u:p@proxy.test:8080"}, None),
        ("https://a.example.com/", {"HTTPS_PROXY": "socks5://proxy.test:1080"}, None),
        ("https://a.example.com/", {**_EGRESS, "NO_PROXY": "10.0.0.0/8"}, None),
        ("https://a.example.com/", {**_EGRESS, "NO_PROXY": "example.com:443"}, None),
    ],
)
def test_the_route_is_the_one_httpx2_takes(
    url: str, env: dict[str, str], expected: Route | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "REQUEST_METHOD"):
        for variable in (name, name.lower()):
            monkeypatch.delenv(variable, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    found = route(url)
    assert found == expected
    if found is not None:  # what the SDK's client does in the same environment
        client = httpx2.AsyncClient()
        straight = client._transport_for_url(httpx2.URL(url)) is client._transport
        assert straight == (found.proxy is None)


async def _listener() -> tuple[SocketListener, int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return await SocketListener.from_socket(sock), sock.getsockname()[1]


async def _accepting(listener: SocketListener, seen: list[Any]) -> None:
    while True:
        client = await listener.accept()
        seen.append(client)
        await client.aclose()


@pytest.mark.anyio
async def test_a_server_that_connects_is_left_to_the_sdks_client() -> None:
    server, port = await _listener()
    proxy, proxy_port = await _listener()
    seen: list[Any] = []
    grant = Grant("p", (Destination("127.0.0.1", port),))
    upstream = upstream_from_environment({})

    async def serve_proxy() -> None:
        while True:
            client = await proxy.accept()
            group.start_soon(handle_client, client, grant, lambda _: None, upstream,
                             system_resolver)  # fmt: skip

    async with server, proxy, anyio.create_task_group() as group:
        group.start_soon(_accepting, server, seen)
        group.start_soon(serve_proxy)
        await reach(f"http://127.0.0.1:{port}/mcp", {})  # straight: connected, closed
        # Through the proxy, tunnelled (CONNECT answered 200): connected, closed.
        await reach(f"https://127.0.0.1:{port}/mcp", {"https": f"http://127.0.0.1:{proxy_port}"})
        with anyio.fail_after(10):
            while len(seen) < 2:
                await anyio.sleep(0.01)
        group.cancel_scope.cancel()


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"HTTPS_PROXY": "http://a:1", "https_proxy": "http://b:2", "NO_PROXY": "x"},
        {"HTTPS_PROXY": "http://a:1", "https_proxy": ""},  # the empty lower-case one wins
        {"HTTP_PROXY": "http://a:1", "REQUEST_METHOD": "GET"},  # CGI: not HTTP_PROXY
        {"http_proxy": "http://a:1", "REQUEST_METHOD": "GET", "All_Proxy": "socks5://c:3"},
    ],
)
def test_the_proxies_are_read_as_urllib_reads_them(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import urllib.request

    for name in list(os.environ):
        if name.lower().endswith("_proxy") or name == "REQUEST_METHOD":
            monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert environment_proxies(env) == urllib.request.getproxies_environment()
    assert environment_proxies() == urllib.request.getproxies_environment()
