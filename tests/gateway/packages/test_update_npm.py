"""``gateway outdated`` and ``gateway update`` for an npm package, against a registry on the
loopback address that the real npm client reads (``GATEWAY_HOME/npmrc``): the newest version
within the recorded spec, or the latest with ``--latest``; an update that keeps trust."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import subprocess
import tarfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests._cli_runner import cli
from tests._prepared import restore, set_aside

NAME, PACKAGE = "gw-demo-pkg", "gw.demo"


def _tarball(version: str) -> bytes:
    files = {
        "package/package.json": {"name": NAME, "version": version},
        "package/nanobot.extension.json": {
            "id": PACKAGE, "name": PACKAGE, "version": version, "apiVersion": 1,
            "runtime": "declarative", "permissions": [],
        },
    }  # fmt: skip
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, content in files.items():
            data = json.dumps(content).encode()
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


class Registry:
    """Packuments and tarballs of NAME; ``publish`` adds a version."""

    def __init__(self) -> None:
        self.tarballs: dict[str, bytes] = {}
        self.url = ""

    def publish(self, version: str) -> None:
        self.tarballs[version] = _tarball(version)

    def packument(self) -> dict[str, Any]:
        versions = {}
        for version, data in self.tarballs.items():
            digest = base64.b64encode(hashlib.sha512(data).digest()).decode()
            versions[version] = {
                "name": NAME, "version": version,
                "dist": {"tarball": f"{self.url}/{NAME}/-/{NAME}-{version}.tgz",
                         "shasum": hashlib.sha1(data).hexdigest(),
                         "integrity": f"sha512-{digest}"},
            }  # fmt: skip
        latest = max(self.tarballs, key=lambda v: tuple(int(p) for p in v.split(".")))
        return {"name": NAME, "dist-tags": {"latest": latest}, "versions": versions}


@contextmanager
def _serving() -> Iterator[Registry]:
    served = Registry()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.rstrip("/") == f"/{NAME}":
                body = json.dumps(served.packument()).encode()
            elif self.path.startswith(f"/{NAME}/-/"):
                version = self.path.rsplit("-", 1)[1].removesuffix(".tgz")
                body = served.tarballs.get(version, b"")
            else:
                body = b""
            self.send_response(200 if body else 404)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    served.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield served
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def registry() -> Iterator[Registry]:
    """A registry of its own, with nothing published yet."""
    with _serving() as served:
        yield served


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A home that installed ``NAME@^1.0.0`` from the registry when 1.0.0 was its only version
    (npm packing it) and trusts it; 1.1.0 and 2.0.0 published since. Set aside once, made
    again for each test (its registry serves the module)."""
    with _serving() as served:
        home = tmp_path_factory.mktemp("update-npm") / "world" / "home"
        home.mkdir(parents=True)
        (home / "npmrc").write_text(f"registry={served.url}/\n")
        served.publish("1.0.0")
        _json(cli(home, "install", f"{NAME}@^1.0.0", "--json"))
        _json(cli(home, "trust", PACKAGE, "--json"))
        served.publish("1.1.0")
        served.publish("2.0.0")
        yield set_aside(home.parent) / "home"


def _json(done: subprocess.CompletedProcess[str], code: int = 0) -> Any:
    assert done.returncode == code, (done.stdout, done.stderr)
    return json.loads(done.stdout)


@pytest.fixture
def gw(run_cli):
    def run(home: Path, *args: str, code: int = 0) -> Any:
        return _json(run_cli(home, *args, "--json"), code)

    return run


@pytest.fixture
def home(prepared: Path) -> Path:
    """The prepared home as it was right after its install and trust, at the same path."""
    return restore(prepared.parent) / "home"


def test_outdated_offers_the_newest_version_within_the_recorded_spec(home: Path, gw) -> None:
    (check,) = gw(home, "outdated")["packages"]
    assert (check["kind"], check["current"], check["available"]) == ("npm", "1.0.0", "1.1.0")


def test_outdated_latest_offers_the_registrys_latest(home: Path, gw) -> None:
    (check,) = gw(home, "outdated", "--latest")["packages"]
    assert check["available"] == "2.0.0"


def test_an_npm_update_installs_the_newest_within_the_spec_and_keeps_trust(home: Path, gw) -> None:
    (result,) = gw(home, "update", PACKAGE)["packages"]
    (package,) = gw(home, "status")["packages"]
    assert result["updated"] is True and result["trust_kept"] is True
    assert package["version"] == "1.1.0" and package["gates"]["trusted"]
    assert gw(home, "outdated")["packages"][0]["outdated"] is False


def test_an_npm_prefixed_spec_is_checked_against_the_registry(
    tmp_path: Path, registry: Registry, gw
) -> None:
    """`install npm:NAME@RANGE` (npm's own prefix) is a registry package like NAME@RANGE,
    not "not a registry package"; update keeps the spec as typed."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "npmrc").write_text(f"registry={registry.url}/\n")
    registry.publish("1.0.0")
    gw(home, "install", f"npm:{NAME}@^1.0.0")
    registry.publish("1.1.0")
    registry.publish("2.0.0")
    (check,) = gw(home, "outdated")["packages"]
    assert (check["current"], check["available"]) == ("1.0.0", "1.1.0"), check
    assert gw(home, "outdated", "--latest")["packages"][0]["available"] == "2.0.0"
    (result,) = gw(home, "update", PACKAGE)["packages"]
    assert result["updated"] is True
    assert gw(home, "status")["packages"][0]["version"] == "1.1.0"
