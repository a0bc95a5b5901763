"""Making the namespaces of a plan (``_namespaces.NamespacePlan``, given as its JSON: the
trampoline receives it so, and the confining thread passes the same): the mount namespace
with its read-only binds and private ``/tmp``, the network namespace with the egress
listener. Paths are strings here, absolute and normalised (``str`` of the plan's paths).

The trampoline imports this module: the standard library's ``ctypes``, ``os``, ``errno``,
``posixpath`` and ``stat`` only (``_confining`` says why).
"""

from __future__ import annotations

import ctypes
import errno
import os
import posixpath
import stat

from gateway.sandbox._netns import open_loopback_listener

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["enter_namespaces", "has_mounts"]

_CLONE_NEWNS = 0x00020000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000
_MS_RDONLY = 0x1
_MS_NOSUID = 0x2
_MS_REMOUNT = 0x20
_MS_BIND = 0x1000
_MS_REC = 0x4000
_MS_PRIVATE = 1 << 18
_KEPT_FLAGS = {  # statvfs's ST_* bit: the mount flag a remount must keep (it may be locked)
    2: _MS_NOSUID, 4: 0x4, 8: 0x8, 1024: 0x400, 2048: 0x800, 4096: 1 << 21,
}  # fmt: skip

_LIBC: ctypes.CDLL | None = None


def has_mounts(plan: dict[str, Any]) -> bool:
    """Whether ``plan`` needs a mount namespace."""
    return bool(plan.get("read_only") or (plan.get("private_tmp") and plan.get("covered")))


def _libc() -> ctypes.CDLL:
    # The C library this process already has: ctypes.util.find_library would import
    # subprocess and shutil into every trampoline (tens of ms of CPU per package start).
    global _LIBC
    if _LIBC is None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_void_p]
        _LIBC = libc
    return _LIBC


def _check(result: int, what: str, path: str | None = None) -> None:
    if result != 0:
        code = ctypes.get_errno()
        where = f" {path}" if path is not None else ""
        raise OSError(code, f"{what}{where}: {os.strerror(code)}")


def _kept(path: str) -> int:
    """The flags of the mount ``path`` is on that a bind remount must repeat (nodev,
    noexec, nosuid, atime): a remount that drops a locked one fails, and dropping any
    would widen what the child may do."""
    try:
        have = os.statvfs(path).f_flag
    except OSError:
        return _MS_NOSUID
    return _MS_NOSUID | sum(flag for bit, flag in _KEPT_FLAGS.items() if have & bit)


def _bind(source: bytes, target: str, what: str) -> None:
    _check(_libc().mount(source, os.fsencode(target), None, _MS_BIND | _MS_REC, None), what, target)


def _remount(target: str, flags: int, what: str) -> None:
    flags |= _MS_BIND | _MS_REMOUNT
    _check(_libc().mount(None, os.fsencode(target), None, flags, None), what, target)


def _beneath(path: str, folder: str) -> bool:
    """``folder`` is one of ``path``'s parents (both absolute and normalised)."""
    return path != folder and path.startswith(folder.rstrip("/") + "/")


def _step(parent: int, name: str, *, folder: bool, create: bool) -> int:
    """An ``O_PATH`` descriptor of ``name`` in ``parent``, never through a symlink: the
    package writes its temp folder, and may have left a link there for the next start to
    follow (as root, before Landlock). Made when missing and ``create``."""
    flags = os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(name, flags, dir_fd=parent)
    except FileNotFoundError:
        if not create:
            raise
        if folder:
            os.mkdir(name, 0o700, dir_fd=parent)
        else:
            made = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            os.close(os.open(name, made, 0o600, dir_fd=parent))
        fd = os.open(name, flags, dir_fd=parent)
    mode = os.fstat(fd).st_mode
    if not (stat.S_ISDIR(mode) if folder else stat.S_ISREG(mode)):
        os.close(fd)
        raise OSError(errno.ELOOP, f"not a {'folder' if folder else 'file'}: {name}")
    return fd


def _walk(root: str, parts: tuple[str, ...], *, folder: bool, create: bool) -> int:
    """``root``/``parts`` as an ``O_PATH`` descriptor, each part opened without following
    a symlink (``_step``)."""
    current = os.open(root, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for index, name in enumerate(parts):
            last = index == len(parts) - 1
            step = _step(current, name, folder=folder or not last, create=create)
            os.close(current)
            current = step
    except BaseException:
        os.close(current)
        raise
    return current


def _private_tmp(private: str, covered: list[str], keep: list[str]) -> None:
    """``private`` over each of ``covered``; then each of ``keep`` (held open first: the
    bind hides it) bound back at its own path. Their places in ``private`` are made first,
    and found again after the bind, without following a link the package left there."""
    held: list[tuple[str, tuple[str, ...], bool, int]] = []
    try:
        for path in keep:
            folder = next((f for f in covered if _beneath(path, f)), None)
            if folder is None or not os.path.exists(path):
                continue
            rest = path[len(folder.rstrip("/")) + 1 :]
            parts, is_folder = tuple(rest.split("/")), os.path.isdir(path)
            os.close(_walk(private, parts, folder=is_folder, create=True))
            held.append((folder, parts, is_folder, os.open(path, os.O_PATH | os.O_CLOEXEC)))
        for folder in covered:
            _bind(os.fsencode(private), folder, f"private {folder}")
        for folder, parts, is_folder, source in held:
            target = _walk(folder, parts, folder=is_folder, create=False)
            try:
                _bind(f"/proc/self/fd/{source}".encode(), f"/proc/self/fd/{target}", "keep")
            finally:
                os.close(target)
    finally:
        for *_, fd in held:
            os.close(fd)


def enter_namespaces(plan: dict[str, Any], *, user_namespace: bool = False) -> int | None:
    """On the calling thread, which must have its own ``fs_struct`` (``unshare(CLONE_FS)``):
    the namespaces of ``plan``. ``user_namespace``: make a user namespace first (the
    caller has no ``CAP_SYS_ADMIN``; only a single-threaded process may), mapping only the
    caller's own ids. Returns the egress listener's descriptor when the plan has ``network``.
    Raises ``OSError``."""
    libc = _libc()
    mounts, network = has_mounts(plan), bool(plan.get("network"))
    flags = (_CLONE_NEWNS if mounts else 0) | (_CLONE_NEWNET if network else 0)
    if not flags:
        return None
    cwd = os.getcwd() if user_namespace else None
    if user_namespace:
        uid, gid = os.getuid(), os.getgid()  # before: inside, they read as unmapped
        _check(libc.unshare(ctypes.c_int(_CLONE_NEWUSER | flags)), "unshare(CLONE_NEWUSER)")
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                           ("gid_map", f"{gid} {gid} 1")):  # fmt: skip
            with open(f"/proc/self/{name}", "w") as handle:
                handle.write(text)
    else:
        _check(libc.unshare(ctypes.c_int(flags)), "unshare")
    if mounts:
        # Nothing done here may reach the gateway's own namespace.
        _check(libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "make / private")
        for path in plan.get("read_only", ()):
            _bind(os.fsencode(path), path, "bind")
            _remount(path, _MS_RDONLY | _kept(path), "read-only")
        for path in plan.get("reopened", ()):
            _bind(os.fsencode(path), path, "reopen")
            _remount(path, _kept(posixpath.dirname(path)) & ~_MS_RDONLY, "writable")
        if plan.get("private_tmp"):
            _private_tmp(plan["private_tmp"], plan.get("covered", []), plan.get("keep", []))
        if cwd is not None:
            os.chdir(cwd)  # the working folder as this namespace shows it
    return open_loopback_listener() if network else None
