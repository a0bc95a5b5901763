"""An archive a collection names by an https URL and a SHA-256 (a Claude Code marketplace's
``archive`` source): downloaded from exactly that URL, its digest checked before a byte of it
is unpacked, then unpacked without trusting it.

Nothing else is fetched: no redirect is followed (a redirect names another place than the
marketplace did), no credentials are sent, and the download stops at ``MAX_ARCHIVE_BYTES``
(Claude Code's own limit, 256 MiB). A zip is unpacked member by member with the rules the
tarball extractor applies (``_extract``): no absolute names or ``..``, no links, no special
files, files private, at most ``MAX_ARCHIVE_ENTRIES`` entries (Claude Code's 20 000) and the
install limits counted as the data is written. A gzipped or plain tarball goes through
``extract_tarball`` with the same entry limit.
"""

from __future__ import annotations

import dataclasses
import hashlib
import ssl
import stat
import urllib.error
import urllib.request
import zipfile
from pathlib import Path, PurePosixPath

from gateway.base import GatewayError
from gateway.packages._extract import ExtractError, extract_tarball
from gateway.packages._trees import Budget, file_mode
from gateway.packages._verify import InstallLimits

__all__ = [
    "MAX_ARCHIVE_BYTES",
    "MAX_ARCHIVE_ENTRIES",
    "ArchiveDigestMismatch",
    "ArchiveError",
    "fetch_archive",
]

MAX_ARCHIVE_BYTES = 256 * 1024 * 1024
MAX_ARCHIVE_ENTRIES = 20_000
_CHUNK = 1 << 20
_TIMEOUT = 60.0


class ArchiveError(GatewayError):
    """The archive could not be fetched or unpacked safely; ``str()`` says why."""


class ArchiveDigestMismatch(ArchiveError):
    """What the URL served is not what the collection pinned: nothing was unpacked."""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        raise ArchiveError(f"{req.full_url} redirects ({code}) to {newurl[:200]}; only the URL "
                           "the marketplace names is fetched")  # fmt: skip


def fetch_archive(url: str, sha256: str, staging: Path, limits: InstallLimits) -> Path:
    """Download ``url`` into ``staging``, check it has ``sha256`` (hex), unpack it into
    ``staging/package``; returns the package root (the one top folder, when the archive
    holds exactly one). Raises ``ArchiveDigestMismatch`` or ``ArchiveError``."""
    if not url.startswith("https://"):
        raise ArchiveError(f"{url[:200]} is not an https URL")
    download = staging / "archive"
    digest = _download(url, download)
    if digest != sha256.lower():
        download.unlink(missing_ok=True)
        raise ArchiveDigestMismatch(
            f"{url[:200]} has sha256 {digest}, the marketplace pins {sha256.lower()}; "
            "nothing was unpacked"
        )
    target = staging / "package"
    capped = dataclasses.replace(limits, max_entries=min(limits.max_entries, MAX_ARCHIVE_ENTRIES))
    try:
        if zipfile.is_zipfile(download):
            _unzip(download, target, capped)
        else:
            extract_tarball(download, target, capped)
    except (ExtractError, zipfile.BadZipFile, OSError) as error:
        raise ArchiveError(f"cannot unpack {url[:200]}: {error}") from None
    finally:
        download.unlink(missing_ok=True)
    inside = list(target.iterdir())
    if len(inside) == 1 and inside[0].is_dir() and not inside[0].is_symlink():
        return inside[0]
    return target


def _download(url: str, path: Path) -> str:
    opener = urllib.request.build_opener(
        urllib.request.HTTPSHandler(context=ssl.create_default_context()), _NoRedirect()
    )
    digest = hashlib.sha256()
    written = 0
    try:
        with opener.open(url, timeout=_TIMEOUT) as response, path.open("xb") as out:
            declared = response.headers.get("Content-Length")
            if declared is not None and declared.isdigit() and int(declared) > MAX_ARCHIVE_BYTES:
                raise ArchiveError(f"{url[:200]} is {declared} bytes, over {MAX_ARCHIVE_BYTES}")
            while chunk := response.read(_CHUNK):
                written += len(chunk)
                if written > MAX_ARCHIVE_BYTES:
                    raise ArchiveError(f"{url[:200]} is larger than {MAX_ARCHIVE_BYTES} bytes")
                digest.update(chunk)
                out.write(chunk)
    except urllib.error.HTTPError as error:
        raise ArchiveError(f"{url[:200]}: HTTP {error.code}") from None
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", error)
        raise ArchiveError(f"cannot download {url[:200]}: {reason}") from None
    return digest.hexdigest()


def _unzip(archive: Path, destination: Path, limits: InstallLimits) -> None:
    budget = Budget(limits)
    destination.mkdir(mode=0o700)
    root = destination.resolve()
    with zipfile.ZipFile(archive) as zipped:
        for info in zipped.infolist():
            target = _target(root, info.filename)
            if target == root:
                continue
            budget.entry(target.relative_to(root).as_posix())
            kind = stat.S_IFMT(info.external_attr >> 16)
            if info.is_dir():
                target.mkdir(mode=0o700, parents=True, exist_ok=True)
                continue
            if kind not in (0, stat.S_IFREG):
                raise ExtractError(f"{info.filename[:200]}: not a regular file or folder")
            target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            if target.parent.resolve() != target.parent or not target.parent.is_relative_to(root):
                raise ExtractError(f"{info.filename[:200]}: outside the destination")
            budget.file(0)
            budget.expect(info.file_size)
            with zipped.open(info) as source, target.open("xb") as out:
                while chunk := source.read(_CHUNK):
                    budget.spend(len(chunk))
                    out.write(chunk)
            target.chmod(file_mode(info.external_attr >> 16))


def _target(root: Path, name: str) -> Path:
    """Where ``name`` goes under ``root``; ``ExtractError`` when it is absolute, holds
    ``..`` or a backslash, or is not a plain relative name."""
    pure = PurePosixPath(name)
    if not name or "\x00" in name or "\\" in name or pure.is_absolute() or ".." in pure.parts:
        raise ExtractError(f"{name[:200]!r}: an absolute or escaping name")
    return root.joinpath(*(part for part in pure.parts if part != "."))
