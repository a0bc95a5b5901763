"""An npm registry on the loopback address that the real npm client reads (through
``GATEWAY_HOME/npmrc``): packuments and tarballs of any number of packages, built from
files in memory. ``publish`` adds a version; ``serving`` runs it for a ``with`` block."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import tarfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote

__all__ = ["Registry", "serving", "tarball"]


def tarball(files: dict[str, Any], top: str = "package") -> bytes:
    """A gzipped tarball of ``files`` (a path → text, or JSON for anything else) under one
    top folder, with fixed owners and times so the same files give the same bytes."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as archive:
        for name, content in sorted(files.items()):
            text = content if isinstance(content, str) else json.dumps(content, indent=2)
            data = text.encode()
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size, info.mode, info.mtime = len(data), 0o644, 1_700_000_000
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def _order(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("-")[0].split("."))


class Registry:
    """What it serves: name → version → tarball bytes."""

    def __init__(self) -> None:
        self.packages: dict[str, dict[str, bytes]] = {}
        self.url = ""

    def publish(self, name: str, version: str, files: dict[str, Any]) -> str:
        """Publish ``files`` (``package.json`` gets this name and version unless given);
        returns the tarball's ``dist.integrity``."""
        manifest = {"name": name, "version": version, **files.get("package.json", {})}
        data = tarball({**files, "package.json": manifest})
        self.packages.setdefault(name, {})[version] = data
        return _integrity(data)

    def write_npmrc(self, home: Path) -> None:
        home.mkdir(parents=True, exist_ok=True)
        (home / "npmrc").write_text(f"registry={self.url}/\n")

    def _file_name(self, name: str, version: str) -> str:
        return f"{name.rsplit('/', 1)[-1]}-{version}.tgz"

    def packument(self, name: str) -> dict[str, Any] | None:
        versions = self.packages.get(name)
        if not versions:
            return None
        found = {
            version: {
                "name": name, "version": version,
                "dist": {"tarball": f"{self.url}/{name}/-/{self._file_name(name, version)}",
                         "shasum": hashlib.sha1(data).hexdigest(),
                         "integrity": _integrity(data)},
            }
            for version, data in versions.items()
        }  # fmt: skip
        latest = max(versions, key=_order)
        return {"name": name, "dist-tags": {"latest": latest}, "versions": found}

    def answer(self, path: str) -> bytes:
        path = unquote(path).rstrip("/").lstrip("/")
        if "/-/" in path:
            name, _, file = path.partition("/-/")
            for version, data in self.packages.get(name, {}).items():
                if file == self._file_name(name, version):
                    return data
            return b""
        packument = self.packument(path)
        return json.dumps(packument).encode() if packument is not None else b""


@contextmanager
def serving(registry: Registry) -> Iterator[Registry]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = registry.answer(self.path)
            self.send_response(200 if body else 404)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    registry.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield registry
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()
