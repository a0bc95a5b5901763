"""Network grants by destination, end to end with real confined children: a child granted
``network:api.example.com`` runs in a network namespace of its own whose only way out is
the gateway's egress proxy; it reaches that host (plain HTTP by its Host, HTTPS through a
CONNECT whose TLS server name is checked) and nothing else — no other host or port, no DNS,
no socket of its own to anywhere.

Nothing here leaves the machine: the "hosts" are servers bound to an address of this
machine that is not loopback (a granted *name* that resolves to loopback is refused, as a
DNS-rebinding defence), and the proxy's resolver is replaced so that ``api.example.com``
and ``other.example.com`` resolve to it."""

from __future__ import annotations

import dataclasses
import datetime
import http.server
import ipaddress
import itertools
import os
import queue
import shutil
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gateway.base import Diagnostic
from gateway.sandbox import (
    KernelSupport,
    SandboxPolicy,
    detect_support,
    grants_from,
    missing_protections,
    package_sandbox,
    python_runtime_paths,
    spawn_confined,
)
from gateway.sandbox.egress import UpstreamConfig, egress_service

from .conftest import needs_landlock

_THREAD = detect_support()
_TRAMPOLINE = dataclasses.replace(_THREAD, private_mounts=False, user_namespaces=True)
_NAMES = ("api.example.com", "other.example.com", "evil.example.com")


def _local_address() -> str | None:
    """An IPv4 address of this machine that is not loopback (a server bound there stays
    on this machine)."""
    try:
        text = Path("/proc/net/fib_trie").read_text()
    except OSError:
        return None
    lines = text.splitlines()
    for before, line in itertools.pairwise(lines):
        if "/32 host LOCAL" in line:
            address = before.strip().lstrip("|-+ ").strip()
            try:
                ip = ipaddress.ip_address(address)
            except ValueError:
                continue
            if not ip.is_loopback:
                return address
    return None


ADDRESS = _local_address()
needs_netns = pytest.mark.skipif(
    ADDRESS is None or not (_THREAD.private_mounts or _THREAD.user_namespaces),
    reason="needs a non-loopback address of this machine and network namespaces",
)


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = f"hello {self.headers.get('Host')}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@dataclass
class Hosts:
    address: str
    http_port: int
    https_port: int
    other_port: int
    ca: Path
    seen: list[str]
    """Every connection the plain HTTP server accepted (its peer)."""


def _certificate(folder: Path) -> tuple[Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "api.example.com")])
    now = datetime.datetime.now(datetime.UTC)
    names = [x509.DNSName(n) for n in _NAMES]
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )  # fmt: skip
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.fixture(scope="module")
def hosts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hosts]:
    if ADDRESS is None:
        pytest.skip("no non-loopback address")
    seen: list[str] = []

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True

        def verify_request(self, request: object, client_address: object) -> bool:
            seen.append(str(client_address))
            return True

    plain = Server((ADDRESS, 0), _Handler)
    secure = http.server.ThreadingHTTPServer((ADDRESS, 0), _Handler)
    secure.daemon_threads = True
    cert, key = _certificate(tmp_path_factory.mktemp("tls"))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    secure.socket = context.wrap_socket(secure.socket, server_side=True)
    other = Server((ADDRESS, 0), _Handler)
    servers = (plain, secure, other)
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield Hosts(ADDRESS, plain.server_address[1], secure.server_address[1],
                    other.server_address[1], cert, seen)  # fmt: skip
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


@pytest.fixture(autouse=True)
def resolver(monkeypatch: pytest.MonkeyPatch) -> None:
    """The proxy resolves the test's names to this machine's address; it goes direct."""
    service = egress_service()

    async def resolve(host: str, port: int) -> list[str]:
        if host in _NAMES and ADDRESS is not None:
            return [ADDRESS]
        if host == "rebound.example.com":
            return ["127.0.0.1"]
        raise OSError(f"no such host in this test: {host}")

    monkeypatch.setattr(service, "_resolve", resolve)
    monkeypatch.setattr(service, "upstream", UpstreamConfig())


