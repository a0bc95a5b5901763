"""Unpacking a package tarball without trusting it, on every Python the gateway supports.

``tarfile``'s ``filter="data"`` arrived in 3.11.4; on 3.11.0 to 3.11.3 ``extractall`` rejects
the argument. This module applies the same rules itself, member by member, and never calls
``extractall``: no absolute names, nothing outside the destination (also not through a
symlink extracted earlier), no links pointing outside it, no device files or FIFOs, no
owners; files are private (0600, or 0700 when executable). It also stops at the install
limits (entries, depth, files, bytes — counted as the data is written, not as the header
claims) instead of filling the disk first and counting later: ``VerifyError`` names the
limit. The archive is streamed, never listed whole. The unpacked tree is verified again
afterwards (``_verify``), like any other source.
"""

from __future__ import annotations

import os
import shutil
import tarfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from gateway.base import GatewayError
from gateway.packages._trees import Budget, file_mode
from gateway.packages._verify import InstallLimits

__all__ = ["ExtractError", "extract_tarball"]

_CHUNK = 1 << 20


class ExtractError(GatewayError):
    """The tarball cannot be unpacked safely; ``str()`` names the member and the rule."""


def extract_tarball(
    archive: Path,
    destination: Path,
    limits: InstallLimits | None = None,
    keep: Callable[[str], bool] | None = None,
) -> Budget:
    """Unpack ``archive`` (any compression tarfile reads) into ``destination`` (made 0700
    if missing; else it must be empty); raises ``ExtractError`` for an unsafe member and
    ``VerifyError`` at the first limit crossed. ``keep``: only members whose name it accepts
    are unpacked (an audit reads a package without its dependencies' code)."""
    budget = Budget(limits or InstallLimits())
    destination.mkdir(mode=0o700, parents=True, exist_ok=True)
    root = destination.resolve()
    checked: set[Path] = set()
    try:
        with tarfile.open(archive, "r:*") as tar:
            for member in tar:
                if keep is not None and not keep(member.name):
                    tar.members.clear()  # type: ignore[attr-defined]  # not in typeshed
                    continue
                target = _target(root, member.name)
                if target != root:
                    budget.entry(target.relative_to(root).as_posix())
                if member.isdir():
                    _make_dir(root, target, checked)
                elif member.isreg():
                    budget.file(0)
                    budget.expect(member.size)
                    _write_file(tar, member, root, target, budget, checked)
                elif member.issym():
                    _make_symlink(member, root, target, checked)
                elif member.islnk():
                    _make_hardlink(member, root, target, budget, checked)
                else:
                    raise ExtractError(f"{member.name}: special files are refused")
                # Keep nothing per member: a huge archive stays small in memory.
                tar.members.clear()  # type: ignore[attr-defined]  # not in typeshed
    except tarfile.TarError as error:
        raise ExtractError(str(error)) from None
    except OSError as error:
        raise ExtractError(f"{error.filename or ''}: {error.strerror or error}") from None
    return budget


def _target(root: Path, name: str) -> Path:
    path = PurePosixPath(name)
    if path.is_absolute() or name.startswith(("/", "\\")):
        raise ExtractError(f"{name}: absolute member names are refused")
    if ".." in path.parts:
        raise ExtractError(f"{name}: member names with '..' are refused")
    parts = [part for part in path.parts if part not in ("", ".")]
    return root.joinpath(*parts) if parts else root


def _inside(root: Path, path: Path) -> bool:
    return path == root or path.is_relative_to(root)


def _parent_inside(root: Path, target: Path, name: str) -> None:
    """The real folder ``target`` goes into must be under ``root`` (no symlinked parent)."""
    parent = Path(os.path.realpath(target.parent))
    if not _inside(root, parent):
        raise ExtractError(f"{name}: would be written outside the package (through a link)")


def _ready_parent(root: Path, target: Path, name: str, checked: set[Path]) -> None:
    """``target``'s folder made and under ``root``. ``checked``: the folders known to be,
    while no link in the tree was made or removed since (either can move where a path
    leads): a package of thousands of files resolved each one's folder anew."""
    parent = target.parent
    if parent in checked:
        return
    parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    _parent_inside(root, target, name)
    checked.add(parent)


def _clear(target: Path, checked: set[Path]) -> None:
    """A later member replaces an earlier one of the same name; never write through a link."""
    if target.is_symlink():
        target.unlink()
        checked.clear()
    elif target.is_file():
        target.unlink()


def _make_dir(root: Path, target: Path, checked: set[Path]) -> None:
    if target == root:
        return
    _parent_inside(root, target, str(target))
    if target.is_symlink():
        target.unlink()
        checked.clear()
    target.mkdir(mode=0o700, parents=True, exist_ok=True)


def _write_file(
    tar: tarfile.TarFile,
    member: tarfile.TarInfo,
    root: Path,
    target: Path,
    budget: Budget,
    checked: set[Path],
) -> None:
    _ready_parent(root, target, member.name, checked)
    _clear(target, checked)
    source = tar.extractfile(member)
    if source is None:  # pragma: no cover - isreg() members always have data
        raise ExtractError(f"{member.name}: no data")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(target, flags, file_mode(member.mode))
    with source, os.fdopen(descriptor, "wb") as out:
        while chunk := source.read(_CHUNK):
            budget.spend(len(chunk))
            out.write(chunk)
    os.utime(target, (member.mtime, member.mtime))


def _make_symlink(member: tarfile.TarInfo, root: Path, target: Path, checked: set[Path]) -> None:
    link = member.linkname
    if os.path.isabs(link):
        raise ExtractError(f"{member.name}: a symlink to an absolute path ({link}) is refused")
    target.parent.mkdir(parents=True, exist_ok=True)
    # Resolved from where the link really is: an earlier link may have moved its folder.
    pointed = Path(os.path.normpath(Path(os.path.realpath(target.parent)) / link))
    if not _inside(root, pointed):
        raise ExtractError(f"{member.name}: a symlink leaving the package ({link}) is refused")
    target.parent.mkdir(parents=True, exist_ok=True)
    _parent_inside(root, target, member.name)
    _clear(target, checked)
    os.symlink(link, target)
    checked.clear()


def _make_hardlink(
    member: tarfile.TarInfo, root: Path, target: Path, budget: Budget, checked: set[Path]
) -> None:
    try:
        real = Path(os.path.realpath(_target(root, member.linkname)))
    except ExtractError:
        real = None
    if real is None or not _inside(root, real) or not real.is_file():
        raise ExtractError(
            f"{member.name}: a hard link to {member.linkname}, which is not a file unpacked "
            "before it, is refused"
        )
    _ready_parent(root, target, member.name, checked)
    _clear(target, checked)
    budget.file(real.stat().st_size)
    shutil.copyfile(real, target)  # a copy: the package's files stay independent
    os.chmod(target, file_mode(member.mode))
