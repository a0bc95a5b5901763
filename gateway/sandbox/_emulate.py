"""The supervisor's half of each call the guard hands over: decode it, find the place it
names exactly as the kernel would for the child, ask the guard (``_guard``), and make the
call itself — on the place it checked — or refuse it.

The supervisor never lets the child's own call go on after a check (``CONTINUE``): another
thread of the child could rewrite the path in memory between the check and the kernel's
second reading. It reads the path once, resolves the folder to a descriptor, checks the
folder's real path and the name, and makes the call on that descriptor. A final symlink
the call would follow is followed here, one step at a time, each step checked; the last
open refuses to follow (``O_NOFOLLOW``), so a link put in its place meanwhile fails the
open and the resolution starts again. The supervisor is in the child's namespaces and
Landlock domain, so the kernel refuses it exactly what it would refuse the child.
"""

from __future__ import annotations

import ctypes
import errno
import os
import posixpath
import stat

from gateway.base import GatewayError
from gateway.sandbox._guard import GuardPlan
from gateway.sandbox._notify import Listener, Notification

TYPE_CHECKING = False  # the supervisor imports this module: no typing (_confining)
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["LINK_OUTSIDE", "Call", "GuardRefusal", "decode", "perform"]

LINK_OUTSIDE = "link outside the workspace"

_AT_FDCWD = -100
_AT_REMOVEDIR = 0x200
_AT_SYMLINK_FOLLOW = 0x400
_AT_EMPTY_PATH = 0x1000
_RENAMEAT2 = {"x86_64": 316, "aarch64": 276}
_CREATE = os.O_CREAT
_TMPFILE = 0o20000000
_RESOLVE_TRIES = 8

# Each call: its kind and the names of its arguments in order; what a call does not take
# is the *at form's default (the working folder, no flags) or given in the third element.
_CREAT = os.O_CREAT | os.O_WRONLY | os.O_TRUNC
_X86: dict[int, tuple[str, tuple[str, ...], dict[str, int]]] = {
    2: ("open", ("path", "flags", "mode"), {}),
    257: ("open", ("dfd", "path", "flags", "mode"), {}),
    85: ("open", ("path", "mode"), {"flags": _CREAT}),
    76: ("truncate", ("path", "length"), {}),
    82: ("rename", ("old", "new"), {}),
    264: ("rename", ("odfd", "old", "ndfd", "new"), {}),
    316: ("rename", ("odfd", "old", "ndfd", "new", "flags"), {}),
    83: ("mkdir", ("path", "mode"), {}),
    258: ("mkdir", ("dfd", "path", "mode"), {}),
    84: ("unlink", ("path",), {"flags": _AT_REMOVEDIR}),
    87: ("unlink", ("path",), {}),
    263: ("unlink", ("dfd", "path", "flags"), {}),
    86: ("link", ("old", "new"), {}),
    265: ("link", ("odfd", "old", "ndfd", "new", "flags"), {}),
    88: ("symlink", ("target", "new"), {}),
    266: ("symlink", ("target", "ndfd", "new"), {}),
    133: ("mknod", ("path", "mode", "dev"), {}),
    259: ("mknod", ("dfd", "path", "mode", "dev"), {}),
}
_ARM = {56: _X86[257], 45: _X86[76], 38: _X86[264], 276: _X86[316], 34: _X86[258],
        35: _X86[263], 37: _X86[265], 36: _X86[266], 33: _X86[259]}  # fmt: skip
_TABLE = _X86 if os.uname().machine == "x86_64" else _ARM
_PATHS = frozenset({"path", "old", "new", "target"})
_FOLDERS = frozenset({"dfd", "odfd", "ndfd"})


class GuardRefusal(GatewayError):
    """The guard refused the call: the child gets EROFS (EACCES for a link leading
    outside) and the gateway is told."""

    def __init__(self, action: str, path: str, name: str) -> None:
        super().__init__(f"{action} {path}")
        self.action, self.path, self.name = action, path, name


