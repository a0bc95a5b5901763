"""A stand-in for the gateway process: the parent a probe attacks.

    python _standin.py SPEC_JSON

Like the real gateway it makes itself non-dumpable (unless the spec asks for today's
unconfined gateway) and carries a secret in its environment, then starts the probe —
through ``spawn_confined`` with the given policy and kernel support, or with a bare
``Popen`` — and exits with the probe's exit code. Its output is the probe's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from gateway.sandbox import (
    KernelSupport,
    NetworkAccess,
    SandboxPolicy,
    make_undumpable,
    spawn_confined,
)
from gateway.sandbox._privileges import drop_capabilities

HELD_FD = 100


def _ports(value: bool | list[int]) -> bool | frozenset[int]:
    return value if isinstance(value, bool) else frozenset(value)


def policy_from(data: dict) -> SandboxPolicy:
    return SandboxPolicy(
        read=tuple(Path(p) for p in data["read"]),
        execute=tuple(Path(p) for p in data["execute"]),
        write=tuple(Path(p) for p in data["write"]),
        network=NetworkAccess(
            connect=_ports(data["network"]["connect"]), bind=_ports(data["network"]["bind"])
        ),
        unix_sockets=data["unix_sockets"],
        scope_signals=data["scope_signals"],
        scope_abstract_unix=data["scope_abstract_unix"],
        drop_capabilities=data["drop_capabilities"],
        anonymous_exec=data["anonymous_exec"],
    )


def main() -> int:
    spec = json.loads(sys.argv[1])
    if spec.get("without_capabilities"):
        # A gateway run by an ordinary user holds no capabilities (this one may be root).
        drop_capabilities()
    if spec["undumpable"]:
        assert make_undumpable()
    if spec.get("hold"):
        # A secret file the gateway keeps open, reachable as /proc/<gateway>/fd/100.
        held = os.open(spec["hold"], os.O_RDONLY)
        os.dup2(held, HELD_FD, inheritable=False)
    if spec["policy"] is None:
        child = subprocess.Popen(spec["argv"], cwd=spec["cwd"], env=spec["env"])
    else:
        support = KernelSupport(**spec["support"]) if spec["support"] else None
        child = spawn_confined(
            spec["argv"],
            policy=policy_from(spec["policy"]),
            cwd=spec["cwd"],
            env=spec["env"],
            support=support,
        )
    return child.wait()


if __name__ == "__main__":
    sys.exit(main())
