"""Compiling a Pi package's TypeScript when it is installed, so its first start does not.

jiti (pi's TypeScript loader) keys its compile cache by file path, and an install is a new
path: without this step every first start after an install compiles the package (and loads
jiti's Babel: +125 to 190 ms, +14 MB). The Node sidecar's compile-only mode
(``sidecar.mjs --compile``, ``sidecars/lib/pi/compile.mjs``) compiles every module jiti would
compile into the package's cache folder and runs none of its code. It runs confined the way
the package itself will be (read the package, write only its own folders, no network) where
the kernel can, in its own session with the allow-listed environment, with a time limit.

A failure here never fails the install: the package's first start compiles it instead, and
a ``pi.precompile_failed`` warning says why.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from adapters._sidecar import sidecar_script
from adapters._sidecars import sidecar_dir
from adapters.pi import _codes as codes
from adapters.pi._launch import MIN_NODE, find_node, pi_package_spec, sidecar_ready
from gateway.base import Diagnostic
from gateway.model import CatalogEntry
from gateway.runtime import child_environment, kill_group
from gateway.sandbox import (
    SandboxError,
    grants_from,
    node_runtime_paths,
    package_dirs,
    package_sandbox,
    spawn_confined,
)

__all__ = ["COMPILE_TIMEOUT", "compile_cache", "precompile"]

COMPILE_TIMEOUT = 180.0
"""Seconds for the compile-only run (a large package with TypeScript dependencies on a busy
machine compiles for tens of seconds)."""


def compile_cache(home: Path, package_id: str) -> Path:
    """jiti's compile cache of an installed package: in its private temp folder, which its
    sandbox lets it write (and where jiti would put it anyway, under ``TMPDIR``)."""
    return package_dirs(home, package_id, create=False)[1] / "jiti"


def precompile(entry: CatalogEntry, home: Path) -> list[Diagnostic]:
    """Compile the installed package ``entry`` (rooted at its installed folder)."""
    if entry.runtime != "node-sidecar" or not entry.entries:
        return []
    node = find_node(MIN_NODE)
    problem = sidecar_ready() or (None if node else "no Node >= 22.19")
    if problem is not None or node is None:
        return [_failed(entry, f"the Node sidecar cannot run ({problem})")]
    root = Path(entry.root)
    spec = pi_package_spec(entry.id, root, entry.entries, compile_cache(home, entry.id))
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
        return [_failed(entry, f"cannot start Node: {error}")]
    try:
        out, err = process.communicate(timeout=COMPILE_TIMEOUT)
    except subprocess.TimeoutExpired:
        kill_group(process.pid)
        process.communicate()
        return [_failed(entry, f"compiling took longer than {COMPILE_TIMEOUT:g} s")]
    return _report(entry, process.returncode, out, err)


def _report(entry: CatalogEntry, code: int, out: bytes, err: bytes) -> list[Diagnostic]:
    try:
        result = json.loads(out.decode(errors="replace").strip().splitlines()[-1])
        found = result["packages"][entry.id]
        failed = [str(name) for name in found["failed"]]
    except (ValueError, IndexError, KeyError, TypeError):
        last = err.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        return [_failed(entry, f"the compiler exited with {code}: {last[0][:300]}")]
    if failed:
        shown = ", ".join(failed[:5]) + (f" and {len(failed) - 5} more" if len(failed) > 5 else "")
        return [_failed(entry, f"{shown} did not compile (they fail to load when it starts)")]
    return []


def _failed(entry: CatalogEntry, why: str) -> Diagnostic:
    return codes.PI_PRECOMPILE_FAILED(
        f"{entry.id}: its TypeScript was not compiled at install: {why}; its first start "
        "compiles it",
        package=entry.id,
    )
