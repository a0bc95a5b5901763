"""seccomp user notification, as ctypes sees it: installing a filter that hands some
syscalls to a supervisor (``SECCOMP_RET_USER_NOTIF``), and the supervisor's side of the
listener — receive a notification, read the path it names from the child's memory,
answer with a value, an error, or a descriptor installed in the child.

Linux 5.19 at least: ``SECCOMP_ADDFD_FLAG_SEND`` (5.14) installs a descriptor and answers
in one step, and ``SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV`` (5.19) keeps a signal from
interrupting a call the supervisor is already making for the child (the child would
retry it: a file made twice, an ``O_EXCL`` open failing on the supervisor's own file).
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys

from gateway.base import GatewayError

__all__ = [
    "Listener",
    "Notification",
    "NotifyError",
    "install_listener_filter",
    "user_notification_available",
]

_SECCOMP_SET_MODE_FILTER = 1
_FLAG_NEW_LISTENER = 1 << 3
_FLAG_WAIT_KILLABLE_RECV = 1 << 5
_ADDFD_FLAG_SEND = 1 << 1
_SECCOMP_NR = {"x86_64": 317, "aarch64": 277}


def _iowr(nr: int, size: int) -> int:
    return (3 << 30) | (size << 16) | (ord("!") << 8) | nr


def _iow(nr: int, size: int) -> int:
    return (1 << 30) | (size << 16) | (ord("!") << 8) | nr


class _Data(ctypes.Structure):
    _fields_ = (
        ("nr", ctypes.c_int),
        ("arch", ctypes.c_uint32),
        ("instruction_pointer", ctypes.c_uint64),
        ("args", ctypes.c_uint64 * 6),
    )


class _Notif(ctypes.Structure):
    _fields_ = (
        ("id", ctypes.c_uint64),
        ("pid", ctypes.c_uint32),
        ("flags", ctypes.c_uint32),
        ("data", _Data),
    )


class _Resp(ctypes.Structure):
    _fields_ = (
        ("id", ctypes.c_uint64),
        ("val", ctypes.c_int64),
        ("error", ctypes.c_int32),
        ("flags", ctypes.c_uint32),
    )


class _AddFd(ctypes.Structure):
    _fields_ = (
        ("id", ctypes.c_uint64),
        ("flags", ctypes.c_uint32),
        ("srcfd", ctypes.c_uint32),
        ("newfd", ctypes.c_uint32),
        ("newfd_flags", ctypes.c_uint32),
    )


_RECV = _iowr(0, ctypes.sizeof(_Notif))
_SEND = _iowr(1, ctypes.sizeof(_Resp))
_ID_VALID = _iow(2, 8)
_ADDFD = _iow(3, ctypes.sizeof(_AddFd))


class NotifyError(GatewayError, OSError):
    pass


class _SockFprog(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))


_LIBC: ctypes.CDLL | None = None


def _libc() -> ctypes.CDLL:
    global _LIBC
    if _LIBC is None:
        _LIBC = ctypes.CDLL(None, use_errno=True)
    return _LIBC


def user_notification_available() -> bool:
    """Linux 5.19 or later on an architecture whose numbers are known here."""
    if not sys.platform.startswith("linux") or os.uname().machine not in _SECCOMP_NR:
        return False
    try:
        major, minor = (int(p) for p in os.uname().release.split(".")[:2])
    except ValueError:
        return False
    return (major, minor) >= (5, 19)


def install_listener_filter(program: bytes) -> int:
    """Install ``program`` on the calling thread (after no_new_privs) and return the
    listener's descriptor, on which the supervisor receives what it hands over."""
    number = _SECCOMP_NR.get(os.uname().machine)
    if number is None:
        raise NotifyError(errno.ENOSYS, "no seccomp user notification on this architecture")
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    flags = _FLAG_NEW_LISTENER | _FLAG_WAIT_KILLABLE_RECV
    fd = _libc().syscall(
        ctypes.c_long(number), ctypes.c_ulong(_SECCOMP_SET_MODE_FILTER), ctypes.c_ulong(flags),
        ctypes.byref(fprog),
    )  # fmt: skip
    if fd < 0:
        code = ctypes.get_errno()
        raise NotifyError(code, f"seccomp listener: {os.strerror(code)}")
    return int(fd)


class Notification:
    """One call handed over. A plain class: the supervisor imports this module
    (``_confining`` says why it has no dataclasses)."""

    __slots__ = ("args", "id", "nr", "pid")

    def __init__(self, id: int, pid: int, nr: int, args: tuple[int, ...]) -> None:
        self.id, self.pid, self.nr, self.args = id, pid, nr, args


