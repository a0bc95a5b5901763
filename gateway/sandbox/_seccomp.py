"""A small seccomp filter for what Landlock (up to ABI 7) does not cover.

Landlock decides which files a child may open, which TCP ports it may use and whom it may
signal. It does not see:

- ``connect()`` to a *pathname* Unix socket (an ssh-agent, a desktop bus, a Docker socket):
  the filter refuses ``socket(AF_UNIX, …)`` unless the policy allows Unix sockets
  (``socketpair`` stays allowed: unnamed, already connected, harmless);
- UDP and other families: without a network grant, ``socket(AF_INET/AF_INET6/AF_NETLINK)``
  is refused too, so a child without ``network`` has no socket to the outside at all;
- ``chmod``/``fchmod``/``fchmodat`` that set the setuid or setgid bit: a child running as
  root (capabilities dropped) still owns root's files;
- ``io_uring_setup``: io_uring performs socket and file operations the filter cannot see
  (libuv and others fall back to plain syscalls on ENOSYS);
- ``ioctl(TIOCSTI)``: pushing keystrokes into a terminal the child inherited;
- executing what it wrote, without a folder: Landlock never grants EXECUTE where a child
  may write, but a file made by ``memfd_create`` has no folder a rule could name, and it
  runs through ``/proc/self/fd/N`` or ``execveat(fd, "", AT_EMPTY_PATH)``. The filter
  refuses ``memfd_create`` (EPERM) unless the flags ask for ``MFD_NOEXEC_SEAL`` (Linux 6.3:
  no exec bits, sealed so that ``fchmod`` cannot add them) without ``MFD_EXEC``, and
  refuses ``memfd_secret`` outright. The exec itself cannot be filtered — a path is a
  pointer seccomp cannot read — so the anonymous file is what is closed; every file with a
  path is Landlock's. Neither Node nor Python calls ``memfd_create`` on its own.

Classic BPF, installed with ``prctl(PR_SET_SECCOMP)`` on the spawning thread only (no
TSYNC), after ``no_new_privs``. A syscall from a foreign ABI (x32, i386 on x86-64) fails
with ENOSYS, so a 32-bit program cannot slip past the numbers checked here.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import socket
import struct
import sys
from dataclasses import dataclass

from gateway.base import GatewayError
from gateway.sandbox import _confining

__all__ = ["FilterRules", "SeccompError", "build_filter", "install_filter", "seccomp_available"]

_PR_GET_SECCOMP = 21
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_RET_USER_NOTIF = 0x7FC00000
# Classic BPF opcodes.
_LD_W_ABS = 0x00 | 0x00 | 0x20
_JEQ_K = 0x05 | 0x10 | 0x00
_JGE_K = 0x05 | 0x30 | 0x00
_JSET_K = 0x05 | 0x40 | 0x00
_RET_K = 0x06 | 0x00
_SETID_BITS = 0o6000
_TIOCSTI = 0x5412
_MFD_NOEXEC_SEAL = 0x0008
_MFD_EXEC = 0x0010


@dataclass(frozen=True, slots=True)
class _Arch:
    audit: int
    socket: int
    ioctl: int
    chmod: int | None
    fchmod: int
    fchmodat: int
    memfd_create: int
    x32_bit: int | None = None


_FCHMODAT2 = 452  # new syscalls share one number on every architecture
_IO_URING_SETUP = 425
_MEMFD_SECRET = 447
_OPENAT2 = 437
_WRITE_OPEN = 0o1 | 0o2 | 0o100 | 0o1000 | 0o20000000
"""O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, __O_TMPFILE: an open that may make or change a
file (the same bits on x86-64 and arm64)."""
_NAME_CALLS = {
    # creat truncate rename mkdir rmdir link unlink symlink mknod, then the *at forms
    "x86_64": (85, 76, 82, 83, 84, 86, 87, 88, 133, 263, 264, 265, 266, 258, 259, 316),
    "aarch64": (45, 34, 33, 35, 36, 37, 38, 276),
}
"""Calls that make, change or remove a name by path: handed to the supervisor when names
are guarded (``_guard``)."""
_OPENS = {"x86_64": ((2, 1), (257, 2)), "aarch64": ((56, 2),)}
"""(open call, index of its flags argument)."""
_ARCHES = {
    "x86_64": _Arch(0xC000003E, socket=41, ioctl=16, chmod=90, fchmod=91, fchmodat=268,
                    memfd_create=319, x32_bit=0x40000000),
    "aarch64": _Arch(0xC00000B7, socket=198, ioctl=29, chmod=None, fchmod=52, fchmodat=53,
                     memfd_create=279),
}  # fmt: skip


class SeccompError(GatewayError, OSError):
    pass


@dataclass(frozen=True, slots=True)
class FilterRules:
    """What the filter lets through: which address families ``socket()`` may create, and
    whether an anonymous file may be made executable."""

    unix: bool = False
    inet: bool = False
    anonymous_exec: bool = False
    """``memfd_create`` with any flags, and ``memfd_secret``."""
    guard_names: bool = False
    """Hand the calls that make, change or remove a name (and opens for writing) to the
    supervisor (``RET_USER_NOTIF``); ``openat2``, whose flags a filter cannot read, fails
    with ENOSYS, as on a kernel without it."""

    def families(self) -> tuple[int, ...]:
        allowed: list[int] = []
        if self.unix:
            allowed.append(socket.AF_UNIX)
        if self.inet:
            allowed += [socket.AF_INET, socket.AF_INET6, socket.AF_NETLINK]
        return tuple(allowed)


@functools.cache
def _arch() -> _Arch | None:
    if not sys.platform.startswith("linux"):
        return None
    return _ARCHES.get(os.uname().machine)


@functools.cache
def seccomp_available() -> bool:
    """The kernel has seccomp filters and this architecture's numbers are known here."""
    if _arch() is None:
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return False
    return int(libc.prctl(_PR_GET_SECCOMP, 0, 0, 0, 0)) >= 0


