"""A digest of every decision the state store holds — installed packages and their gates,
grants, groups, workspace trust, adopted policies, but not the call journal, which calls
write —: what a warm session compares before each command to know it must load again
(gateway/host/_freshness.py).

``read_state_digest`` reads it afresh. ``StateDigestReader`` says the same for one home
across many checks and reads the tables again only when the store may have changed: it
keeps a read-only connection open, and SQLite's ``PRAGMA data_version`` on that connection
moves whenever any other connection, in any process, commits; the file's identity, size
and mtime say whether it is still the file that was read (replaced, removed, written in
place). Reading the tables steps over each package's ``hash_cache`` (tens of KB a
package), so a home of thirty packages paid ~1.2 ms a check for a store no one had
changed; the check is now a ``stat`` and one pragma (docs/performance/home.md).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
import threading
from pathlib import Path

from gateway.store._connection import STATE_FILE
from gateway.store._readonly import connect_readonly
from gateway.store._schema import StoreError

__all__ = ["StateDigestReader", "read_state_digest"]

_NOT_DECISIONS = frozenset({"call_journal"})
"""Tables a tool call writes (the at-most-once journal): not what a load reads."""
_DERIVED = frozenset({"hash_cache"})
"""Columns that only speed up reading others (each file's size and mtime behind a content
hash: large, and the content hash beside it says what matters)."""
_UNREADABLE = "unreadable"


def _quoted(name: object) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def _tables_digest(conn: sqlite3.Connection) -> str:
    digest = hashlib.sha256()
    names = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    digest.update(str(conn.execute("PRAGMA user_version").fetchone()).encode())
    for (name,) in sorted(names):
        if name in _NOT_DECISIONS or name.startswith("sqlite_"):
            continue
        digest.update(f"\0{name}\0".encode())
        quoted = _quoted(name)
        columns = [row[1] for row in conn.execute(f"PRAGMA table_info({quoted})")]
        kept = ", ".join(_quoted(c) for c in columns if c not in _DERIVED) or "1"
        for row in conn.execute(f"SELECT {kept} FROM {quoted} ORDER BY 1"):
            digest.update(repr(row).encode())
    return digest.hexdigest()


def read_state_digest(home: Path) -> str:
    """The digest of ``home``'s store; ``""`` when there is no store, ``"unreadable"``
    when it cannot be read."""
    path = Path(home) / STATE_FILE
    if not path.is_file():
        return ""
    try:
        conn = connect_readonly(path)
    except StoreError:
        return _UNREADABLE
    try:
        return _tables_digest(conn)
    except sqlite3.Error:
        return _UNREADABLE
    finally:
        conn.close()


class StateDigestReader:
    """``read_state_digest(home)`` for one home, kept open across calls (from any thread);
    ``close`` when done. What it returns is what ``read_state_digest`` would: the tables
    are read again whenever another connection has committed since, the file is another,
    or the last read failed."""

    def __init__(self, home: Path) -> None:
        self._path = Path(home) / STATE_FILE
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._read: tuple[tuple[int, int, int, int], int, str] | None = None
        """The file (device, inode, size, mtime) and ``data_version`` the digest was read at."""
        self.reads = 0
        """How many times the tables were read (each a full digest)."""

    def read(self) -> str:
        with self._lock:
            try:
                info = os.stat(self._path)
            except OSError:
                info = None
            if info is None or not stat.S_ISREG(info.st_mode):
                self._close()
                return ""
            file = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
            try:
                return self._digest(file)
            except (sqlite3.Error, StoreError):
                self._close()
                return _UNREADABLE

    def _digest(self, file: tuple[int, int, int, int]) -> str:
        if self._conn is not None and self._read is not None and self._read[0] == file:
            (version,) = self._conn.execute("PRAGMA data_version").fetchone()
            if version == self._read[1]:
                return self._read[2]
        self._close()
        self._conn = conn = connect_readonly(self._path, any_thread=True)
        # One read transaction: the version and the tables are one snapshot.
        conn.execute("BEGIN")
        try:
            (version,) = conn.execute("PRAGMA data_version").fetchone()
            digest = _tables_digest(conn)
        finally:
            conn.execute("ROLLBACK")
        self.reads += 1
        self._read = (file, version, digest)
        return digest

    def _close(self) -> None:
        self._read = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def close(self) -> None:
        with self._lock:
            self._close()
