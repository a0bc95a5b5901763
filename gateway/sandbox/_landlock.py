"""A ctypes binding of Linux Landlock: ``landlock_create_ruleset``, ``landlock_add_rule`` and
``landlock_restrict_self``, with the access rights of each ABI version.

Only what the gateway needs: path-beneath rules, TCP port rules (ABI 4) and scoping of
signals and abstract Unix sockets (ABI 6). A ruleset is built in the gateway, where paths
are opened (``O_PATH``) and checked; ``restrict_self`` is then called on the thread that
spawns the child, so the domain applies to that thread and everything it forks, never to
the gateway's other threads.
"""

from __future__ import annotations

import ctypes
import enum
import os
import stat
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from gateway.base import GatewayError
from gateway.sandbox import _confining

__all__ = [
    "FS_READ",
    "FS_READ_EXECUTE",
    "FS_READ_WRITE",
    "AccessFs",
    "AccessNet",
    "LandlockError",
    "Ruleset",
    "Scope",
    "abi_version",
    "fs_rights",
    "probe_abi",
    "restrict_self",
]

# The syscall numbers are the same on every architecture (the unified table, Linux 5.13).
_SYS_CREATE_RULESET = 444
_SYS_ADD_RULE = 445
_CREATE_RULESET_VERSION = 1 << 0
_RULE_PATH_BENEATH = 1
_RULE_NET_PORT = 2


class AccessFs(enum.IntFlag):
    EXECUTE = 1 << 0
    WRITE_FILE = 1 << 1
    READ_FILE = 1 << 2
    READ_DIR = 1 << 3
    REMOVE_DIR = 1 << 4
    REMOVE_FILE = 1 << 5
    MAKE_CHAR = 1 << 6
    MAKE_DIR = 1 << 7
    MAKE_REG = 1 << 8
    MAKE_SOCK = 1 << 9
    MAKE_FIFO = 1 << 10
    MAKE_BLOCK = 1 << 11
    MAKE_SYM = 1 << 12
    REFER = 1 << 13  # ABI 2
    TRUNCATE = 1 << 14  # ABI 3
    IOCTL_DEV = 1 << 15  # ABI 5


class AccessNet(enum.IntFlag):
    BIND_TCP = 1 << 0  # ABI 4
    CONNECT_TCP = 1 << 1


class Scope(enum.IntFlag):
    ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
    SIGNAL = 1 << 1


_NO_NET = AccessNet(0)
_NO_SCOPE = Scope(0)
_FS_BY_ABI: dict[int, AccessFs] = {
    1: AccessFs((1 << 13) - 1),
    2: AccessFs((1 << 14) - 1),
    3: AccessFs((1 << 15) - 1),
    4: AccessFs((1 << 15) - 1),
    5: AccessFs((1 << 16) - 1),
}
# Rights that make sense on a file (the kernel refuses the others in a rule on a file).
_FILE_RIGHTS = (
    AccessFs.EXECUTE
    | AccessFs.WRITE_FILE
    | AccessFs.READ_FILE
    | AccessFs.TRUNCATE
    | AccessFs.IOCTL_DEV
)

FS_READ = AccessFs.READ_FILE | AccessFs.READ_DIR
FS_READ_EXECUTE = FS_READ | AccessFs.EXECUTE
FS_READ_WRITE = (
    FS_READ
    | AccessFs.WRITE_FILE
    | AccessFs.REMOVE_DIR
    | AccessFs.REMOVE_FILE
    | AccessFs.MAKE_DIR
    | AccessFs.MAKE_REG
    | AccessFs.MAKE_SOCK
    | AccessFs.MAKE_FIFO
    | AccessFs.MAKE_SYM
    | AccessFs.REFER
    | AccessFs.TRUNCATE
)
"""Everything but execute and device nodes: a writable folder holds data, not programs."""