class Call:
    """One handed-over call, decoded (a plain class: no dataclasses here, ``_confining``)."""

    __slots__ = ("ints", "kind", "paths", "pid")

    def __init__(self, kind: str, pid: int, paths: dict[str, bytes], ints: dict[str, int]) -> None:
        self.kind, self.pid, self.paths, self.ints = kind, pid, paths, ints


def _signed(value: int) -> int:
    low = value & 0xFFFFFFFF
    return low - (1 << 32) if low & 0x80000000 else low


def decode(listener: Listener, notification: Notification) -> Call:
    """The call ``notification`` stands for, its paths read from the caller's memory.
    ``OSError`` (EFAULT, ENAMETOOLONG, ENOSYS) is the caller's answer."""
    entry = _TABLE.get(notification.nr)
    if entry is None:
        raise OSError(errno.ENOSYS, "not a guarded call")
    kind, names, fixed = entry
    ints = {"dfd": _AT_FDCWD, "odfd": _AT_FDCWD, "ndfd": _AT_FDCWD, "flags": 0, "mode": 0,
            "dev": 0, "length": 0, **fixed}  # fmt: skip
    paths: dict[str, bytes] = {}
    for name, raw in zip(names, notification.args, strict=False):
        if name in _PATHS:
            paths[name] = listener.read_string(notification, raw)
        else:
            ints[name] = _signed(raw) if name in _FOLDERS else raw
    return Call(kind, notification.pid, paths, ints)


class _Place:
    """``folder``: an ``O_PATH`` descriptor of the folder (the supervisor's); ``real``: the
    real path of folder/name, normalised; ``slash``: the name was given with a final
    slash."""

    __slots__ = ("folder", "name", "real", "slash")

    def __init__(self, folder: int, name: str, real: str, slash: bool = False) -> None:
        self.folder, self.name, self.real, self.slash = folder, name, real, slash

    @property
    def given(self) -> str:
        return self.name + "/" if self.slash else self.name

    def close(self) -> None:
        os.close(self.folder)

    def __enter__(self) -> _Place:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _base(pid: int, dirfd: int) -> str:
    return f"/proc/{pid}/cwd" if dirfd == _AT_FDCWD else f"/proc/{pid}/fd/{dirfd}"


