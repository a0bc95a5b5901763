"""Reading the state store without changing it: ``gateway doctor``'s integrity check, the
installed ids that shell completion offers, and the fingerprint of the package set a running
server follows. None creates, migrates nor switches the file to WAL: a read-only ``sqlite3``
connection (``mode=ro``) after the same header check."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

from gateway.store._connection import BUSY_TIMEOUT_S, STATE_FILE, translate
from gateway.store._schema import StoreCorrupt, StoreError, check_header, check_readable

__all__ = ["check_store", "package_set_fingerprint", "read_installed_ids"]


def _connect(path: Path) -> sqlite3.Connection:
    check_header(path)
    uri = f"{path.absolute().as_uri()}?mode=ro"
    try:
        return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open state store {path}: {exc}") from exc


def check_store(home: Path) -> tuple[int, int] | None:
    """``(schema version, installed packages)`` of ``home``'s store after SQLite's full
    ``PRAGMA integrity_check``; None when there is no store yet. Raises :class:`StoreError`
    (``StoreCorrupt``, ``StoreTooNew``, ``StoreBusy``) saying what is wrong."""
    path = Path(home) / STATE_FILE
    if not path.exists():
        return None
    conn = _connect(path)
    try:
        version = check_readable(conn, path)
        problems = [row[0] for row in conn.execute("PRAGMA integrity_check").fetchall()]
        if problems != ["ok"]:
            raise StoreCorrupt(path, "integrity check failed: " + "; ".join(problems[:3]))
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        count = 0
        if "packages" in tables:
            count = conn.execute("SELECT count(*) FROM packages").fetchone()[0]
    except sqlite3.Error as exc:
        raise translate(exc, path) from exc
    finally:
        conn.close()
    return version, int(count)


def read_installed_ids(home: Path) -> list[str]:
    """The installed packages' ids, sorted; empty when there is no usable store (shell
    completion offers nothing rather than fail)."""
    path = Path(home) / STATE_FILE
    if not path.is_file():
        return []
    try:
        conn = _connect(path)
    except StoreError:
        return []
    try:
        rows = conn.execute("SELECT id FROM packages ORDER BY id").fetchall()
    except sqlite3.Error:
        return []
    finally:
        conn.close()
    return [str(row[0]) for row in rows]


_PACKAGE_SET = (
    "SELECT id, version, path, content_hash, enabled, trusted, trusted_hash, process_group "
    "FROM packages ORDER BY id",
    "SELECT package_id, permission FROM grants ORDER BY package_id, permission",
)


def package_set_fingerprint(home: Path) -> str | None:
    """A digest of what decides which packages run and how: each package's version, files,
    gates (enabled, trust) and group, and every grant. It changes when ``install``,
    ``update``, ``uninstall``, ``sync``, ``grant``, ``trust``, ``enable`` or ``group`` did
    something, and not when a running gateway only read the store or wrote its call journal.
    None when there is no usable store."""
    path = Path(home) / STATE_FILE
    if not path.is_file():
        return None
    try:
        conn = _connect(path)
    except StoreError:
        return None
    digest = hashlib.sha256()
    try:
        for query in _PACKAGE_SET:
            for row in conn.execute(query):
                digest.update(repr(tuple(row)).encode())
            digest.update(b"\0")
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    return digest.hexdigest()