class LandlockError(GatewayError, OSError):
    """A Landlock syscall failed; the errno says why (EOPNOTSUPP: disabled at boot)."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),  # ABI 4
        ("scoped", ctypes.c_uint64),  # ABI 6
    )


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # the kernel's struct is __attribute__((packed))
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


class _NetPortAttr(ctypes.Structure):
    _fields_ = (("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64))


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    libc.syscall.restype = ctypes.c_long
    return libc


_LIBC = _libc()


def _syscall(number: int, *args: object) -> int:
    if _LIBC is None:
        raise LandlockError(38, "Landlock needs Linux")  # ENOSYS
    result = int(_LIBC.syscall(ctypes.c_long(number), *args))
    if result < 0:
        errno = ctypes.get_errno()
        raise LandlockError(errno, os.strerror(errno))
    return result


def abi_version() -> int:
    """The kernel's Landlock ABI version; 0 when Landlock is missing or disabled."""
    return probe_abi()[0]


def probe_abi() -> tuple[int, int]:
    """(ABI version, 0) or (0, errno): ENOSYS no Landlock in this kernel (or not Linux),
    EOPNOTSUPP built in but not enabled at boot."""
    try:
        version = _syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION)
    except LandlockError as error:
        return 0, error.errno or 0
    return version, 0


def fs_rights(abi: int) -> AccessFs:
    """The filesystem rights an ABI version knows (and so can deny)."""
    return _FS_BY_ABI[min(abi, 5)] if abi > 0 else AccessFs(0)


@dataclass(slots=True)
class Ruleset:
    """An open ruleset file descriptor, built for one ABI version. Close it when done."""

    abi: int
    fd: int
    handled_fs: AccessFs
    handled_net: AccessNet
    scoped: Scope
    missing: list[Path] = field(default_factory=list)
    """Paths a rule named that do not exist (nothing to allow there)."""

    @classmethod
    def create(
        cls, abi: int, *, restrict_net: AccessNet = _NO_NET, scope: Scope = _NO_SCOPE
    ) -> Ruleset:
        """A ruleset denying every filesystem right the ABI knows, the given network
        rights (ABI ≥ 4) and the given scopes (ABI ≥ 6); rights an older ABI lacks are
        left out, never asked for (the kernel would refuse the whole ruleset)."""
        handled_fs = fs_rights(abi)
        handled_net = restrict_net if abi >= 4 else AccessNet(0)
        scoped = scope if abi >= 6 else Scope(0)
        attr = _RulesetAttr(int(handled_fs), int(handled_net), int(scoped))
        # An older kernel rejects a bigger struct than it knows: pass only its part.
        size = 8 if abi < 4 else (16 if abi < 6 else ctypes.sizeof(attr))
        fd = _syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
        return cls(abi, fd, handled_fs, handled_net, scoped)

    def allow_paths(self, paths: Iterable[Path], access: AccessFs) -> None:
        """Allow ``access`` beneath each path (or on it, for a file); symlinks are followed
        here, so the rule applies to what the path names now."""
        for path in paths:
            try:
                parent = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except FileNotFoundError:
                self.missing.append(Path(path))
                continue
            try:
                allowed = access & self.handled_fs
                if not stat.S_ISDIR(os.fstat(parent).st_mode):
                    allowed &= _FILE_RIGHTS
                if allowed:
                    attr = _PathBeneathAttr(int(allowed), parent)
                    _syscall(_SYS_ADD_RULE, self.fd, _RULE_PATH_BENEATH, ctypes.byref(attr), 0)
            finally:
                os.close(parent)

    def allow_port(self, port: int, access: AccessNet) -> None:
        allowed = access & self.handled_net
        if allowed:
            attr = _NetPortAttr(int(allowed), port)
            _syscall(_SYS_ADD_RULE, self.fd, _RULE_NET_PORT, ctypes.byref(attr), 0)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def restrict_self(ruleset: Ruleset) -> None:
    """Enforce the ruleset on the calling thread (and what it forks from now on).

    Needs ``no_new_privs`` set on the thread first (or CAP_SYS_ADMIN)."""
    restrict_self_fd(ruleset.fd)


def restrict_self_fd(fd: int) -> None:
    """``restrict_self`` with a ruleset's descriptor (one a child inherited)."""
    try:
        _confining.restrict_self(fd)
    except OSError as error:
        raise LandlockError(error.errno, error.strerror) from None
