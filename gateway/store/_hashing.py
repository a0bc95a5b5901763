"""Content hashing of an installed package tree, with a stat cache.

nanobot re-hashes every installed tree (``node_modules`` included) on every discovery,
which costs a quarter of a second per package. Here each file's sha256 is cached together
with its ``stat`` fingerprint (size, mtime, ctime, inode), the same fields git's index uses;
a file is only read again when one of them changed. ctime and inode are included because
``cp -p``/``tar`` can restore an mtime, but nothing short of changing the clock can restore
a ctime.

The tree hash covers, in sorted order, every relative path with its kind, the executable
bit of files, symlink targets (links are never followed) and file digests. Anything else
(FIFOs, sockets, devices) makes the tree unhashable: opening a FIFO could block forever.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from gateway.base import GatewayError

__all__ = [
    "ContentHashError",
    "FileEntry",
    "HashCache",
    "content_hash",
    "fingerprint_changed",
]

_HASH_FORMAT = b"gateway-content-v1\0"
_CACHE_FORMAT = 1
# A file modified this close to (or after) the start of a scan may change again within
# the same timestamp tick without its stat changing ("racy git"). Such entries are not
# trusted next time. Two seconds covers coarse-clock filesystems (FAT has 2 s mtimes).
_RACY_WINDOW_NS = 2_000_000_000


class ContentHashError(GatewayError):
    """The tree could not be hashed (unreadable file, special file, vanished entry)."""


@dataclass(frozen=True, slots=True)
class FileEntry:
    """What was seen at one relative path during the last hash."""

    kind: str  # "f" regular file, "l" symlink, "d" directory
    executable: bool
    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    # sha256 hex for files, the target for symlinks; None for directories and for files
    # whose stat was too recent to vouch for their content next time.
    digest: str | None

    def same_stat(self, st: os.stat_result) -> bool:
        return (self.size, self.mtime_ns, self.ctime_ns, self.inode, self.executable) == (
            _stat_key(st)
        )


class HashCache:
    """Read-only map of relative path → :class:`FileEntry`; serialisable to JSON. One read
    from the store (``from_json``) is parsed when first used: listing a home's packages —
    a ``node_modules`` each for some, thousands of entries — parses none of them, and a
    check of one package parses only its own."""

    __slots__ = ("_entries", "_stored")

    def __init__(self, entries: Mapping[str, FileEntry] | None = None) -> None:
        self._entries: Mapping[str, FileEntry] | None = MappingProxyType(dict(entries or {}))
        self._stored: str | None = None

    @property
    def entries(self) -> Mapping[str, FileEntry]:
        if self._entries is None:
            self._entries = MappingProxyType(_parsed(self._stored or ""))
            self._stored = None
        return self._entries

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HashCache):
            return NotImplemented
        return dict(self.entries) == dict(other.entries)

    __hash__ = None  # type: ignore[assignment]  # unhashable, as its map is

    def __len__(self) -> int:
        return len(self.entries)

    def __repr__(self) -> str:  # a node_modules cache has thousands of entries
        return f"HashCache(<{len(self.entries)} entries>)"

    def to_json(self) -> str:
        rows = {
            rel: [e.kind, int(e.executable), e.size, e.mtime_ns, e.ctime_ns, e.inode, e.digest]
            for rel, e in self.entries.items()
        }
        return json.dumps({"format": _CACHE_FORMAT, "entries": rows}, separators=(",", ":"))

    def stat_rows(self) -> Mapping[str, list[Any]]:
        """Each path's ``[kind, executable, size, mtime_ns, ctime_ns, inode, digest]``, as
        stored: what ``fingerprint_changed`` compares. A stored cache not parsed yet gives
        its JSON rows as they are — no ``FileEntry`` made for each of thousands of files at
        every load (~a third of the check of a package with its ``node_modules``)."""
        if self._entries is None:
            return _rows(self._stored or "")
        return {
            rel: [e.kind, e.executable, e.size, e.mtime_ns, e.ctime_ns, e.inode, e.digest]
            for rel, e in self._entries.items()
        }

    @classmethod
    def from_json(cls, text: str) -> HashCache:
        """A stored cache, parsed when first used; anything unreadable is an empty cache
        (just a rehash)."""
        cache = cls()
        cache._entries, cache._stored = None, text
        return cache


def _rows(text: str) -> dict[str, list[Any]]:
    """The stored rows by path; anything unreadable or of another format: none."""
    try:
        data = json.loads(text)
        rows = data["entries"] if data.get("format") == _CACHE_FORMAT else {}
    except (ValueError, TypeError, KeyError, AttributeError):
        return {}
    if not isinstance(rows, dict) or not all(
        isinstance(row, list) and len(row) == 7 for row in rows.values()
    ):
        return {}
    return rows


def _parsed(text: str) -> dict[str, FileEntry]:
    try:
        return {
            rel: FileEntry(
                kind=str(kind),
                executable=bool(x),
                size=int(size),
                mtime_ns=int(mtime),
                ctime_ns=int(ctime),
                inode=int(ino),
                digest=None if digest is None else str(digest),
            )
            for rel, (kind, x, size, mtime, ctime, ino, digest) in _rows(text).items()
        }
    except (ValueError, TypeError):
        return {}


def _is_executable(st: os.stat_result) -> bool:
    return stat.S_ISREG(st.st_mode) and bool(st.st_mode & 0o111)


def _stat_key(st: os.stat_result) -> tuple[int, int, int, int, bool]:
    """What a cached file's digest is vouched for by: size, mtime, ctime, inode, the x bit."""
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, _is_executable(st)


