"""``install FOLDER#NAME`` (or ``GIT-URL#REF#NAME``): the package a collection (a Claude Code
or Codex marketplace) offers, found by the adapter that reads the collection
(``OffersPackages``), in the collection's folder or fetched from where it says (git, a folder
of a git repository, npm, an archive pinned by SHA-256) by the installer's own fetchers."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path, PurePosixPath
from typing import Any

from gateway.base import Diagnostic, Progress
from gateway.model import OfferedSource
from gateway.packages import _codes
from gateway.packages._adapters import NoAdapters, load_adapters, select_offered
from gateway.packages._archive import ArchiveDigestMismatch, ArchiveError, fetch_archive
from gateway.packages._sources import Fetched, Source, SourceError, fetch, parse_source
from gateway.packages._tools import FetchError
from gateway.packages._verify import InstallLimits, VerifyError, verify_tree

__all__ = ["adapters_offered", "offered_package"]


def offered_package(
    source: Any,
    fetched: Fetched,
    staging: Path,
    home: Path,
    limits: InstallLimits,
    progress: Progress,
) -> Fetched:
    """The package ``source.member`` names inside the fetched collection; the fetched
    folder itself when the source names none. Raises ``SourceError`` (with the
    collection's diagnostics) when it cannot be had; runs nothing of it."""
    if source.member is None:
        return fetched
    chosen = adapters_offered(fetched.root, source.member)
    subject = f"cannot install {source.describe()}"
    if chosen is None and fetched.ref_as_member:
        raise SourceError(
            f"cannot install {source.location}#{source.member}: git ref {source.member!r} is "
            f"not a branch, tag or commit of the repository, and it is no marketplace (no "
            ".claude-plugin/marketplace.json) offering a plugin of that name"
        )
    if chosen is None:
        raise SourceError(
            f"{subject}: #{source.member} names a package of a marketplace, and "
            f"{source.location} is none (no .claude-plugin/marketplace.json or "
            ".agents/plugins/marketplace.json)"
        )
    if isinstance(chosen, list):
        staged, shown_as = str(fetched.root), source.describe()
        shown = [
            dataclasses.replace(d, message=d.message.replace(staged, shown_as)) for d in chosen
        ]
        raise SourceError(f"{subject}: {shown[0].message}", shown)
    # A git marketplace's plugin: the marketplace's commit leads what was resolved.
    lead = f"{fetched.resolved}; " if source.kind == "git" else ""
    if isinstance(chosen, Path):
        resolved = fetched.resolved if source.kind == "git" else source.describe()
        return dataclasses.replace(fetched, root=chosen, resolved=resolved)
    where = _where(chosen)
    try:
        target = staging / "offered"
        target.mkdir()
        inner = _fetch_offered(chosen, target, home, limits, progress)
        verify_tree(inner.root, limits)
    except ArchiveDigestMismatch as error:
        diagnostic = _codes.ARCHIVE_DIGEST_MISMATCH(f"{subject}: {error}")
        raise SourceError(diagnostic.message, [diagnostic]) from None
    except (FetchError, VerifyError, ArchiveError, OSError) as error:
        raise SourceError(f"{subject}: {where}: {error}") from None
    return dataclasses.replace(inner, source=source, resolved=f"{lead}{where} {inner.resolved}")


def _where(chosen: OfferedSource) -> str:
    if chosen.kind == "archive":
        return f"archive {chosen.location} sha256:{chosen.sha256}"
    path = f" {chosen.path}" if chosen.path is not None else ""
    return f"{chosen.kind} {chosen.location}{path}"


def _fetch_offered(
    chosen: OfferedSource, target: Path, home: Path, limits: InstallLimits, progress: Progress
) -> Fetched:
    """The package where the collection says; a git ``path`` stays under the clone."""
    if chosen.kind == "archive":
        if chosen.sha256 is None:
            raise ArchiveError("an archive without a sha256 pin is not fetched")
        progress(f"fetching {chosen.location} (archive, sha256 {chosen.sha256[:12]}…)")
        root = fetch_archive(chosen.location, chosen.sha256, target, limits)
        source = Source("archive", chosen.location)
        return Fetched(source, root, f"sha256:{chosen.sha256}")
    inner = fetch(parse_source(chosen.location, chosen.kind), target, home=home,
                  limits=limits, progress=progress)  # fmt: skip
    if chosen.path is None or chosen.path == ".":
        return inner
    verify_tree(inner.root, limits)  # a link anywhere in the clone is refused first
    folder = subfolder(inner.root, chosen.path)
    return dataclasses.replace(inner, root=folder)


def subfolder(root: Path, path: str) -> Path:
    """``root/path``, a folder that is lexically and really (links resolved) under
    ``root``; ``FetchError`` otherwise."""
    parts = PurePosixPath(path).parts
    if not parts or PurePosixPath(path).is_absolute() or ".." in parts or "\\" in path:
        raise FetchError(f"path {path[:200]!r} is absolute or leaves the repository")
    folder = root.joinpath(*parts)
    real_root = os.path.realpath(root)
    real = os.path.realpath(folder)
    if os.path.commonpath([real_root, real]) != real_root or folder.is_symlink():
        raise FetchError(f"path {path[:200]!r} leads out of the repository (a symlink)")
    if not folder.is_dir():
        raise FetchError(f"path {path[:200]!r} is no folder of the repository")
    return folder


def adapters_offered(
    root: Path, name: str | None
) -> Path | OfferedSource | list[Diagnostic] | None:
    try:
        adapters = load_adapters()
    except NoAdapters:
        return None
    return select_offered(adapters, root, name)
