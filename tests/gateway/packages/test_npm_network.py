"""npm sees the user's network configuration and a failure shows npm's own reason: a 404
registry, a TLS registry with a self-signed CA, an HTTP proxy and a registry that never
answers — all servers on 127.0.0.1."""

from __future__ import annotations

import http.server
import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from gateway.packages import InstallError
from gateway.runtime import npm, npm_environment
from tests.gateway.packages._helpers import install_from

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is needed")

_NETWORK = ("NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_OPTIONS",
            "http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
            "ALL_PROXY", "all_proxy", "GATEWAY_PASSTHROUGH_ENV", "GATEWAY_NPM_TIMEOUT")  # fmt: skip


class _NotFound(http.server.BaseHTTPRequestHandler):
    """Answers every request 404 the way the npm registry does; a proxy gets absolute URLs."""

    seen: list[str]

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        type(self).seen.append(self.path)
        body = b'{"error":"Not found"}'
        self.send_response(404)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _serve(context: ssl.SSLContext | None = None) -> Iterator[tuple[int, list[str]]]:
    handler = type("Handler", (_NotFound,), {"seen": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    if context is not None:
        server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], handler.seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user HOME with no network settings; npm gives up at once instead of retrying."""
    for name in _NETWORK:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    return home


@pytest.fixture
def registry() -> Iterator[tuple[int, list[str]]]:
    yield from _serve()


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private CA and a certificate for 127.0.0.1 signed by it."""
    folder = tmp_path_factory.mktemp("tls")

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
            "ca.pem", "-days", "2", "-subj", "/CN=gateway test CA")  # fmt: skip
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out",
            "server.csr", "-subj", "/CN=127.0.0.1")  # fmt: skip
    (folder / "san.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "san.cnf")  # fmt: skip
    return folder


@pytest.fixture
def tls_registry(certificates: Path) -> Iterator[tuple[int, list[str]]]:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificates / "server.pem", certificates / "server.key")
    yield from _serve(context)


def _refusal(home: Path, spec: str) -> str:
    with pytest.raises(InstallError) as refused:
        install_from(home, spec, kind="npm")
    return str(refused.value)


def test_a_missing_package_shows_npms_e404_naming_it(
    user: Path, registry: tuple[int, list[str]], tmp_path: Path
) -> None:
    port, seen = registry
    (user / ".npmrc").write_text(f"registry=http://127.0.0.1:{port}/\n")  # the user's .npmrc
    message = _refusal(tmp_path / "gw", "no-such-pkg")
    assert "npm pack no-such-pkg failed" in message
    assert "E404" in message and "no-such-pkg" in message.split("failed", 1)[1]
    assert set(seen) == {"/no-such-pkg"}