class _Program:
    """A tiny assembler: jumps name labels, resolved to relative offsets at the end."""

    def __init__(self) -> None:
        self.code: list[tuple[int, str | int, str | int, int]] = []
        self.labels: dict[str, int] = {}

    def emit(self, op: int, k: int, jt: str | int = 0, jf: str | int = 0) -> None:
        self.code.append((op, jt, jf, k))

    def label(self, name: str) -> None:
        self.labels[name] = len(self.code)

    def assemble(self) -> bytes:
        out = bytearray()
        for index, (op, jt, jf, k) in enumerate(self.code):
            offsets = []
            for target in (jt, jf):
                if isinstance(target, str):
                    distance = self.labels[target] - index - 1
                    if not 0 <= distance <= 255:
                        raise ValueError(f"jump to {target} out of range")
                    offsets.append(distance)
                else:
                    offsets.append(target)
            out += struct.pack("=HBBI", op, offsets[0], offsets[1], k & 0xFFFFFFFF)
        return bytes(out)


def _arg(index: int) -> int:
    """Offset of the low 32 bits of syscall argument ``index`` in ``struct seccomp_data``."""
    return 16 + 8 * index + (0 if sys.byteorder == "little" else 4)


def build_filter(rules: FilterRules) -> bytes:
    """The filter program for this architecture; ``SeccompError`` when it has none."""
    arch = _arch()
    if arch is None:
        raise SeccompError(errno.ENOSYS, f"no seccomp filter for {os.uname().machine}")
    p = _Program()
    p.emit(_LD_W_ABS, 4)  # seccomp_data.arch
    p.emit(_JEQ_K, arch.audit, 0, "foreign")
    p.emit(_LD_W_ABS, 0)  # seccomp_data.nr
    if arch.x32_bit is not None:
        p.emit(_JGE_K, arch.x32_bit, "foreign", 0)
    p.emit(_JEQ_K, arch.socket, "socket", 0)
    for number in (arch.chmod, arch.fchmod):
        if number is not None:
            p.emit(_JEQ_K, number, "mode1", 0)
    p.emit(_JEQ_K, arch.fchmodat, "mode2", 0)
    p.emit(_JEQ_K, _FCHMODAT2, "mode2", 0)
    p.emit(_JEQ_K, arch.ioctl, "ioctl", 0)
    p.emit(_JEQ_K, _IO_URING_SETUP, "nosys", 0)
    machine = os.uname().machine
    if rules.guard_names:
        p.emit(_JEQ_K, _OPENAT2, "nosys", 0)
        for number in _NAME_CALLS[machine]:
            p.emit(_JEQ_K, number, "notify", 0)
        for number, index in _OPENS[machine]:
            p.emit(_JEQ_K, number, f"open{index}", 0)
    if not rules.anonymous_exec:
        p.emit(_JEQ_K, arch.memfd_create, "memfd", 0)
        p.emit(_JEQ_K, _MEMFD_SECRET, "eperm", 0)
    p.emit(_RET_K, _RET_ALLOW)
    p.label("socket")
    p.emit(_LD_W_ABS, _arg(0))
    for family in rules.families():
        p.emit(_JEQ_K, family, "allow", 0)
    p.emit(_RET_K, _RET_ERRNO | errno.EACCES)
    for label, index in (("mode1", 1), ("mode2", 2)):
        p.label(label)
        p.emit(_LD_W_ABS, _arg(index))
        p.emit(_JSET_K, _SETID_BITS, "eperm", "allow")
    p.label("ioctl")
    p.emit(_LD_W_ABS, _arg(1))
    p.emit(_JEQ_K, _TIOCSTI, "eperm", "allow")
    if not rules.anonymous_exec:
        # Allowed only sealed against exec: NOEXEC_SEAL set and EXEC clear.
        p.label("memfd")
        p.emit(_LD_W_ABS, _arg(1))
        p.emit(_JSET_K, _MFD_EXEC, "eperm", 0)
        p.emit(_JSET_K, _MFD_NOEXEC_SEAL, "allow", "eperm")
    if rules.guard_names:
        for index in sorted({i for _, i in _OPENS[machine]}):
            p.label(f"open{index}")
            p.emit(_LD_W_ABS, _arg(index))
            p.emit(_JSET_K, _WRITE_OPEN, "notify", "allow")
        p.label("notify")
        p.emit(_RET_K, _RET_USER_NOTIF)
    p.label("eperm")
    p.emit(_RET_K, _RET_ERRNO | errno.EPERM)
    p.label("allow")
    p.emit(_RET_K, _RET_ALLOW)
    p.label("foreign")
    p.label("nosys")
    p.emit(_RET_K, _RET_ERRNO | errno.ENOSYS)
    return p.assemble()


def install_filter(program: bytes) -> None:
    """Install on the calling thread; needs no_new_privs (or CAP_SYS_ADMIN)."""
    try:
        _confining.install_filter(program)
    except OSError as error:
        raise SeccompError(error.errno, error.strerror) from None