class Listener:
    """The supervisor's side of one listener descriptor."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._notif = _Notif()
        self._mem: dict[int, int] = {}

    def receive(self) -> Notification | None:
        """The next notification; None when the call was interrupted or its caller died
        before it could be read (nothing to answer)."""
        ctypes.memset(ctypes.byref(self._notif), 0, ctypes.sizeof(self._notif))
        if _libc().ioctl(self.fd, ctypes.c_ulong(_RECV), ctypes.byref(self._notif)) != 0:
            code = ctypes.get_errno()
            if code in (errno.EINTR, errno.ENOENT):
                return None
            raise NotifyError(code, f"seccomp receive: {os.strerror(code)}")
        n = self._notif
        return Notification(n.id, n.pid, n.data.nr, tuple(n.data.args))

    def valid(self, notification: Notification) -> bool:
        """The call is still waiting (its caller alive): what was read from its memory
        was that caller's."""
        cookie = ctypes.c_uint64(notification.id)
        return bool(_libc().ioctl(self.fd, ctypes.c_ulong(_ID_VALID), ctypes.byref(cookie)) == 0)

    def answer(self, notification: Notification, value: int = 0, error: int = 0) -> None:
        """The call returns ``value``, or fails with ``error`` (an errno)."""
        resp = _Resp(notification.id, value, -error if error else 0, 0)
        if _libc().ioctl(self.fd, ctypes.c_ulong(_SEND), ctypes.byref(resp)) != 0:
            code = ctypes.get_errno()
            if code != errno.ENOENT:  # ENOENT: its caller died meanwhile
                raise NotifyError(code, f"seccomp answer: {os.strerror(code)}")

    def answer_with_fd(self, notification: Notification, fd: int, cloexec: bool) -> None:
        """The call returns a new descriptor in the caller, a copy of ``fd``."""
        addfd = _AddFd(notification.id, _ADDFD_FLAG_SEND, fd, 0, os.O_CLOEXEC if cloexec else 0)
        if _libc().ioctl(self.fd, ctypes.c_ulong(_ADDFD), ctypes.byref(addfd)) < 0:
            code = ctypes.get_errno()
            if code == errno.EMFILE:
                self.answer(notification, error=errno.EMFILE)
            elif code not in (errno.ENOENT, errno.EINPROGRESS):
                raise NotifyError(code, f"seccomp addfd: {os.strerror(code)}")

    def read_string(self, notification: Notification, address: int, limit: int = 4096) -> bytes:
        """The NUL-terminated string at ``address`` in the caller's memory (a path, at
        most ``limit`` bytes: longer is ENAMETOOLONG); ``OSError`` when it cannot be read
        (EFAULT for a bad pointer)."""
        if address == 0:
            raise OSError(errno.EFAULT, "null path")
        try:
            return self._read(self._memory(notification.pid), address, limit)
        except OSError as error:
            if error.errno == errno.ENAMETOOLONG:
                raise
        # A descriptor kept from before an exec (or of a pid since reused) reads nothing.
        self.forget(notification.pid)
        return self._read(self._memory(notification.pid), address, limit)

    @staticmethod
    def _read(fd: int, address: int, limit: int) -> bytes:
        out = bytearray()
        while len(out) < limit:
            page_left = 4096 - (address % 4096)
            try:
                chunk = os.pread(fd, min(page_left, limit - len(out)), address)
            except OSError:
                raise OSError(errno.EFAULT, "unreadable path") from None
            if not chunk:
                raise OSError(errno.EFAULT, "unreadable path")
            end = chunk.find(b"\0")
            if end >= 0:
                return bytes(out + chunk[:end])
            out += chunk
            address += len(chunk)
        raise OSError(errno.ENAMETOOLONG, "path too long")

    def _memory(self, pid: int) -> int:
        fd = self._mem.get(pid)
        if fd is None:
            if len(self._mem) > 64:
                self.forget()
            fd = os.open(f"/proc/{pid}/mem", os.O_RDONLY | os.O_CLOEXEC)
            self._mem[pid] = fd
        return fd

    def forget(self, pid: int | None = None) -> None:
        """Close the memory descriptors kept (one ``pid``'s, or all)."""
        for key in [pid] if pid is not None else list(self._mem):
            fd = self._mem.pop(key, None)
            if fd is not None:
                os.close(fd)
