"""A person's sign-in (the adapter's, as ``gateway auth`` runs it) against a loopback
authorization server, and the plugin host's token keeper refreshing it **before** it
expires — on a clock the test moves, against the real token endpoint."""

from __future__ import annotations

import socket
import stat
from pathlib import Path

import anyio
import pytest

from adapters.plugin_host._oauth_client import LEAD_MAX, TokenKeeper
from gateway.model import SignInFailed
from gateway.packages.sign_ins import sign_in_folder

from ._remote import PACKAGE, kept, remote_plugin, sign_in
from ._server import OAuthServer


def test_a_sign_in_keeps_tokens_only_the_owner_reads(tmp_path: Path, server: OAuthServer) -> None:
    home = tmp_path / "home"
    done = sign_in(remote_plugin(tmp_path, server), home)
    assert done.needed and done.tools == 2 and done.refreshable
    record = kept(home)
    folder = sign_in_folder(home, PACKAGE)
    for path in (folder, *folder.iterdir()):
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path
    assert record.issuer == server.base and record.resource == server.url
    assert record.client["client_id"] and record.token_endpoint == server.base + "/token"
    shown = str(record.describe())
    assert record.tokens is not None and record.tokens.access_token not in shown
    assert str(record.tokens.refresh_token) not in shown


def test_refused_scopes_fail_the_sign_in_with_a_code(tmp_path: Path, server: OAuthServer) -> None:
    server.post("/test/refuse")
    with pytest.raises(SignInFailed) as failed:
        sign_in(remote_plugin(tmp_path, server), tmp_path / "home")
    assert failed.value.code == "remote_mcp.sign_in_failed"
    assert "invalid_scope" in str(failed.value)
    assert not sign_in_folder(tmp_path / "home", PACKAGE).exists() or not list(
        sign_in_folder(tmp_path / "home", PACKAGE).glob("*.json")
    )


def test_signing_in_to_a_server_nobody_listens_on_is_unreachable(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    class Gone:
        url = f"http://127.0.0.1:{port}/mcp"

    with pytest.raises(SignInFailed) as failed:
        sign_in(remote_plugin(tmp_path, Gone()), tmp_path / "home")  # type: ignore[arg-type]
    assert failed.value.code == "remote_mcp.unreachable"


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_the_keeper_refreshes_before_expiry_on_its_timer(
    tmp_path: Path, server: OAuthServer
) -> None:
    home = tmp_path / "home"
    sign_in(remote_plugin(tmp_path, server), home)
    before = kept(home).tokens
    assert before is not None and before.expires_at is not None
    clock = Clock(before.obtained_at)
    keeper = TokenKeeper(sign_in_folder(home, PACKAGE), "calc", server.url, clock=clock)
    refreshes = server.state()["refreshes"]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock.now += seconds
        if len(slept) > 1:  # the first refresh is done: the timer waits for the next
            raise anyio.get_cancelled_exc_class()()

    async def run() -> None:
        with anyio.CancelScope():
            try:
                await keeper.keep_fresh(sleep)
            except anyio.get_cancelled_exc_class():
                pass

    anyio.run(run)
    lifetime = before.expires_at - before.obtained_at
    assert slept[0] == pytest.approx(lifetime - min(LEAD_MAX, lifetime / 5))
    assert clock.now < before.expires_at + slept[1]  # the refresh came before expiry
    after = kept(home).tokens
    assert after is not None and after.access_token != before.access_token
    assert server.state()["refreshes"] == refreshes + 1 and keeper.refreshes == 1


def test_the_keeper_refreshes_at_use_once_due(tmp_path: Path, server: OAuthServer) -> None:
    home = tmp_path / "home"
    sign_in(remote_plugin(tmp_path, server), home)
    before = kept(home).tokens
    assert before is not None and before.expires_at is not None
    clock = Clock(before.obtained_at)
    keeper = TokenKeeper(sign_in_folder(home, PACKAGE), "calc", server.url, clock=clock)
    assert anyio.run(keeper.bearer) == before.access_token  # not due: no refresh
    clock.now = before.expires_at - 1  # a host that slept past its timer, still in time
    fresh = anyio.run(keeper.bearer)
    assert fresh != before.access_token and keeper.refreshes == 1
    assert keeper.needs_sign_in is None
