"""Compiling what jiti loads of an installed package, so its first start does not.

jiti (the TypeScript loader of Pi and of OpenClaw's plugin loader) keys its compile cache by
file path, and an install is a new path: without this step every first start after an
install compiles the package. The Node sidecar's compile-only mode (``sidecar.mjs
--compile``: ``sidecars/lib/pi/compile.mjs``, ``sidecars/lib/openclaw/compile.mjs``) compiles
every module jiti would compile into the package's cache folder and runs none of its code. It
runs confined the way the package itself will be (read the package, write only its own
folders, no network) where the kernel can, in its own session with the allow-listed
environment, with a time limit. Shared by ``adapters/pi`` and ``adapters/openclaw``.

A failure here never fails the install: the package's first start compiles it instead; the
caller's ``failed`` diagnostic says why.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from adapters._sidecar import sidecar_ready, sidecar_script
from adapters._sidecars import sidecar_dir
from gateway.base import Diagnostic
from gateway.model import CatalogEntry
from gateway.runtime import child_environment, find_node, kill_group
from gateway.sandbox import (
    SandboxError,
    grants_from,
    node_runtime_paths,
    package_dirs,
    package_sandbox,
    spawn_confined,
)

__all__ = ["COMPILE_TIMEOUT", "compile_cache", "run_precompile"]

COMPILE_TIMEOUT = 180.0
"""Seconds for the compile-only run (a large package with TypeScript dependencies on a busy
machine compiles for tens of seconds)."""


def compile_cache(home: Path, package_id: str) -> Path:
    """jiti's compile cache of an installed package: in its private temp folder, which its
    sandbox lets it write (and where jiti would put it anyway, under ``TMPDIR``)."""
    return package_dirs(home, package_id, create=False)[1] / "jiti"


def run_precompile(
    entry: CatalogEntry,
    home: Path,
    spec: dict[str, Any],
    *,
    minimum_node: tuple[int, int, int],
    failed: Callable[[str], Diagnostic],
) -> list[Diagnostic]:
    """Compile the installed package ``entry`` as its sidecar spec ``spec`` (with its
    ``host`` and ``cache``) loads it; ``failed(why)`` is the diagnostic of a failure."""
    host = str(spec.get("host", "pi"))
    node = find_node(minimum_node)
    problem = sidecar_ready(host) or (
        None if node else f"no Node >= {'.'.join(map(str, minimum_node))}"
    )
    if problem is not None or node is None:
        return [failed(f"the Node sidecar cannot run ({problem})")]
    root = Path(entry.root)
    command = [node, str(sidecar_script()), "--compile", json.dumps({"packages": [spec]})]
    sandbox = package_sandbox(
        home=home,
        package_id=entry.id,
        package_root=root,
        workspace=None,
        grants=grants_from(()),
        runtime=[*node_runtime_paths(node), sidecar_dir()],
    )
    try:
        process = spawn_confined(
            command,
            policy=sandbox.policy,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=root,
            env=child_environment(extra=sandbox.environment),
        )
    except (OSError, SandboxError) as error:
        return [failed(f"cannot start Node: {error}")]
    try:
        out, err = process.communicate(timeout=COMPILE_TIMEOUT)
    except subprocess.TimeoutExpired:
        kill_group(process.pid)
        process.communicate()
        return [failed(f"compiling took longer than {COMPILE_TIMEOUT:g} s")]
    return _report(entry, process.returncode, out, err, failed)


def _report(
    entry: CatalogEntry, code: int, out: bytes, err: bytes, failed: Callable[[str], Diagnostic]
) -> list[Diagnostic]:
    try:
        result = json.loads(out.decode(errors="replace").strip().splitlines()[-1])
        found = result["packages"][entry.id]
        names = [str(name) for name in found["failed"]]
    except (ValueError, IndexError, KeyError, TypeError):
        last = err.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        return [failed(f"the compiler exited with {code}: {last[0][:300]}")]
    if names:
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        return [failed(f"{shown} did not compile (they fail to load when it starts)")]
    return []