CLIENT = r"""
import json, socket, ssl, sys, urllib.request, urllib.error
out = {}
for step in json.loads(sys.argv[1]):
    kind, target = step[0], step[1]
    try:
        if kind == "get":
            context = ssl.create_default_context(cafile=step[2]) if len(step) > 2 else None
            with urllib.request.urlopen(target, timeout=20, context=context) as response:
                out[target] = f"{response.status} {response.read().decode()}"
        elif kind == "direct":
            host, port = target.rsplit(":", 1)
            socket.create_connection((host, int(port)), timeout=5).close()
            out[target] = "connected"
        elif kind == "dns":
            out[target] = str(socket.getaddrinfo(target, 80)[0][4])
        elif kind == "udp":
            host, port = target.rsplit(":", 1)
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
                udp.sendto(b"x", (host, int(port)))
            out[target] = "sent"
        elif kind == "sni":  # CONNECT to the granted host, a handshake for another
            proxy, host, port, name, ca = step[1], step[2], step[3], step[4], step[5]
            phost, pport = proxy.rsplit(":", 1)
            raw = socket.create_connection((phost, int(pport)), timeout=20)
            raw.sendall(f"CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
            head = b""
            while b"\r\n\r\n" not in head:
                head += raw.recv(1)
            context = ssl.create_default_context(cafile=ca)
            with context.wrap_socket(raw, server_hostname=name) as tls:
                tls.sendall(f"GET / HTTP/1.1\r\nHost: {name}\r\n\r\n".encode())
                out[name] = tls.recv(200).decode(errors="replace")
    except urllib.error.HTTPError as error:
        out[target if kind != "sni" else step[4]] = f"{error.code}"
    except Exception as error:
        out[target if kind != "sni" else step[4]] = type(error).__name__
print(json.dumps(out))
"""


def _run(
    tmp_path: Path,
    granted: list[str],
    steps: list[list[str]],
    support: KernelSupport = _THREAD,
    ca: Path | None = None,
) -> tuple[dict[str, str], SandboxPolicy, queue.Queue[Diagnostic]]:
    import json

    sandbox = package_sandbox(
        home=tmp_path / "gw", package_id="caller", package_root=None, workspace=None,
        grants=grants_from(granted), runtime=python_runtime_paths(), limits=None,
    )  # fmt: skip
    if ca is not None:  # where the child can read it (its /tmp is its own)
        shutil.copy(ca, sandbox.data_dir / "ca.pem")
        steps = [[str(sandbox.data_dir / "ca.pem") if s == "{CA}" else s for s in step]
                 for step in steps]  # fmt: skip
    denied: queue.Queue[Diagnostic] = queue.Queue()
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    child = spawn_confined(
        [sys.executable, "-c", CLIENT, json.dumps(steps)], policy=sandbox.policy,
        env={**env, **sandbox.environment}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        support=support, on_denied=denied.put,
    )  # fmt: skip
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err.decode()
    return json.loads(out), sandbox.policy, denied


def _denials(denied: queue.Queue[Diagnostic], count: int) -> list[Diagnostic]:
    return [denied.get(timeout=30) for _ in range(count)]


@needs_landlock
@needs_netns
@pytest.mark.parametrize("support", [_THREAD, _TRAMPOLINE], ids=["thread", "trampoline"])
def test_a_granted_host_is_reached_through_the_proxy_and_nothing_else(
    tmp_path: Path, hosts: Hosts, support: KernelSupport
) -> None:
    granted = f"http://api.example.com:{hosts.http_port}/"
    other_host = f"http://other.example.com:{hosts.http_port}/"
    other_port = f"http://api.example.com:{hosts.other_port}/"
    done, policy, denied = _run(
        tmp_path, ["network:api.example.com"], [["get", granted], ["get", other_host]],
        support,
    )  # fmt: skip
    assert done[granted] == f"200 hello api.example.com:{hosts.http_port}"
    assert done[other_host] == "403"
    (diagnostic,) = _denials(denied, 1)
    assert diagnostic.code == "sandbox.network_denied"
    assert "other.example.com" in diagnostic.message
    assert "network to api.example.com" in policy.network.describe()
    # a grant with a port lets that port only
    done, _, denied = _run(
        tmp_path, [f"network:api.example.com:{hosts.http_port}"],
        [["get", granted], ["get", other_port]], support,
    )  # fmt: skip
    assert done[granted].startswith("200 ") and done[other_port] == "403"
    assert str(hosts.other_port) in _denials(denied, 1)[0].message


