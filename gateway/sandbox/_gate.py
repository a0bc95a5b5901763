"""Holding a child between its start and its program, so its limits are in place first.

Rlimits belong to a whole process and a cgroup v2 takes whole processes, so neither can be
set on the confining thread the way Landlock and seccomp are; set on the child after it
started, they would come after the program's first instructions — a native program can fork
before the gateway moves it into its cgroup, and that fork would run unlimited. So a child
with limits starts as ``/bin/sh -c 'kill -STOP $$; exec "$@"'``: the shell stops itself,
the gateway (seeing the stop with ``waitid``, without reaping) sets the limits on that pid
and moves it into its cgroup, then continues it, and the shell becomes the program, with
everything inherited. Nothing of the package runs before. (Not the trampoline's own
``hold`` where a shell would do: the spawn waits for the stop on the caller's thread — the
event loop — and a shell stops within a millisecond, a Python only after its start.)

``Popen`` reports a program that is missing or may not run by raising; here it starts the
shell, so ``check_program`` makes the same checks first, on the confining thread: the
lookup along ``PATH``, and ``execveat(AT_EXECVE_CHECK)`` (Linux 6.14), which asks the kernel
— Landlock included — whether the exec would be allowed, without making it. On an older
kernel a program the sandbox does not let run is the shell's exit 126 instead.

A shell passes on only variables named like identifiers. An environment with another name
(npm's ``npm_config_//host/:_authToken``) starts behind the trampoline's own ``hold``
instead (``_spawn``): a Python start holds the event loop ~20-40 ms longer than a shell,
for these children only, rather than lose the variable or let the program run before its
limits.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import platform
import re
import shlex
import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

__all__ = [
    "GATE_SHELL",
    "can_gate",
    "check_program",
    "gated",
    "own_filesystem_context",
    "release",
]

GATE_SHELL = "/bin/sh"
_SCRIPT = 'kill -STOP "$$"; {restore}exec "$@"'
_AT_FDCWD = -100
_AT_EXECVE_CHECK = 0x10000
_EXECVEAT = {"x86_64": 322, "aarch64": 281}
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_SHELL_OWNED = ("PWD", "OPTIND", "PPID", "IFS")
"""Variables a POSIX shell sets itself and exports when given: put back as given."""


def can_gate(env: Mapping[str, str] | None) -> bool:
    """A shell passes on only variables whose names are identifiers (it drops, e.g., npm's
    ``npm_config_//registry.example/:_authToken``): with any other name the program must
    start without the gate, so that its environment stays whole."""
    given = os.environ if env is None else env
    return all(_IDENTIFIER.match(name) for name in given)


def gated(argv: Sequence[str], env: Mapping[str, str] | None) -> list[str]:
    """``argv`` behind the gate, its environment as given: the shell's own variables
    (``PWD``, ``OPTIND``, ``PPID``, ``IFS``) are put back, or ``PWD`` removed."""
    given = os.environ if env is None else env
    restore = [f"{n}={shlex.quote(given[n])}; export {n}; " for n in _SHELL_OWNED if n in given]
    if "PWD" not in given:
        restore.append("unset PWD; ")
    script = _SCRIPT.format(restore="".join(restore))
    return [GATE_SHELL, "-c", script, "gateway-gate", *argv]


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _exec_check(path: str) -> int:
    """0 when the kernel would execute ``path``; an errno otherwise; -1 when it cannot say
    (a kernel before AT_EXECVE_CHECK, an unknown architecture)."""
    number = _EXECVEAT.get(platform.machine())
    if number is None:
        return -1
    argv = (ctypes.c_char_p * 2)(os.fsencode(path), None)
    envp = (ctypes.c_char_p * 1)(None)
    result = _libc().syscall(
        ctypes.c_long(number), ctypes.c_int(_AT_FDCWD), ctypes.c_char_p(os.fsencode(path)),
        argv, envp, ctypes.c_int(_AT_EXECVE_CHECK),
    )  # fmt: skip
    if result == 0:
        return 0
    code = ctypes.get_errno()
    return -1 if code in (errno.EINVAL, errno.ENOSYS) else code


def _candidates(program: str, env: Mapping[str, str] | None, cwd: str | None) -> list[str]:
    if os.path.dirname(program):
        return [os.path.join(cwd, program) if cwd else program]
    return [os.path.join(folder, program) for folder in os.get_exec_path(env)]


_CLONE_FS = 0x200


def own_filesystem_context() -> None:
    """Give the calling thread its own ``fs_struct`` (cwd, root, umask) instead of the one
    the process's threads share. An ``execve`` — ``AT_EXECVE_CHECK`` included — marks the
    ``fs_struct`` it runs on ``in_exec``, and while it is, every other thread sharing it
    fails to create a thread (``clone(CLONE_FS)``: ``EAGAIN``, Python's "can't start new
    thread"). The confining thread calls this before ``check_program``; it ends right after
    the spawn, and the child inherits the same cwd either way. Raises ``OSError``."""
    if _libc().unshare(ctypes.c_int(_CLONE_FS)) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))


def check_program(program: str, env: Mapping[str, str] | None, cwd: Path | str | None) -> None:
    """Raise what ``Popen`` would for ``program``: ``FileNotFoundError`` when no candidate
    exists, ``PermissionError`` (or the errno) when the kernel would refuse the exec. Runs on
    the confining thread, so the kernel answers for the child's sandbox."""
    failure = 0
    for candidate in _candidates(program, env, os.fspath(cwd) if cwd is not None else None):
        if not os.path.exists(candidate):
            continue
        code = _exec_check(candidate)
        if code == -1:  # the kernel cannot say: the mode bits, as far as they go
            runnable = os.access(candidate, os.X_OK) and os.path.isfile(candidate)
            code = 0 if runnable else errno.EACCES
        if code == 0:
            return
        failure = failure or code
    code = failure or errno.ENOENT
    raise OSError(code, os.strerror(code), program)


def release(process: subprocess.Popen[bytes], prepare: Callable[[int], None]) -> None:
    """Wait for the gate to stop, ``prepare(pid)`` (limits, cgroup), then let it run its
    program. When ``prepare`` raises, the child is killed before it ran anything."""
    try:
        stopped = os.waitid(os.P_PID, process.pid, os.WSTOPPED | os.WEXITED | os.WNOWAIT)
        if stopped is None or stopped.si_code != os.CLD_STOPPED:
            return  # it died before its program; its exit status says why
        prepare(process.pid)
    except ChildProcessError:
        return  # reaped already: nothing to hold
    except BaseException:  # a failed prepare, or an interrupt: it must not stay held
        process.kill()
        process.wait()
        raise
    os.kill(process.pid, signal.SIGCONT)
