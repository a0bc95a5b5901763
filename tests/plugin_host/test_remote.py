"""Remote MCP servers through the plugin host over its stdio (real processes: the host, and
a loopback MCP server that is its own OAuth authorization server): connected over
streamable HTTP and SSE, signed in with the adapter's own sign-in, a token refreshed
mid-session after the server expired it, a revoked one and a narrowed one held back with a
diagnostic, and each failure to connect said with its code."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from tests._lite_mcp import Server, serving

from ._here import HostHere
from ._remote import PACKAGE, kept, remote_host_config, remote_plugin, sign_in
from ._server import OAuthServer

pytestmark = pytest.mark.slow(2)  # measured long: scheduled first (tests/conftest.py)

ADD = f"mcp_{PACKAGE}_add"


def codes(register: dict[str, Any]) -> list[str]:
    return [d["code"] for d in register["gateway"]["diagnostics"]]


def _calc() -> Server:
    """The OAuth fixture server's tools without its authorization, written with the standard
    library (tests/_lite_mcp): the SDK's server over both transports is the contract of the
    signed-in tests below."""
    server = Server("calc")

    @server.tool(description="Add two numbers.")
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool(description="Say something back.")
    def echo(text: str) -> str:
        return text

    return server


@pytest.mark.parametrize("transport", ["streamable-http", "sse"])
def test_a_remote_server_without_auth_is_connected_and_called(
    tmp_path: Path, transport: str
) -> None:
    with serving(_calc(), transport) as url, HostHere(remote_host_config(tmp_path, url)) as host:
        register = host.read()
        assert sorted(t["name"] for t in register["tools"]) == [ADD, f"mcp_{PACKAGE}_echo"]
        assert codes(register) == []
        assert host.tool("1", ADD, a=2, b=40)["content"] == "42"


def test_a_server_nobody_listens_on_is_unreachable(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with HostHere(remote_host_config(tmp_path, f"http://127.0.0.1:{port}/mcp")) as host:
        register = host.read()
    assert register.get("tools", []) == []
    [diagnostic] = register["gateway"]["diagnostics"]
    assert diagnostic["code"] == "remote_mcp.unreachable"
    assert f"127.0.0.1:{port}" in diagnostic["message"]


def test_a_401_without_a_sign_in_names_gateway_auth(tmp_path: Path, server: OAuthServer) -> None:
    with HostHere(remote_host_config(tmp_path, server, home=tmp_path / "home")) as host:
        register = host.read()
    assert register.get("tools", []) == []
    [diagnostic] = register["gateway"]["diagnostics"]  # said once, not once per attempt
    assert diagnostic["code"] == "remote_mcp.sign_in_required"
    assert f"gateway auth {PACKAGE}" in diagnostic["message"]


def test_a_header_naming_an_unset_secret_is_said_before_connecting(
    tmp_path: Path, server: OAuthServer
) -> None:
    config = remote_host_config(tmp_path, server, headers={"X-Key": "${CALC_KEY}"})
    with HostHere(config) as host:
        register = host.read()
    [diagnostic] = register["gateway"]["diagnostics"]
    assert diagnostic["code"] == "remote_mcp.header_unset"
    assert f"gateway secret set {PACKAGE} CALC_KEY" in diagnostic["message"]
    assert server.state()["seen"] == []


def test_a_signed_in_server_refreshes_an_expired_token_mid_session(
    tmp_path: Path, server: OAuthServer
) -> None:
    home = tmp_path / "home"
    entry = remote_plugin(tmp_path, server)
    assert sign_in(entry, home).needed
    first = kept(home).tokens
    with HostHere(remote_host_config(tmp_path, server, home=home)) as host:
        register = host.read()
        assert codes(register) == [] and ADD in [t["name"] for t in register["tools"]]
        assert host.tool("1", ADD, a=1, b=2)["content"] == "3"
        server.post("/test/expire")  # the server ends the token before its time
        assert host.tool("2", ADD, a=2, b=3)["content"] == "5"
        log = host.log
    state = server.state()
    assert state["refreshes"] == 1 and state["seen"][-1] == "token-2"
    second = kept(home).tokens  # the rotated refresh token kept: the next start uses it
    assert first is not None and second is not None
    assert second.refresh_token != first.refresh_token
    assert "refreshed after a 401" in log
    for secret in (first.access_token, second.access_token, second.refresh_token or "?"):
        assert secret not in log


def test_a_revoked_sign_in_holds_calls_back_with_a_diagnostic(
    tmp_path: Path, server: OAuthServer
) -> None:
    home = tmp_path / "home"
    sign_in(remote_plugin(tmp_path, server), home)
    with HostHere(remote_host_config(tmp_path, server, home=home)) as host:
        host.read()
        server.post("/test/revoke")
        refused = host.tool("1", ADD, a=1, b=2)
        again = host.tool("2", ADD, a=1, b=2)
        updates = [d for u in host.updates for d in u.get("gateway", {}).get("diagnostics", [])]
    assert refused["is_error"] and f"gateway auth {PACKAGE}" in refused["content"]
    assert "the tool was not run" in refused["content"]
    assert again["is_error"] and f"gateway auth {PACKAGE}" in again["content"]
    [diagnostic] = updates  # once, not once per call
    assert diagnostic["code"] == "remote_mcp.sign_in_required"
    assert "invalid_grant" in diagnostic["message"]
    record = kept_or_none(home)
    assert record is not None and record.tokens is None and "invalid_grant" in str(record.refused)


def kept_or_none(home: Path) -> Any:
    from gateway.packages.sign_ins import read_sign_in, sign_in_folder

    return read_sign_in(sign_in_folder(home, PACKAGE), "calc")


def test_a_narrowed_sign_in_is_insufficient_scope(tmp_path: Path, server: OAuthServer) -> None:
    home = tmp_path / "home"
    sign_in(remote_plugin(tmp_path, server), home)
    with HostHere(remote_host_config(tmp_path, server, home=home)) as host:
        host.read()
        server.post("/test/scopes", issue="read")  # the next token lacks the scope `mcp`
        server.post("/test/expire")
        refused = host.tool("1", ADD, a=1, b=2)
        updates = [d for u in host.updates for d in u.get("gateway", {}).get("diagnostics", [])]
    assert refused["is_error"] and f"gateway auth {PACKAGE}" in refused["content"]
    assert [d["code"] for d in updates] == ["remote_mcp.scope_insufficient"]
    assert "mcp" in updates[0]["message"]


def test_sse_with_a_sign_in(tmp_path: Path, server: OAuthServer) -> None:
    """The module's server at its SSE endpoint (its own resource, the same authorization
    server): signed in for that resource, connected over SSE, a tool called."""
    sse = server.sse()
    home = tmp_path / "home"
    assert sign_in(remote_plugin(tmp_path, sse), home).needed
    with HostHere(remote_host_config(tmp_path, sse, home=home)) as host:
        register = host.read()
        assert codes(register) == []
        assert host.tool("1", ADD, a=20, b=22)["content"] == "42"
    assert kept(home).resource == sse.url
    assert server.state()["seen"]  # the SSE requests carried the token
