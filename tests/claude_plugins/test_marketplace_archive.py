"""A Claude Code marketplace's ``archive`` source: a zip (or tarball) on an https server,
pinned by SHA-256, served here on the loopback address with a certificate made for the test
(``openssl``) that the fetch trusts through ``SSL_CERT_FILE``."""

from __future__ import annotations

import hashlib
import io
import json
import ssl
import stat
import subprocess
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from gateway.packages import InstallError, _archive, install, load_adapters
from tests.gateway.packages._helpers import recorded, staging_leftovers
from tests.gateway.packages._registry import tarball

PLUGIN = {
    "notes/.claude-plugin/plugin.json": json.dumps({"name": "zipped", "version": "3.0.0"}),
    "notes/commands/zipped.md": "Zipped command.\n",
}


def _zip(files: dict[str, str], links: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in sorted(files.items()):
            archive.writestr(name, text)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return buffer.getvalue()


class _Server:
    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.redirects: dict[str, str] = {}
        self.url = ""


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The loopback server's key and self-signed certificate, made once for the module."""
    folder = tmp_path_factory.mktemp("tls")
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return key, cert


@pytest.fixture
def server(certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> Iterator[_Server]:
    key, cert = certificate
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    served = _Server()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path in served.redirects:
                self.send_response(302)
                self.send_header("Location", served.redirects[self.path])
                self.end_headers()
                return
            data = served.files.get(self.path)
            self.send_response(200 if data is not None else 404)
            self.send_header("Content-Length", str(len(data or b"")))
            self.end_headers()
            self.wfile.write(data or b"")

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    served.url = f"https://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def _market(tmp_path: Path, source: dict[str, object]) -> str:
    market = tmp_path / "market"
    (market / ".claude-plugin").mkdir(parents=True, exist_ok=True)
    plugins = [{"name": "zipped", "source": source}]
    (market / ".claude-plugin" / "marketplace.json").write_text(json.dumps({"plugins": plugins}))
    return f"{market}#zipped"


def _install(home: Path, source: str) -> None:
    install(home, source, kind=None, inspector=load_adapters().inspect)


def _archive_source(server: _Server, data: bytes, name: str = "/p.zip") -> dict[str, object]:
    server.files[name] = data
    digest = hashlib.sha256(data).hexdigest()
    return {"source": "archive", "url": server.url + name, "sha256": digest}


def test_a_pinned_zip_installs_its_one_folder(tmp_path: Path, server: _Server) -> None:
    source = _archive_source(server, _zip(PLUGIN))
    home = tmp_path / "home"
    _install(home, _market(tmp_path, source))
    (package,) = recorded(home)
    assert (package.id, package.record.version) == ("zipped", "3.0.0")
    assert (package.record.path / "commands" / "zipped.md").read_text() == "Zipped command.\n"
    assert f"archive {source['url']} sha256:{source['sha256']}" in package.record.source


def test_a_pinned_tarball_installs_too(tmp_path: Path, server: _Server) -> None:
    files = {name.removeprefix("notes/"): text for name, text in PLUGIN.items()}
    source = _archive_source(server, tarball(files), "/p.tgz")
    home = tmp_path / "home"
    _install(home, _market(tmp_path, source))
    assert [p.id for p in recorded(home)] == ["zipped"]


def test_a_digest_mismatch_is_coded_and_installs_nothing(tmp_path: Path, server: _Server) -> None:
    source = {**_archive_source(server, _zip(PLUGIN)), "sha256": "0" * 64}
    home = tmp_path / "home"
    with pytest.raises(InstallError) as raised:
        _install(home, _market(tmp_path, source))
    (diagnostic,) = raised.value.diagnostics
    assert diagnostic.code == "install.archive_digest_mismatch"
    assert "nothing was unpacked" in diagnostic.message
    assert recorded(home) == [] and staging_leftovers(home) == []


@pytest.mark.parametrize(
    "source",
    [
        {"source": "archive", "url": "http://127.0.0.1/p.zip", "sha256": "a" * 64},
        {"source": "archive", "url": "https://user:pw@example.com/p.zip", "sha256": "a" * 64},
        {"source": "archive", "url": "file:///etc/passwd", "sha256": "a" * 64},
        {"source": "archive", "url": "https://example.com/p.zip"},
        {"source": "archive", "url": "https://example.com/p.zip", "sha256": "abc"},
    ],
)
def test_an_archive_without_https_or_pin_is_refused(tmp_path: Path, source: dict) -> None:
    with pytest.raises(InstallError) as raised:
        _install(tmp_path / "home", _market(tmp_path, source))
    assert raised.value.diagnostics[0].code == "claude.marketplace_invalid"


@pytest.mark.parametrize(
    ("files", "links", "said"),
    [
        ({"../evil.txt": "x", **PLUGIN}, None, "escaping"),
        ({"/abs.txt": "x", **PLUGIN}, None, "escaping"),
        (PLUGIN, {"notes/link": "/etc/passwd"}, "not a regular file"),
    ],
)
def test_an_unsafe_zip_is_refused_and_nothing_leaks(
    tmp_path: Path, server: _Server, files: dict, links: dict | None, said: str
) -> None:
    source = _archive_source(server, _zip(files, links))
    home = tmp_path / "home"
    with pytest.raises(InstallError, match=said):
        _install(home, _market(tmp_path, source))
    assert recorded(home) == [] and not (tmp_path / "evil.txt").exists()


def test_more_entries_than_claude_code_allows_are_refused(
    tmp_path: Path, server: _Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cap is Claude Code's 20 000, read where an archive is opened; the archive here
    goes over a cap lowered to 50 (20 000 entries cost seconds to write and to read)."""
    assert _archive.MAX_ARCHIVE_ENTRIES == 20_000
    monkeypatch.setattr(_archive, "MAX_ARCHIVE_ENTRIES", 50)
    many = {f"notes/f{i}.txt": "" for i in range(50)}
    source = _archive_source(server, _zip({**PLUGIN, **many}))
    with pytest.raises(InstallError, match="more than 50"):
        _install(tmp_path / "home", _market(tmp_path, source))


def test_a_download_over_the_size_limit_stops(
    tmp_path: Path, server: _Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _archive_source(server, _zip(PLUGIN))
    monkeypatch.setattr(_archive, "MAX_ARCHIVE_BYTES", 100)
    with pytest.raises(InstallError, match=r"over 100|larger than 100"):
        _install(tmp_path / "home", _market(tmp_path, source))


def test_a_redirect_is_not_followed(tmp_path: Path, server: _Server) -> None:
    data = _zip(PLUGIN)
    server.files["/elsewhere.zip"] = data
    server.redirects["/p.zip"] = server.url + "/elsewhere.zip"
    source = {"source": "archive", "url": server.url + "/p.zip",
              "sha256": hashlib.sha256(data).hexdigest()}  # fmt: skip
    with pytest.raises(InstallError, match="redirects"):
        _install(tmp_path / "home", _market(tmp_path, source))
