"""Nu packages for the runtime tests (synthetic: no public Nu implementation exists), and
the steps every test takes with them: install through the gateway (which bundles the
tools), pass the gates, open a gateway.

``standup`` is the realistic fixture (tests/nu/fixtures/standup): tools sharing code and an
npm dependency (``ms``, packed from the npm registry as tests/nu/fixtures/npm/ms-2.1.3.tgz, so
no test needs the network), a skill, an extension with every hook and a watcher, a policy,
a secret, settings, client commands and client tools. ``probe_package`` writes a package of
small tools and extension modules from strings, for one rule each.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from adapters._sidecar import sidecar_ready
from adapters.nu._bundle import bundler_problem
from adapters.nu._runner import tool_node
from gateway import GatewayConfig
from gateway.packages import install, load_adapters
from gateway.sandbox import SANDBOX_PERMISSIONS, package_dirs
from gateway.store import StateStore
from tests._cli_inprocess import run_gateway
from tests.adapters._helpers import write_tree

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
STANDUP = FIXTURES / "standup"
MS_TARBALL = FIXTURES / "npm" / "ms-2.1.3.tgz"
REPO = HERE.parent.parent

_problem = sidecar_ready("nu") or bundler_problem() or (None if tool_node() else "no Node >= 22.19")
requires_runtime = pytest.mark.skipif(
    _problem is not None, reason=f"Nu runtime not available: {_problem}"
)


def add_ms(package: Path) -> Path:
    """Unpack the packed ``ms`` into the package's node_modules (as `npm install` would)."""
    target = package / "node_modules" / "ms"
    target.mkdir(parents=True)
    with tarfile.open(MS_TARBALL) as archive:
        for member in archive.getmembers():
            if member.isfile() and member.name.startswith("package/"):
                member.name = member.name.removeprefix("package/")
                archive.extract(member, target, filter="data")
    return package


def standup(dest: Path) -> Path:
    """A copy of the realistic fixture with its npm dependency installed."""
    shutil.copytree(STANDUP, dest)
    return add_ms(dest)


def probe_package(
    dest: Path,
    tools: dict[str, str] | None = None,
    *,
    tool_yaml: dict[str, dict[str, Any]] | None = None,
    extensions: dict[str, str] | None = None,
    nu: dict[str, Any] | None = None,
    files: dict[str, object] | None = None,
    name: str = "nu-probe",
    version: str = "1.0.0",
) -> Path:
    """A package in namespace ``probe``: each tool ``probe__<key>`` with the JavaScript
    module ``code`` (``tool_yaml[key]`` adds or replaces tool.yaml fields); each extension
    ``src/<key>.mjs``."""
    tree: dict[str, object] = dict(files or {})
    for key, code in (tools or {}).items():
        manifest = {
            "name": f"probe__{key}",
            "version": 1,
            "description": f"probe {key}",
            "args_schema": {"type": "object"},
            "idempotency": "safe_to_retry",
            "entry": "index.mjs",
            **(tool_yaml or {}).get(key, {}),
        }
        tree[f"tools/{key}/tool.yaml"] = json.dumps(manifest)  # JSON is YAML
        tree[f"tools/{key}/index.mjs"] = code
    for key, code in (extensions or {}).items():
        tree[f"src/{key}.mjs"] = code
    manifest_nu: dict[str, Any] = {"namespace": "probe", "tools": ["tools/*/tool.yaml"]}
    if extensions:
        manifest_nu["extensions"] = [f"src/{key}.mjs" for key in extensions]
    manifest_nu.update(nu or {})
    tree["package.json"] = {"name": name, "version": version, "type": "module", "nu": manifest_nu}
    return write_tree(dest, tree)


def install_ready(home: Path, source: Path, *, network: bool = True) -> str:
    """``gateway install`` (bundling included), then trust and enable; the package id.

    ``network`` grants the sandbox's ``network`` permission (``gateway permissions ID
    network``): most of these tools ``fetch`` the test's local HTTP endpoint (Recorder),
    which the sandbox refuses an ungranted package."""
    report = install(home, str(source), kind="local", inspector=load_adapters().inspect)
    package_id = report.package.record.id
    with StateStore.open(home) as store:
        store.set_trusted(package_id, True)
        store.set_enabled(package_id, True)
        if network:
            store.grant(package_id, ["network"], SANDBOX_PERMISSIONS)
    return package_id


def data_folder(home: Path, package_id: str) -> Path:
    """The package's own data folder (``GATEWAY_DATA_DIR``): the one place outside its
    temporary folder where the sandbox lets its code write."""
    return package_dirs(home, package_id)[0]


def config_for(home: Path, user_home: Path) -> GatewayConfig:
    return GatewayConfig(home=home, user_home=user_home, shutdown_grace=0.3, term_grace=0.5)


def codes(gateway: Any) -> list[str]:
    return [d.code for d in gateway.diagnostics]


def messages(gateway: Any, code: str) -> list[str]:
    return [d.message for d in gateway.diagnostics if d.code == code]


def cli(home: Path, *args: str, stdin: str | None = None, cwd: Path | None = None) -> Any:
    """``gateway ARGS`` in this process (tests/_cli_inprocess.py), GATEWAY_HOME and HOME in
    the test's folder; the sidecars and runtimes it starts are real processes."""
    return run_gateway(home, *args, stdin=stdin, cwd=cwd)


def cli_process(home: Path, *args: str, stdin: str | None = None, cwd: Path | None = None) -> Any:
    """``gateway ARGS`` in a real subprocess, GATEWAY_HOME and HOME in the test's folder:
    where another process is the point (a running gateway sees what it changed)."""
    user = home.parent
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    env.update(GATEWAY_HOME=str(home), HOME=str(user))
    return subprocess.run(
        [sys.executable, "-m", "gateway", *args],
        capture_output=True, text=True, env=env, cwd=cwd or user, timeout=300, input=stdin,
    )  # fmt: skip


def cli_json(home: Path, *args: str, stdin: str | None = None, code: int = 0) -> Any:
    done = cli(home, *args, "--json", stdin=stdin)
    assert done.returncode == code, (done.stdout, done.stderr)
    return json.loads(done.stdout)


class Recorder:
    """A local HTTP endpoint tools reach with ``fetch``: it records each request and answers
    with the next of ``replies`` (the last one repeats); ``hold`` keeps a request open until
    released, so a test knows a call is in the middle of running."""

    def __init__(self, replies: list[Any] | None = None) -> None:
        self.requests: list[dict[str, Any]] = []
        self.replies = list(replies or [{"id": "m1"}])
        self.arrived = threading.Event()
        self.release = threading.Event()
        self.hold = False
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                size = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(size).decode() if size else ""
                recorder.requests.append(
                    {
                        "path": self.path,
                        "body": body,
                        "authorization": self.headers.get("authorization"),
                    }
                )
                recorder.arrived.set()
                if recorder.hold:
                    recorder.release.wait(60)
                index = min(len(recorder.requests), len(recorder.replies)) - 1
                data = json.dumps(recorder.replies[index]).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _serve

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> Recorder:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self._server.shutdown()
        self._server.server_close()


@contextmanager
def listening() -> Iterator[socket.socket]:
    """A bound, listening TCP socket on localhost (closed after)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    try:
        yield sock
    finally:
        sock.close()


__all__ = [
    "REPO",
    "STANDUP",
    "Recorder",
    "add_ms",
    "cli",
    "cli_json",
    "cli_process",
    "codes",
    "config_for",
    "data_folder",
    "install_ready",
    "messages",
    "probe_package",
    "requires_runtime",
    "standup",
]