def _now_ns() -> int:
    return time.time_ns()


def _file_sha256(path: Path) -> tuple[str, os.stat_result]:
    """Read one file; the only place file contents are read (tests count calls here)."""
    # O_NOFOLLOW/O_NONBLOCK: the entry may have been swapped for a link or FIFO since the
    # directory scan; refuse rather than follow it or block on it.
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_BINARY", 0))
    with open(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise ContentHashError(f"{path} is no longer a regular file")
        return hashlib.file_digest(fh, "sha256").hexdigest(), st


def _walk(root: Path) -> Iterator[tuple[str, os.stat_result]]:
    """Yield (relative posix path, lstat) for everything under root, links not followed."""
    stack: list[tuple[str, str]] = [("", os.fspath(root))]
    while stack:
        prefix, directory = stack.pop()
        with os.scandir(directory) as it:
            for entry in it:
                rel = prefix + entry.name
                st = entry.stat(follow_symlinks=False)
                if stat.S_ISDIR(st.st_mode):
                    stack.append((rel + "/", entry.path))
                elif not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
                    raise ContentHashError(f"{entry.path} is not a file, directory or symlink")
                yield rel, st


def _kind(st: os.stat_result) -> str:
    if stat.S_ISDIR(st.st_mode):
        return "d"
    return "l" if stat.S_ISLNK(st.st_mode) else "f"


def _scan(root: Path, ordered: bool = True) -> list[tuple[str, os.stat_result]]:
    """The tree's entries, sorted by path when ``ordered`` (the hash's order)."""
    if not root.is_dir():
        raise ContentHashError(f"{root} is not a directory")
    try:
        found = list(_walk(root))
        return sorted(found, key=lambda item: item[0]) if ordered else found
    except OSError as exc:
        raise ContentHashError(f"cannot scan {root}: {exc}") from exc


def content_hash(root: Path, cache: HashCache | None = None) -> tuple[str, HashCache]:
    """Hash the tree at ``root``; return ``("sha256:<hex>", new_cache)``.

    Files whose stat matches ``cache`` are not read again. Raises
    :class:`ContentHashError` when the tree cannot be hashed.
    """
    previous = cache.entries if cache is not None else {}
    racy_after = _now_ns() - _RACY_WINDOW_NS
    digest = hashlib.sha256(_HASH_FORMAT)
    entries: dict[str, FileEntry] = {}
    for rel, st in _scan(root):
        kind = _kind(st)
        value: str | None = None
        try:
            if kind == "l":
                value = os.readlink(root / rel)
            elif kind == "f":
                old = previous.get(rel)
                if old is not None and old.kind == "f" and old.digest and old.same_stat(st):
                    value = old.digest
                else:
                    value, st = _file_sha256(root / rel)
        except OSError as exc:
            raise ContentHashError(f"cannot read {root / rel}: {exc}") from exc
        x = _is_executable(st)
        # NUL cannot occur in a path, so these fields cannot run into each other.
        digest.update(
            b"%s\0%s\0%s\0%s\0"
            % (
                kind.encode(),
                os.fsencode(rel),
                b"x" if x else b"-",
                (value or "").encode("utf-8", "surrogateescape"),
            )
        )
        cached = value
        if kind == "f" and max(st.st_mtime_ns, st.st_ctime_ns) >= racy_after:
            cached = None
        entries[rel] = FileEntry(
            kind, x, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, cached
        )
    return "sha256:" + digest.hexdigest(), HashCache(entries)


def fingerprint_changed(root: Path, cache: HashCache) -> bool:
    """Cheaply tell whether ``root`` may differ from when ``cache`` was made.

    Only stats the tree (and reads symlink targets); never reads file contents. ``True``
    means "rehash to be sure": it is also the answer for racy entries and scan errors.
    """
    try:
        seen = _scan(root, ordered=False)  # compared by name: no order needed
    except ContentHashError:
        return True
    previous = cache.stat_rows()
    if len(seen) != len(previous):
        return True
    for rel, st in seen:
        old = previous.get(rel)
        if old is None:
            return True
        kind, executable, size, mtime_ns, ctime_ns, inode, digest = old
        if kind != _kind(st):
            return True
        if kind == "f" and (
            digest is None or (size, mtime_ns, ctime_ns, inode, bool(executable)) != _stat_key(st)
        ):
            return True
        if kind == "l":
            try:
                if os.readlink(root / rel) != digest:
                    return True
            except OSError:
                return True
    return False