def test_npm_config_variables_reach_npm(
    user: Path, registry: tuple[int, list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    port, seen = registry
    monkeypatch.setenv("npm_config_registry", f"http://127.0.0.1:{port}/")
    assert "E404" in _refusal(tmp_path / "gw", "from-env-pkg")
    assert set(seen) == {"/from-env-pkg"}


def test_a_registry_behind_an_unknown_ca_shows_the_certificate_error(
    user: Path, tls_registry: tuple[int, list[str]], tmp_path: Path
) -> None:
    port, seen = tls_registry
    (user / ".npmrc").write_text(f"registry=https://127.0.0.1:{port}/\n")
    message = _refusal(tmp_path / "gw", "tls-pkg")
    assert "failed" in message
    assert any(
        reason in message
        for reason in (
            "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
            "SELF_SIGNED_CERT",
            "UNABLE_TO_GET_ISSUER",
        )
    ), message
    assert seen == []


def test_node_extra_ca_certs_reaches_npm(
    user: Path,
    tls_registry: tuple[int, list[str]],
    certificates: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    port, seen = tls_registry
    (user / ".npmrc").write_text(f"registry=https://127.0.0.1:{port}/\n")
    monkeypatch.setenv("NODE_EXTRA_CA_CERTS", str(certificates / "ca.pem"))
    assert "E404" in _refusal(tmp_path / "gw", "tls-pkg")
    assert set(seen) == {"/tls-pkg"}


def test_the_users_http_proxy_carries_npms_requests(
    user: Path, registry: tuple[int, list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    port, seen = registry  # the "proxy": it answers 404 to whatever it is asked to fetch
    (user / ".npmrc").write_text(
        "registry=http://registry.test/\n"
    )  # reserved name, never resolved
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
    assert "E404" in _refusal(tmp_path / "gw", "proxied-pkg")
    assert set(seen) == {"http://registry.test/proxied-pkg"}


@pytest.fixture
def silent_registry() -> Iterator[int]:
    """Accepts connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        for connection in held:
            connection.close()
        listener.close()


def test_a_timeout_says_what_timed_out(
    user: Path, silent_registry: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (user / ".npmrc").write_text(f"registry=http://127.0.0.1:{silent_registry}/\n")
    monkeypatch.setenv("GATEWAY_NPM_TIMEOUT", "3")
    message = _refusal(tmp_path / "gw", "slow-pkg")
    assert "npm pack slow-pkg timed out after 3 s" in message
    assert "GATEWAY_NPM_TIMEOUT" in message


def test_npm_that_runs_long_is_said_with_the_proxy_it_goes_through(
    user: Path, silent_registry: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dead proxy costs npm a minute of retries (HTTPS_PROXY=http://127.0.0.1:9: ~70 s),
    and the install said nothing after `fetching` meanwhile."""
    (user / ".npmrc").write_text("registry=http://registry.test/\n")  # never resolved
    monkeypatch.setenv("HTTP_PROXY", f"http://someone:s3cret@127.0.0.1:{silent_registry}")
    monkeypatch.setenv("GATEWAY_NPM_TIMEOUT", "4")
    monkeypatch.setattr(npm, "WAIT_WORD", 0.5, raising=False)
    said: list[str] = []
    with pytest.raises(InstallError):
        install_from(tmp_path / "gw", "slow-pkg", kind="npm", progress=said.append)
    assert said[1:] == [
        "still waiting for npm pack slow-pkg after 0.5 s, through the proxy "
        f"HTTP_PROXY=http://127.0.0.1:{silent_registry} from your environment (stopped after "
        "4 s; GATEWAY_NPM_TIMEOUT sets the limit)"
    ], said


def test_npm_environment_has_the_network_settings_and_nothing_else() -> None:
    source = {
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "HTTPS_PROXY": "http://proxy:3128",
        "no_proxy": "localhost",
        "NODE_EXTRA_CA_CERTS": "/etc/corp-ca.pem",
        "SSL_CERT_FILE": "/etc/ssl/cert.pem",
        "npm_config_registry": "https://mirror/",
        "NPM_CONFIG_USERCONFIG": "/home/u/.npmrc-work",
        "NPM_TOKEN": "t0ken",
        "GATEWAY_PASSTHROUGH_ENV": "NPM_TOKEN",
        "AWS_SECRET_ACCESS_KEY": "secret",
        "GATEWAY_NODE_ENV": "/nonexistent-node-env",
    }
    env = npm_environment(source=source, home=Path("/nonexistent-gateway-home"))
    for name in ("HTTPS_PROXY", "no_proxy", "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE",
                 "npm_config_registry", "NPM_CONFIG_USERCONFIG", "NPM_TOKEN", "HOME"):  # fmt: skip
        assert env[name] == source[name], name
    assert "AWS_SECRET_ACCESS_KEY" not in env
    assert "npm_config_prefix" not in env  # no private Node environment there


def test_a_dead_proxy_is_named_without_its_password_and_npms_stack_is_left_out(
    user: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    (user / ".npmrc").write_text("registry=http://registry.test/\n")  # never resolved
    monkeypatch.setenv("HTTP_PROXY", f"http://someone:s3cret@127.0.0.1:{port}")
    message = _refusal(tmp_path / "gw", "behind-a-dead-proxy")
    assert "ECONNREFUSED" in message and "FetchError" in message  # npm's own reason
    assert f"hint: npm went through the proxy HTTP_PROXY=http://127.0.0.1:{port} " in message
    assert "unset HTTP_PROXY" in message and "s3cret" not in message and "someone" not in message
    # npm's stack and its error object dumped field by field say nothing more.
    lines = message.splitlines()
    assert not [
        line
        for line in lines
        if line.strip().startswith("npm error")
        and (line.split("npm error", 1)[1].strip().startswith(("at ", "code:", "{", "}", "errno")))
    ], message
