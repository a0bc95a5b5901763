"""The namespaces a child starts in, made before Landlock (which forbids mount changes):

- a **mount namespace** in which the protected paths of a writable workspace are bound
  read-only over themselves (``_protected``) and the package's private temp folder is bound
  over ``/tmp`` and ``/var/tmp`` (as systemd's ``PrivateTmp=``): a write to ``/tmp/x`` lands
  in the package's own folder. Whatever the policy names beneath those folders (a workspace
  or ``GATEWAY_HOME`` in ``/tmp``) is bound back at its own path;
- a **network namespace** (for network grants by destination) whose only interface is its
  own loopback, on which a listening socket stands for the gateway's egress proxy
  (``egress``): the child's sockets reach nothing else, and the gateway accepts what they
  send from outside the namespace, through that socket.

With ``CAP_SYS_ADMIN`` the confining thread makes them (the child inherits them); without
it the trampoline does, in a user namespace of its own (``_trampoline``). ``NamespacePlan``
is what both are given (as JSON to the trampoline).
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gateway.sandbox._netns import open_loopback_listener

__all__ = ["TMP_FOLDERS", "NamespacePlan", "enter_namespaces", "private_tmp_plan"]

TMP_FOLDERS = (Path("/tmp"), Path("/var/tmp"))
"""Where a private temp folder is bound."""

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


@dataclass(frozen=True, slots=True)
class NamespacePlan:
    read_only: tuple[Path, ...] = ()
    """Bound read-only over themselves."""
    reopened: tuple[Path, ...] = ()
    """Bound writable again on top of those."""
    private_tmp: Path | None = None
    """Bound over ``covered``."""
    covered: tuple[Path, ...] = ()
    """The temp folders ``private_tmp`` is bound over (those no policy path holds)."""
    keep: tuple[Path, ...] = ()
    """Paths beneath ``covered`` the policy names: bound back where they were."""
    network: bool = False
    """A network namespace of its own, with the egress listener on its loopback."""

    @property
    def mounts(self) -> bool:
        return bool(self.read_only or (self.private_tmp is not None and self.covered))

    def to_json(self) -> dict[str, Any]:
        return {
            "read_only": [str(p) for p in self.read_only],
            "reopened": [str(p) for p in self.reopened],
            "private_tmp": str(self.private_tmp) if self.private_tmp is not None else None,
            "covered": [str(p) for p in self.covered],
            "keep": [str(p) for p in self.keep],
            "network": self.network,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NamespacePlan:
        private = data.get("private_tmp")
        return cls(
            read_only=tuple(Path(p) for p in data.get("read_only", ())),
            reopened=tuple(Path(p) for p in data.get("reopened", ())),
            private_tmp=Path(private) if private else None,
            covered=tuple(Path(p) for p in data.get("covered", ())),
            keep=tuple(Path(p) for p in data.get("keep", ())),
            network=bool(data.get("network")),
        )


def private_tmp_plan(
    private: Path | None, named: Iterable[Path], writable: Iterable[Path]
) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """(the temp folders ``private`` goes over, the paths to bind back) for a policy that
    names ``named``, of which ``writable`` may be written.

    Landlock's rules follow the path upward through a mount to the folder it is mounted
    on, so whatever is bound back inside the private folder inherits its write right. A
    temp folder is therefore covered only when everything named beneath it may be written
    anyway (the package's own folders); a temp folder holding anything else the policy
    names — a workspace in ``/tmp``, a package installed there, ``/`` granted — stays as
    it is, and writes there are refused as before."""
    if private is None:
        return (), ()
    paths = {Path(os.path.abspath(p)) for p in named}
    open_paths = [Path(os.path.abspath(p)) for p in writable]

    def beneath(path: Path, folder: Path) -> bool:
        return path == folder or folder in path.parents

    covered = []
    for folder in TMP_FOLDERS:
        if not folder.is_dir() or folder.is_symlink():
            continue
        inside = [p for p in paths if beneath(folder, p) or folder in p.parents]
        if all(folder in p.parents and any(beneath(p, w) for w in open_paths) for p in inside):
            covered.append(folder)
    keep: list[Path] = []
    for path in sorted(paths, key=lambda p: len(p.parts)):
        if not any(folder in path.parents for folder in covered):
            continue
        if not any(beneath(path, kept) for kept in keep):
            keep.append(path)
    return tuple(covered), tuple(keep)


@functools.cache
def _libc() -> ctypes.CDLL:
    # The C library this process already has: ctypes.util.find_library would import
    # subprocess and shutil into every trampoline (tens of ms of CPU per package start).
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_void_p]
    return libc


def _check(result: int, what: str, path: Path | str | None = None) -> None:
    if result != 0:
        code = ctypes.get_errno()
        where = f" {path}" if path is not None else ""
        raise OSError(code, f"{what}{where}: {os.strerror(code)}")


def _kept(path: Path) -> int:
    """The flags of the mount ``path`` is on that a bind remount must repeat (nodev,
    noexec, nosuid, atime): a remount that drops a locked one fails, and dropping any
    would widen what the child may do."""
    try:
        have = os.statvfs(path).f_flag
    except OSError:
        return _MS_NOSUID
    return _MS_NOSUID | sum(flag for bit, flag in _KEPT_FLAGS.items() if have & bit)


def _bind(source: bytes, target: Path, what: str) -> None:
    _check(_libc().mount(source, os.fsencode(target), None, _MS_BIND | _MS_REC, None), what, target)


def _remount(target: Path, flags: int, what: str) -> None:
    flags |= _MS_BIND | _MS_REMOUNT
    _check(_libc().mount(None, os.fsencode(target), None, flags, None), what, target)


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


def _walk(root: Path, parts: tuple[str, ...], *, folder: bool, create: bool) -> int:
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


def _private_tmp(private: Path, covered: tuple[Path, ...], keep: tuple[Path, ...]) -> None:
    """``private`` over each of ``covered``; then each of ``keep`` (held open first: the
    bind hides it) bound back at its own path. Their places in ``private`` are made first,
    and found again after the bind, without following a link the package left there."""
    held: list[tuple[Path, tuple[str, ...], bool, int]] = []
    try:
        for path in keep:
            folder = next((f for f in covered if f in path.parents), None)
            if folder is None or not os.path.exists(path):
                continue
            parts, is_folder = path.relative_to(folder).parts, path.is_dir()
            os.close(_walk(private, parts, folder=is_folder, create=True))
            held.append((folder, parts, is_folder, os.open(path, os.O_PATH | os.O_CLOEXEC)))
        for folder in covered:
            _bind(os.fsencode(private), folder, f"private {folder}")
        for folder, parts, is_folder, source in held:
            target = _walk(folder, parts, folder=is_folder, create=False)
            try:
                _bind(f"/proc/self/fd/{source}".encode(), Path(f"/proc/self/fd/{target}"), "keep")
            finally:
                os.close(target)
    finally:
        for *_, fd in held:
            os.close(fd)


def enter_namespaces(plan: NamespacePlan, *, user_namespace: bool = False) -> int | None:
    """On the calling thread, which must have its own ``fs_struct`` (``unshare(CLONE_FS)``):
    the namespaces of ``plan``. ``user_namespace``: make a user namespace first (the
    caller has no ``CAP_SYS_ADMIN``; only a single-threaded process may), mapping only the
    caller's own ids. Returns the egress listener's descriptor when ``plan.network``.
    Raises ``OSError``."""
    libc = _libc()
    flags = (_CLONE_NEWNS if plan.mounts else 0) | (_CLONE_NEWNET if plan.network else 0)
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
    if plan.mounts:
        # Nothing done here may reach the gateway's own namespace.
        _check(libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "make / private")
        for path in plan.read_only:
            _bind(os.fsencode(path), path, "bind")
            _remount(path, _MS_RDONLY | _kept(path), "read-only")
        for path in plan.reopened:
            _bind(os.fsencode(path), path, "reopen")
            _remount(path, _kept(path.parent) & ~_MS_RDONLY, "writable")
        if plan.private_tmp is not None:
            _private_tmp(plan.private_tmp, plan.covered, plan.keep)
        if cwd is not None:
            os.chdir(cwd)  # the working folder as this namespace shows it
    return open_loopback_listener() if plan.network else None
