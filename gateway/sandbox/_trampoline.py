"""The first program of a child whose protected paths need a user namespace: run as a
script (``python -I -S _trampoline.py SPEC PROGRAM ARGS…``), single-threaded, so it may
make one. It makes its user and mount namespaces, binds the protected paths read-only
(``_protected.mount_read_only``), then confines itself exactly as the confining thread does
for any other child — capabilities dropped, ``no_new_privs``, the Landlock domain of the
ruleset it was handed (an inherited descriptor), the seccomp filter — and execs the
program. Nothing of the package runs before. A failure is said on stderr and the exit code
is 126 (127: the program is not there), as a shell says it.

SPEC (JSON): ``root`` (where ``gateway`` is imported from), ``read_only``, ``reopened``,
``ruleset_fd`` (-1: none), ``seccomp`` (the filter, hex; empty: none),
``drop_capabilities``.
"""

from __future__ import annotations

import json
import os
import sys


def main(argv: list[str]) -> int:
    spec = json.loads(argv[1])
    program = argv[2:]
    sys.path.insert(0, spec["root"])
    from pathlib import Path

    from gateway.sandbox._landlock import restrict_self_fd
    from gateway.sandbox._privileges import drop_capabilities, set_no_new_privs
    from gateway.sandbox._protected import mount_read_only
    from gateway.sandbox._seccomp import install_filter

    try:
        mount_read_only(
            [Path(p) for p in spec["read_only"]],
            [Path(p) for p in spec["reopened"]],
            user_namespace=True,
        )
        if spec["drop_capabilities"]:
            drop_capabilities()
        set_no_new_privs()
        if spec["ruleset_fd"] >= 0:
            restrict_self_fd(spec["ruleset_fd"])
            os.close(spec["ruleset_fd"])
        if spec["seccomp"]:
            install_filter(bytes.fromhex(spec["seccomp"]))
    except OSError as error:
        sys.stderr.write(f"gateway sandbox: cannot confine {program[0]}: {error}\n")
        return 126
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
