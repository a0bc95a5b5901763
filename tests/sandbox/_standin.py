"""A stand-in for the gateway process: the parent a probe attacks.

    python _standin.py SPEC_JSON
    python _standin.py --serve

Like the real gateway it makes itself non-dumpable (unless the spec asks for today's
unconfined gateway) and carries a secret in its environment, then starts the probe —
through ``spawn_confined`` with the given policy and kernel support, or with a bare
``Popen`` — and exits with the probe's exit code. Its output is the probe's.

``--serve`` (what ``conftest.run_probe`` uses): Python starts and imports the sandbox once,
then each spec read from stdin (one JSON line) is run by a fresh forked process — the
stand-in the probe attacks, with its own pid, dumpable flag, capabilities and held file —
and the answer, ``{"code", "stdout", "stderr"}``, is one JSON line on stdout. The processes
stay real, because what is tested is the kernel's: Landlock, seccomp, ptrace and signal
checks between a confined child and its parent hold only for real processes. What the
server saves is Python's start and the sandbox's imports, ~0.16 s of CPU per probe.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import traceback
from pathlib import Path
from typing import Any

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


def stand_in(spec: dict[str, Any]) -> int:
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


def _forked(spec: dict[str, Any]) -> dict[str, Any]:
    """Run ``spec`` in a forked stand-in, its stdout and stderr on pipes read here."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the stand-in: nothing of the server's protocol stays open in it
        code = 1
        try:
            os.close(out_r)
            os.close(err_r)
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.dup2(out_w, 1)
            os.dup2(err_w, 2)
            for fd in (null, out_w, err_w):
                os.close(fd)
            code = stand_in(spec)
        except BaseException:
            traceback.print_exc()  # as an uncaught exception in the script would
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code & 0xFF)
    os.close(out_w)
    os.close(err_w)
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    with selectors.DefaultSelector() as selector:
        for fd in chunks:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            for key, _ in selector.select():
                data = os.read(key.fd, 65536)
                if data:
                    chunks[key.fd].append(data)
                else:
                    selector.unregister(key.fd)
                    os.close(key.fd)
    _, status = os.waitpid(pid, 0)
    text = {fd: b"".join(parts).decode(errors="replace") for fd, parts in chunks.items()}
    return {
        "code": os.waitstatus_to_exitcode(status),
        "stdout": text[out_r],
        "stderr": text[err_r],
    }


def serve() -> None:
    """One spec per line on stdin, one answer per line on stdout, until stdin closes. The
    server itself starts no thread: each stand-in is forked from a single-threaded process."""
    for line in sys.stdin:
        if line.strip():
            sys.stdout.write(json.dumps(_forked(json.loads(line))) + "\n")
            sys.stdout.flush()


def main() -> int:
    if sys.argv[1] == "--serve":
        serve()
        return 0
    return stand_in(json.loads(sys.argv[1]))


if __name__ == "__main__":
    sys.exit(main())
