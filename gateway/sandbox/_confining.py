"""The calls that confine the calling thread, as one implementation for both places that
make them: the confining thread in the gateway (``Confinement.apply``) and the trampoline
(``_trampoline``) — Landlock's ``restrict_self``, ``no_new_privs``, the capability drop and
a seccomp filter.

The trampoline starts a Python for every supervised child, so this module (like the rest
of what the trampoline imports: ``_mounts``, ``_netns``, ``_guard``, ``_supervisor``,
``_emulate``, ``_notify``) imports only ``ctypes`` and ``os`` from the standard library:
no ``dataclasses``, ``typing``, ``enum`` or ``pathlib``, which would cost each start more
than everything it does (``tests/sandbox/test_trampoline_imports.py``). A failure is a plain
``OSError``; ``_landlock``, ``_privileges`` and ``_seccomp`` raise their own kinds of it.
"""

from __future__ import annotations

import ctypes
import os
import sys

__all__ = ["drop_capabilities", "install_filter", "prctl", "restrict_self", "set_no_new_privs"]

# The syscall number is the same on every architecture (the unified table, Linux 5.13).
_SYS_LANDLOCK_RESTRICT_SELF = 446
_PR_SET_SECCOMP = 22
_PR_CAPBSET_DROP = 24
_PR_SET_NO_NEW_PRIVS = 38
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_SECCOMP_MODE_FILTER = 2
_CAPABILITY_VERSION_3 = 0x20080522

_LIBC: ctypes.CDLL | None = None
_LAST_CAPABILITY: int | None = None


def libc() -> ctypes.CDLL:
    """The C library this process already has (``OSError`` ENOSYS where it is not Linux)."""
    global _LIBC
    if _LIBC is None:
        if not sys.platform.startswith("linux"):
            raise OSError(38, "needs Linux")  # ENOSYS
        found = ctypes.CDLL(None, use_errno=True)
        found.syscall.restype = ctypes.c_long
        _LIBC = found
    return _LIBC


def _failed() -> OSError:
    code = ctypes.get_errno()
    return OSError(code, os.strerror(code))


def prctl(option: int, *args: int) -> int:
    padded = [ctypes.c_ulong(a) for a in (*args, 0, 0, 0, 0)[:4]]
    result = int(libc().prctl(ctypes.c_int(option), *padded))
    if result < 0:
        raise _failed()
    return result


def restrict_self(ruleset_fd: int) -> None:
    """Enter the Landlock domain of the ruleset ``ruleset_fd`` (after ``no_new_privs``)."""
    if int(libc().syscall(ctypes.c_long(_SYS_LANDLOCK_RESTRICT_SELF), ruleset_fd, 0)) < 0:
        raise _failed()


def set_no_new_privs() -> None:
    """execve on this thread (and its children) can never gain privileges again: no
    setuid bits, no file capabilities. Needed before Landlock and seccomp without
    CAP_SYS_ADMIN."""
    prctl(_PR_SET_NO_NEW_PRIVS, 1)


class _CapHeader(ctypes.Structure):
    _fields_ = (("version", ctypes.c_uint32), ("pid", ctypes.c_int))


class _CapData(ctypes.Structure):
    _fields_ = (
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    )


def _last_capability() -> int:
    global _LAST_CAPABILITY
    if _LAST_CAPABILITY is None:
        try:
            with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as handle:
                _LAST_CAPABILITY = int(handle.read())
        except (OSError, ValueError):
            _LAST_CAPABILITY = 63
    return _LAST_CAPABILITY


def drop_capabilities() -> tuple[bool, bool]:
    """Empty this thread's capability sets: bounding (where permitted), ambient, then
    effective, permitted and inheritable; (bounding set emptied, ambient set cleared).
    ``OSError`` only when the last step fails."""
    c = libc()
    bounding = True
    for capability in range(_last_capability() + 1):
        # Dropping one already dropped is fine; reading first would double the syscalls.
        if c.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            bounding = False  # EPERM without CAP_SETPCAP
            break
    try:
        prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL)
        ambient = True
    except OSError:
        ambient = False  # kernels before 4.3 have no ambient set
    header = _CapHeader(_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()  # all zero: the 64 capabilities in two 32-bit halves
    if c.capset(ctypes.byref(header), data) != 0:
        raise _failed()
    return bounding, ambient


class _SockFprog(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))


def install_filter(program: bytes) -> None:
    """Install the seccomp filter ``program`` on the calling thread; needs no_new_privs
    (or CAP_SYS_ADMIN)."""
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    result = libc().prctl(
        _PR_SET_SECCOMP, ctypes.c_ulong(_SECCOMP_MODE_FILTER), ctypes.byref(fprog), 0, 0
    )
    if result != 0:
        raise _failed()
