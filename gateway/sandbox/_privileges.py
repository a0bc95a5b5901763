"""Process privileges through ``prctl`` and ``capset``: no_new_privs, capabilities,
dumpable, child subreaper.

``no_new_privs`` and capabilities belong to a thread, so the spawning thread drops them for
the child it is about to fork while the gateway's other threads keep theirs. ``dumpable``
and the subreaper flag belong to the whole process: they are for the gateway itself.

The raw ``capset``/``prctl`` calls matter: glibc's ``setuid`` family would broadcast a
change to every thread of the process, these do not.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

from gateway.base import GatewayError
from gateway.sandbox import _confining

__all__ = [
    "CapabilityDrop",
    "PrivilegeError",
    "become_subreaper",
    "drop_capabilities",
    "is_dumpable",
    "is_subreaper",
    "make_undumpable",
    "no_new_privs",
    "set_no_new_privs",
]

_PR_GET_DUMPABLE = 3
_PR_SET_DUMPABLE = 4
_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37
_PR_GET_NO_NEW_PRIVS = 39


class PrivilegeError(GatewayError, OSError):
    """A prctl or capset call failed."""


def _libc() -> ctypes.CDLL | None:
    try:
        return _confining.libc()
    except OSError:
        return None


def _prctl(option: int, *args: int) -> int:
    try:
        return _confining.prctl(option, *args)
    except OSError as error:
        raise PrivilegeError(error.errno, error.strerror) from None


def set_no_new_privs() -> None:
    """execve on this thread (and its children) can never gain privileges again: no
    setuid bits, no file capabilities. Needed before Landlock and seccomp without
    CAP_SYS_ADMIN."""
    try:
        _confining.set_no_new_privs()
    except OSError as error:
        raise PrivilegeError(error.errno, error.strerror) from None


def no_new_privs() -> bool:
    return _prctl(_PR_GET_NO_NEW_PRIVS) == 1


def make_undumpable() -> bool:
    """Make the gateway process non-dumpable, as ssh-agent does: processes of the same
    user can no longer read its ``/proc/<pid>/environ``, ``mem`` or ``maps`` (nor attach a
    debugger) unless they hold CAP_SYS_PTRACE, and it writes no core dumps. False where
    the platform has no ``prctl``."""
    try:
        _prctl(_PR_SET_DUMPABLE, 0)
    except PrivilegeError:
        return False
    return True


def is_dumpable() -> bool:
    return _prctl(_PR_GET_DUMPABLE) != 0


def become_subreaper() -> bool:
    """Orphaned descendants (a grandchild whose parent exited, or one that called
    ``setsid()``) are re-parented to this process instead of init, so the gateway can
    still find and kill them. False where unsupported."""
    try:
        _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    except PrivilegeError:
        return False
    return True


def is_subreaper() -> bool:
    value = ctypes.c_int(0)
    libc = _libc()
    if libc is None:
        return False
    if libc.prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(value), 0, 0, 0) != 0:
        return False
    return value.value == 1


@dataclass(frozen=True, slots=True)
class CapabilityDrop:
    """What :func:`drop_capabilities` managed on this thread."""

    bounding_set: bool
    """The bounding set was emptied (needs CAP_SETPCAP: true for root, false otherwise,
    where it matters less: no_new_privs already stops setuid programs)."""
    ambient: bool


def drop_capabilities() -> CapabilityDrop:
    """Empty this thread's capability sets: bounding (where permitted), ambient, then
    effective, permitted and inheritable. With no_new_privs, an ``execve`` — even of a
    program run by root — then starts with no capabilities at all.

    Raises ``PrivilegeError`` only when the last step fails (it cannot, short of a
    kernel without capabilities)."""
    try:
        bounding, ambient = _confining.drop_capabilities()
    except OSError as error:
        raise PrivilegeError(error.errno, error.strerror) from None
    return CapabilityDrop(bounding, ambient)
