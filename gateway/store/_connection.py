"""Opening the state store's file, ``<home>/state.sqlite3``: made private before SQLite sees
it, its header checked, then connected in WAL mode with a busy timeout and migrated; and
SQLite's errors translated into the store's own.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from gateway.base import private_dir, private_file
from gateway.store._schema import (
    StoreBusy,
    StoreCorrupt,
    StoreError,
    check_header,
    check_readable,
    migrate,
)

__all__ = ["BUSY_TIMEOUT_S", "STATE_FILE", "connect", "translate"]

STATE_FILE = "state.sqlite3"
BUSY_TIMEOUT_S = 10.0
_SQLITE_BUSY, _SQLITE_CORRUPT, _SQLITE_NOTADB = 5, 11, 26


def connect(home: Path) -> tuple[sqlite3.Connection, Path]:
    """A validated, migrated connection to ``home/state.sqlite3`` (created if missing) and
    the file's path.

    Raises :class:`StoreCorrupt` or :class:`StoreTooNew` without modifying the file.
    """
    path = Path(home) / STATE_FILE
    try:
        private_dir(path.parent)
        existed = path.exists()
        if not existed:
            # Made 0600 before SQLite opens it: SQLite gives its -wal and -shm files
            # the database file's mode.
            os.close(private_file(path, exclusive=True))
    except FileExistsError:
        existed = True  # another process made it meanwhile
    except OSError as exc:
        raise StoreError(f"cannot create the gateway home {path.parent}: {exc}") from exc
    _tighten(path)
    check_header(path)
    # mode=rw: never let SQLite create a fresh file (with the umask's mode) in place of
    # one that disappeared between our check and the connect.
    uri = f"{path.absolute().as_uri()}?mode=rw"
    try:
        conn = sqlite3.connect(
            uri,
            uri=True,
            timeout=BUSY_TIMEOUT_S,
            isolation_level=None,
            check_same_thread=False,
        )
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open state store {path}: {exc}") from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        check_readable(conn, path)  # before anything that writes
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA synchronous = FULL")
        migrate(conn, path)
    except sqlite3.Error as exc:
        conn.close()
        raise translate(exc, path) from exc
    except BaseException:
        conn.close()
        raise
    return conn, path


def translate(exc: sqlite3.Error, path: Path) -> StoreError:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
        return StoreCorrupt(path, str(exc))
    if code is not None and code & 0xFF == _SQLITE_BUSY:
        return StoreBusy(
            f"state store {path} stayed locked by another process for {BUSY_TIMEOUT_S:.0f} s"
        )
    return StoreError(f"state store {path}: {exc}")


def _tighten(path: Path) -> None:
    """0600 for the store and its WAL files, when an older gateway made them with the
    umask's mode."""
    for candidate in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            info = candidate.lstat()
            if stat.S_ISREG(info.st_mode) and info.st_mode & 0o077 and info.st_uid == os.geteuid():
                candidate.chmod(0o600)
        except OSError:
            continue
