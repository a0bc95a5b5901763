"""``serve --mcp --http --oauth-issuer``: JWT access tokens of an OAuth 2.1 issuer, checked
against its key set (served here on the loopback address), beside the gateway's own tokens."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from gateway.sandbox import package_dirs
from tests._cli import run_here
from tests.serve._helpers import install_ready, terminate
from tests.serve.test_http import Server, _env, _package, _start, client, texts

pytestmark = pytest.mark.anyio

ISSUER = "https://issuer.example"
AUDIENCE = "gateway-test"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Issuer:
    key: Any
    other_key: Any
    url: str

    def token(self, *, key: Any = None, **claims: Any) -> str:
        body = {"iss": ISSUER, "aud": AUDIENCE, "sub": "ci-bot", "exp": time.time() + 600,
                "scope": "mcp"}  # fmt: skip
        body.update(claims)
        return jwt.encode(body, key or self.key, algorithm="RS256", headers={"kid": "k1"})


def _jwks_server(public: Any) -> tuple[ThreadingHTTPServer, str]:
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(public))
    document = json.dumps({"keys": [{**jwk, "kid": "k1", "alg": "RS256", "use": "sig"}]})

    class Keys(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(document.encode())

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Keys)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/jwks.json"


@pytest.fixture(scope="module")
def issuer() -> Iterator[Issuer]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    httpd, url = _jwks_server(key.public_key())
    yield Issuer(key, other, url)
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, issuer: Issuer) -> Iterator[Server]:
    base = tmp_path_factory.mktemp("oauth")
    env, home = _env(base), base / "home"
    (base / "workspace").mkdir()
    for name in ("alpha", "beta"):
        install_ready(home, _package(base / name, name, package_dirs(home, name)[0] / "c.txt"))
    process, url = _start(
        env, base / "workspace", base / "stderr.log",
        "--oauth-issuer", ISSUER, "--oauth-jwks", issuer.url,
        "--oauth-audience", AUDIENCE, "--oauth-scope", "mcp",
    )  # fmt: skip
    yield Server(home, url, {}, env)
    terminate(process)


def _status(server: Server, token: str) -> httpx2.Response:
    return httpx2.post(
        server.url, headers={"Authorization": f"Bearer {token}"},
        json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
    )  # fmt: skip


async def test_a_valid_access_token_calls_a_tool(server: Server, issuer: Issuer) -> None:
    async with client(server, issuer.token()) as session:
        assert texts(await session.call_tool("alpha_echo", {"n": 2})) == ['alpha {"n": 2}']


async def test_package_scopes_limit_what_a_token_sees(server: Server, issuer: Issuer) -> None:
    async with client(server, issuer.token(scope="mcp package:beta")) as session:
        names = {tool.name for tool in (await session.list_tools()).tools}
    assert names == {"beta_echo", "beta_ask"}


@pytest.mark.parametrize(
    ("claims", "reason"),
    [
        ({"exp": time.time() - 3600}, "expired"),
        ({"aud": "another-api"}, "another resource"),
        ({"iss": "https://elsewhere.example"}, "another issuer"),
    ],
)
async def test_an_invalid_access_token_is_refused_with_401(
    server: Server, issuer: Issuer, claims: dict[str, Any], reason: str
) -> None:
    response = _status(server, issuer.token(**claims))
    assert response.status_code == 401
    assert reason in response.headers["www-authenticate"]
    assert 'error="invalid_token"' in response.headers["www-authenticate"]


async def test_a_token_signed_by_another_key_is_refused(server: Server, issuer: Issuer) -> None:
    response = _status(server, issuer.token(key=issuer.other_key))
    assert response.status_code == 401
    assert "signature" in response.json()["error_description"]


async def test_a_shared_secret_token_is_refused(server: Server) -> None:
    forged = jwt.encode(
        {"iss": ISSUER, "aud": AUDIENCE, "exp": time.time() + 600, "scope": "mcp"},
        "a-guessed-secret-of-at-least-32-bytes!", algorithm="HS256", headers={"kid": "k1"},
    )  # fmt: skip
    assert _status(server, forged).status_code == 401


async def test_a_token_without_the_required_scope_gets_403(server: Server, issuer: Issuer) -> None:
    response = _status(server, issuer.token(scope="read"))
    assert response.status_code == 403
    assert 'error="insufficient_scope"' in response.headers["www-authenticate"]


async def test_a_401_names_the_protected_resource_metadata(server: Server) -> None:
    response = httpx2.post(server.url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    challenge = response.headers["www-authenticate"]
    where = challenge.split('resource_metadata="')[1].split('"')[0]
    metadata = httpx2.get(where).json()
    assert response.status_code == 401
    assert metadata["authorization_servers"] == [ISSUER]
    assert metadata["resource"] == server.url and metadata["scopes_supported"] == ["mcp"]


def test_an_issuer_without_a_key_set_stops_the_server_with_its_code(tmp_path: Path) -> None:
    # A refused start, run in this process (tests/_cli.run_here, as test_http's address in
    # use): the CLI's parser, the server's checks before it serves, its exit status.
    (tmp_path / "workspace").mkdir()
    refused = run_here(
        ["serve", "--mcp", "--http", "127.0.0.1:0", "--workspace", str(tmp_path / "workspace"),
         "--oauth-issuer", "http://127.0.0.1:9/nowhere"],
        env=_env(tmp_path), cwd=tmp_path,
    )  # fmt: skip
    assert refused.returncode == 1
    assert "serve.oauth_unavailable" in refused.stderr
    assert "Traceback" not in refused.stderr


def _hello(token: str, url: str, session: str | None = None, method: str = "initialize") -> Any:
    headers = {"Authorization": f"Bearer {token}",
               "Accept": "application/json, text/event-stream"}  # fmt: skip
    if session:
        headers["Mcp-Session-Id"] = session
    params = {"protocolVersion": "2025-06-18", "capabilities": {},
              "clientInfo": {"name": "plain", "version": "1"}}  # fmt: skip
    body = {"jsonrpc": "2.0", "id": 1, "method": method,
            **({"params": params} if method == "initialize" else {})}  # fmt: skip
    return httpx2.post(url, headers=headers, json=body, timeout=30)


async def test_two_users_of_one_client_are_two_identities(server: Server, issuer: Issuer) -> None:
    ada = issuer.token(client_id="shared-app", sub="ada")
    bob = issuer.token(client_id="shared-app", sub="bob")
    session = _hello(ada, server.url).headers["mcp-session-id"]
    # Bob, with the same client, does not find Ada's session; Ada does (the control).
    assert _hello(bob, server.url, session, "ping").status_code == 404
    assert _hello(ada, server.url, session, "ping").status_code == 200
    # The audit trail (and the per-token limits) count each user apart.
    for token in (ada, bob):
        async with client(server, token) as mcp:
            await mcp.call_tool("alpha_echo", {})
    log = server.home / "logs" / "audit.jsonl"
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(line["token"], line["subject"]) for line in lines[-2:]] == [
        ("oauth:ada", "ada"),
        ("oauth:bob", "bob"),
    ]