@needs_landlock
@needs_netns
def test_a_wildcard_grant_reaches_subdomains(tmp_path: Path, hosts: Hosts) -> None:
    url = f"http://other.example.com:{hosts.http_port}/"
    done, _, _ = _run(tmp_path, ["network:*.example.com"], [["get", url]])
    assert done[url].startswith("200 ")


@needs_landlock
@needs_netns
def test_dns_and_direct_sockets_reach_nothing(tmp_path: Path, hosts: Hosts) -> None:
    before = len(hosts.seen)
    direct = f"{hosts.address}:{hosts.http_port}"
    done, _, _ = _run(
        tmp_path, ["network:api.example.com"],
        [["direct", direct], ["dns", "api.example.com"], ["udp", f"{hosts.address}:53"]],
    )  # fmt: skip
    assert done[direct] in ("OSError", "ConnectionRefusedError", "TimeoutError")
    assert done["api.example.com"] == "gaierror"
    assert done[f"{hosts.address}:53"] == "OSError"  # no route: only its own loopback
    assert len(hosts.seen) == before, "a direct connection reached the server"


@needs_landlock
@needs_netns
def test_https_goes_through_connect_with_its_server_name_checked(
    tmp_path: Path, hosts: Hosts
) -> None:
    url = f"https://api.example.com:{hosts.https_port}/"
    proxy = "127.0.0.1:3128"
    done, _, denied = _run(
        tmp_path, ["network:api.example.com"],
        [["get", url, "{CA}"],
         ["sni", proxy, "api.example.com", str(hosts.https_port), "evil.example.com", "{CA}"]],
        ca=hosts.ca,
    )  # fmt: skip
    assert done[url] == f"200 hello api.example.com:{hosts.https_port}"
    assert done["evil.example.com"] in ("SSLEOFError", "SSLError", "ConnectionResetError")
    (diagnostic,) = _denials(denied, 1)
    assert "evil.example.com" in diagnostic.message and "TLS server name" in diagnostic.message


@needs_landlock
@needs_netns
def test_a_granted_name_that_resolves_to_loopback_is_refused(tmp_path: Path) -> None:
    url = "http://rebound.example.com:8080/"
    done, _, denied = _run(tmp_path, ["network:rebound.example.com"], [["get", url]])
    assert done[url] == "403"
    assert "127.0.0.1" in _denials(denied, 1)[0].message


@needs_landlock
@needs_netns
def test_plain_network_stays_the_wide_grant(tmp_path: Path, hosts: Hosts) -> None:
    """The control for the direct socket: with ``network`` it connects anywhere."""
    direct = f"{hosts.address}:{hosts.http_port}"
    done, policy, _ = _run(tmp_path, ["network"], [["direct", direct]])
    assert done[direct] == "connected"
    assert policy.network.describe() == "network (any host)"


def test_without_namespaces_a_destination_grant_gives_no_network(tmp_path: Path) -> None:
    from gateway.sandbox._isolation import effective_policy

    sandbox = package_sandbox(
        home=tmp_path / "gw", package_id="caller", package_root=None, workspace=None,
        grants=grants_from(["network:api.example.com"]), limits=None,
    )  # fmt: skip
    bare = dataclasses.replace(_THREAD, private_mounts=False, user_namespaces=False)
    assert not effective_policy(sandbox.policy, bare).network.any
    assert any("network to api.example.com" in m for m in missing_protections(sandbox.policy, bare))