def _place(pid: int, dirfd: int, raw: bytes, *, base: str | None = None) -> _Place:
    if not raw:
        raise OSError(errno.ENOENT, "empty path")
    path = os.fsdecode(raw)
    stripped = path.rstrip("/") or "/"
    slash = stripped != path and stripped != "/"
    head, _, name = stripped.rpartition("/")
    if stripped == "/":
        head, name = "/", "."
    elif "/" not in stripped:
        head, name = "", stripped
    elif stripped.startswith("/") and not head:
        head = "/"
    start = "/" if path.startswith("/") else (base or _base(pid, dirfd))
    try:
        root = os.open(start, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise OSError(errno.EBADF, "no such descriptor") from None
    if head:
        try:
            folder = os.open(head, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=root)
        finally:
            os.close(root)
    else:
        folder = root  # a bare name: the folder is where it starts
    real = os.readlink(f"/proc/self/fd/{folder}")
    if real.endswith(" (deleted)") or not real.startswith("/"):
        os.close(folder)
        raise OSError(errno.ENOENT, "folder removed")
    return _Place(folder, name, posixpath.normpath(posixpath.join(real, name)), slash)


def _follow(place: _Place) -> _Place:
    """Follow a final symlink the way the kernel would for an open: step by step. Takes
    ``place`` over (closed on failure, or when a step replaces it)."""
    try:
        for _ in range(40):
            try:
                info = os.lstat(place.name, dir_fd=place.folder)
            except FileNotFoundError:
                return place
            if not stat.S_ISLNK(info.st_mode):
                return place
            target = os.readlink(place.name, dir_fd=place.folder)
            following = _place(0, 0, os.fsencode(target), base=f"/proc/self/fd/{place.folder}")
            place.close()
            place = following
    except BaseException:
        place.close()
        raise
    place.close()
    raise OSError(errno.ELOOP, "too many symbolic links")


def _check(guard: GuardPlan, place: _Place, action: str) -> None:
    name = guard.refusal(place.real)
    if name is not None:
        raise GuardRefusal(action, place.real, name)


def _child_umask(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


class _umask_of:  # a context manager, named as the function it was
    """What the child makes gets the child's umask (a default ACL still wins, as for it)."""

    __slots__ = ("pid", "previous")

    def __init__(self, pid: int) -> None:
        self.pid, self.previous = pid, 0

    def __enter__(self) -> None:
        self.previous = os.umask(_child_umask(self.pid))

    def __exit__(self, *_: object) -> None:
        os.umask(self.previous)


def perform(guard: GuardPlan, call: Call, listener: Listener, notification: Notification) -> None:
    """Make ``call`` for the caller and answer it; ``GuardRefusal`` when the guard refuses,
    ``OSError`` with the errno the caller gets otherwise."""
    c = call
    if c.kind == "open":
        flags = c.ints["flags"] & 0xFFFFFFFF
        fd = _open(guard, c.pid, c.ints["dfd"], c.paths["path"], flags, c.ints["mode"] & 0o7777)
        try:
            listener.answer_with_fd(notification, fd, bool(flags & os.O_CLOEXEC))
        finally:
            os.close(fd)
        return
    result = _PERFORM[c.kind](guard, c)
    listener.answer(notification, result)


def _open(guard: GuardPlan, pid: int, dirfd: int, path: bytes, flags: int, mode: int) -> int:
    follow = not (flags & os.O_NOFOLLOW) and not (flags & _CREATE and flags & os.O_EXCL)
    action = "make" if flags & (_CREATE | _TMPFILE) else "write"
    extra = os.O_NOFOLLOW if follow else 0
    for _ in range(_RESOLVE_TRIES):
        place = _place(pid, dirfd, path)
        if follow and not place.slash:
            place = _follow(place)
        with place, _umask_of(pid):
            _check(guard, place, action)
            try:
                return os.open(place.given, flags | extra | os.O_CLOEXEC, mode, dir_fd=place.folder)
            except OSError as error:
                if not (follow and error.errno == errno.ELOOP):
                    raise
    raise OSError(errno.ELOOP, "the path kept changing")


def _truncate(guard: GuardPlan, c: Call) -> int:
    with _follow(_place(c.pid, _AT_FDCWD, c.paths["path"])) as place:
        _check(guard, place, "write")
        held = os.open(place.name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=place.folder)
    try:
        mode = os.fstat(held).st_mode
        if stat.S_ISDIR(mode):
            raise OSError(errno.EISDIR, "is a folder")
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, "not a file")
        fd = os.open(f"/proc/self/fd/{held}", os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.ftruncate(fd, c.ints["length"])
        finally:
            os.close(fd)
    finally:
        os.close(held)
    return 0


def _mkdir(guard: GuardPlan, c: Call) -> int:
    with _place(c.pid, c.ints["dfd"], c.paths["path"]) as place, _umask_of(c.pid):
        _check(guard, place, "make")
        os.mkdir(place.given, c.ints["mode"], dir_fd=place.folder)
    return 0


def _mknod(guard: GuardPlan, c: Call) -> int:
    with _place(c.pid, c.ints["dfd"], c.paths["path"]) as place, _umask_of(c.pid):
        _check(guard, place, "make")
        os.mknod(place.name, c.ints["mode"] & 0xFFFFFFFF, c.ints["dev"], dir_fd=place.folder)
    return 0


def _unlink(guard: GuardPlan, c: Call) -> int:
    with _place(c.pid, c.ints["dfd"], c.paths["path"]) as place:
        _check(guard, place, "remove")
        if c.ints["flags"] & _AT_REMOVEDIR:
            os.rmdir(place.given, dir_fd=place.folder)
        else:
            os.unlink(place.given, dir_fd=place.folder)
    return 0


def _symlink(guard: GuardPlan, c: Call) -> int:
    target = os.fsdecode(c.paths["target"])
    with _place(c.pid, c.ints["ndfd"], c.paths["new"]) as place:
        _check(guard, place, "make")
        if guard.link_target_leaves(place.real, target):
            raise GuardRefusal(LINK_OUTSIDE, place.real, target)
        os.symlink(target, place.given, dir_fd=place.folder)
    return 0


def _held_source(guard: GuardPlan, c: Call, follow: bool) -> int:
    """An ``O_PATH`` descriptor of a link's source, checked by its real path (a hard link
    to ``.git/config`` under another name would let it be written)."""
    old, odfd = c.paths["old"], c.ints["odfd"]
    if not old and c.ints["flags"] & _AT_EMPTY_PATH:
        old, follow = os.fsencode(_base(c.pid, odfd)), True
    with _place(c.pid, odfd, old) as place:
        flags = os.O_PATH | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
        held = os.open(place.given, flags, dir_fd=place.folder)
    real = os.readlink(f"/proc/self/fd/{held}")
    name = guard.refusal(posixpath.normpath(real.removesuffix(" (deleted)")))
    if name is not None:
        os.close(held)
        raise GuardRefusal("link", real, name)
    return held


def _link(guard: GuardPlan, c: Call) -> int:
    held = _held_source(guard, c, bool(c.ints["flags"] & _AT_SYMLINK_FOLLOW))
    try:
        with _place(c.pid, c.ints["ndfd"], c.paths["new"]) as place:
            _check(guard, place, "make")
            source = f"/proc/self/fd/{held}"
            os.link(source, place.given, dst_dir_fd=place.folder, follow_symlinks=True)
    finally:
        os.close(held)
    return 0


def _rename(guard: GuardPlan, c: Call) -> int:
    with (
        _place(c.pid, c.ints["odfd"], c.paths["old"]) as source,
        _place(c.pid, c.ints["ndfd"], c.paths["new"]) as dest,
    ):
        _check(guard, source, "move")
        _check(guard, dest, "make")
        into = guard.root_of(dest.real)
        elsewhere = into is not None and guard.root_of(source.real) != into
        if elsewhere and stat.S_ISDIR(os.lstat(source.name, dir_fd=source.folder).st_mode):
            # A folder from elsewhere may hold protected names; a copy goes call by call.
            raise OSError(errno.EXDEV, "a folder moved into a guarded workspace")
        if c.ints["flags"]:
            _renameat2(source, dest, c.ints["flags"])
        else:
            os.rename(source.given, dest.given, src_dir_fd=source.folder, dst_dir_fd=dest.folder)
    return 0


_LIBC: ctypes.CDLL | None = None


def _libc() -> ctypes.CDLL:
    global _LIBC
    if _LIBC is None:
        _LIBC = ctypes.CDLL(None, use_errno=True)
    return _LIBC


def _renameat2(source: _Place, dest: _Place, flags: int) -> None:
    result = _libc().syscall(
        ctypes.c_long(_RENAMEAT2[os.uname().machine]), ctypes.c_int(source.folder),
        os.fsencode(source.given), ctypes.c_int(dest.folder), os.fsencode(dest.given),
        ctypes.c_uint(flags),
    )  # fmt: skip
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))


_PERFORM: dict[str, Callable[[GuardPlan, Call], int]] = {
    "truncate": _truncate,
    "mkdir": _mkdir,
    "mknod": _mknod,
    "unlink": _unlink,
    "symlink": _symlink,
    "link": _link,
    "rename": _rename,
}
