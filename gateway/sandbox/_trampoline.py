"""The first program of a child whose namespaces the gateway cannot make itself (no
``CAP_SYS_ADMIN``): run as a script (``python -I -S _trampoline.py SPEC PROGRAM ARGS…``),
single-threaded, so it may make a user namespace. It makes its namespaces
(``_mounts.enter_namespaces``: the protected paths bound read-only, the private
``/tmp``, the network namespace with the egress listener, which it sends back to the
gateway), then confines itself exactly as the confining thread does for any other child
— capabilities dropped, ``no_new_privs``, the Landlock domain of the ruleset it was
handed (an inherited descriptor), the seccomp filter — and execs the program. Nothing of
the package runs before. A failure is said on stderr and the exit code is 126 (127: the
program is not there), as a shell says it.

SPEC (JSON): ``root`` (where ``gateway`` is imported from), ``plan`` (a
``NamespacePlan``), ``user_namespace``, ``listener_to`` (the socket to send the egress
listener over; -1: none), ``ruleset_fd`` (-1: none), ``seccomp`` (the filter, hex; empty:
none), ``drop_capabilities``; with protected names guarded (``_guard``), ``guard`` (a
``GuardPlan``), ``guard_seccomp`` (the filter that hands name-changing calls over) and
``report_to`` (the socket refusals are reported on): the trampoline then stays, as the
program's supervisor (``_supervisor``). ``hold``: stop before anything else, for the
gateway to set the limits (a child whose environment no shell gate can carry).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys


def main(argv: list[str]) -> int:
    spec = json.loads(argv[1])
    program = argv[2:]
    sys.path.insert(0, spec["root"])

    if spec.get("hold"):
        os.kill(os.getpid(), signal.SIGSTOP)  # the gateway sets the limits, then continues it

    # Standard library only beneath these (``_confining`` says why): each import here is
    # paid at every start of a supervised or namespaced child.
    from gateway.sandbox._confining import (
        drop_capabilities,
        install_filter,
        restrict_self,
        set_no_new_privs,
    )
    from gateway.sandbox._mounts import enter_namespaces

    if spec.get("guard"):  # imported now: Landlock may not let it read them later
        from gateway.sandbox._guard import GuardPlan
        from gateway.sandbox._supervisor import run_supervised

    try:
        listener = enter_namespaces(spec["plan"], user_namespace=spec["user_namespace"])
        if spec["listener_to"] >= 0:
            with socket.socket(fileno=spec["listener_to"]) as channel:
                if listener is not None:
                    socket.send_fds(channel, [b"L"], [listener])
                    os.close(listener)
        if spec["drop_capabilities"]:
            drop_capabilities()
        set_no_new_privs()
        if spec["ruleset_fd"] >= 0:
            restrict_self(spec["ruleset_fd"])
            os.close(spec["ruleset_fd"])
        if spec["seccomp"] and not spec.get("guard"):
            install_filter(bytes.fromhex(spec["seccomp"]))
    except OSError as error:
        sys.stderr.write(f"gateway sandbox: cannot confine {program[0]}: {error}\n")
        return 126
    if spec.get("guard"):
        return run_supervised(
            program,
            GuardPlan.from_json(spec["guard"]),
            bytes.fromhex(spec["guard_seccomp"]),
            bytes.fromhex(spec["seccomp"]),
            spec.get("report_to", -1),
        )
    try:
        os.execvpe(program[0], program, os.environ)
    except FileNotFoundError as error:
        sys.stderr.write(f"gateway sandbox: {program[0]}: {error.strerror}\n")
        return 127
    except OSError as error:
        sys.stderr.write(f"gateway sandbox: {program[0]}: {error.strerror}\n")
        return 126
    return 126  # not reached: exec replaces this process


if __name__ == "__main__":
    sys.exit(main(sys.argv))
