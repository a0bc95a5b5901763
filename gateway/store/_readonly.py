"""Reading the state store without changing it: ``gateway doctor``'s integrity check, the
names that shell completion offers, and the fingerprint of the package set a running
server follows (the digest of every decision, which a warm session compares, is
``_state_digest``'s). None creates, migrates nor switches the file to WAL: a read-only
``sqlite3`` connection (``mode=ro``) after the same header check."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from gateway.store._connection import BUSY_TIMEOUT_S, STATE_FILE, translate
from gateway.store._schema import (
    InstalledPackage,
    StoreCorrupt,
    StoreError,
    check_header,
    check_readable,
)

__all__ = [
    "check_store",
    "connect_readonly",
    "package_set_digest",
    "package_set_fingerprint",
    "read_package_names",
]


def connect_readonly(path: Path, *, any_thread: bool = False) -> sqlite3.Connection:
    """A read-only connection to the store at ``path`` after the header check (``any_thread``:
    usable from any thread, one at a time)."""
    check_header(path)
    uri = f"{path.absolute().as_uri()}?mode=ro"
    try:
        return sqlite3.connect(
            uri,
            uri=True,
            timeout=BUSY_TIMEOUT_S,
            isolation_level=None,
            check_same_thread=not any_thread,
        )
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open state store {path}: {exc}") from exc


def check_store(home: Path) -> tuple[int, int] | None:
    """``(schema version, installed packages)`` of ``home``'s store after SQLite's full
    ``PRAGMA integrity_check``; None when there is no store yet. Raises :class:`StoreError`
    (``StoreCorrupt``, ``StoreTooNew``, ``StoreBusy``) saying what is wrong."""
    path = Path(home) / STATE_FILE
    if not path.exists():
        return None
    conn = connect_readonly(path)
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


def read_package_names(home: Path) -> tuple[list[str], list[str]]:
    """Every name an installed package answers to — its id and the aliases recorded at
    install (``StateStore.names``) —, sorted; and the clash preference, strongest first
    (``StateStore.preferred``). Both empty when there is no usable store (shell completion
    offers nothing rather than fail)."""
    path = Path(home) / STATE_FILE
    if not path.is_file():
        return [], []
    try:
        conn = connect_readonly(path)
    except StoreError:
        return [], []
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        names = {str(row[0]) for row in conn.execute("SELECT id FROM packages")}
        if "package_aliases" in tables:  # an older store, not migrated by a read, has none
            names.update(str(r[0]) for r in conn.execute("SELECT alias FROM package_aliases"))
        preferred = []
        if "clash_preference" in tables:
            preferred = [str(row[0]) for row in conn.execute(_PREFERENCE)]
    except sqlite3.Error:
        return [], []
    finally:
        conn.close()
    return sorted(names), preferred


_PACKAGES = (
    "SELECT id, version, path, content_hash, enabled, trusted, trusted_hash, process_group "
    "FROM packages"
)
_GRANTS = "SELECT package_id, permission FROM grants"
_PREFERENCE = "SELECT package_id FROM clash_preference ORDER BY position"
"""Who wins name clashes (``gateway prefer``); a store older than the table has none."""


def package_set_digest(packages: Iterable[InstalledPackage], preferred: Iterable[str]) -> str:
    """The package set's fingerprint of ``packages`` as a caller read them and of the
    ``preferred`` ids (strongest first): what ``package_set_fingerprint`` says of a store
    holding exactly these, so a running gateway records the set it evaluated, not a read
    of the store made before or after it (a change and its undo meanwhile would look like
    no change)."""
    rows = (
        (p.id, p.record.version, str(p.record.path), p.record.content_hash, p.enabled,
         p.trusted, p.trusted_hash, p.process_group, tuple(sorted(p.granted)))
        for p in packages
    )  # fmt: skip
    return _digest(rows, preferred)


def _digest(packages: Iterable[tuple[object, ...]], preferred: Iterable[str]) -> str:
    rows = sorted(packages, key=lambda row: str(row[0]))
    return hashlib.sha256(repr((rows, list(preferred))).encode()).hexdigest()


def package_set_fingerprint(home: Path) -> str | None:
    """A digest of what decides which packages run and how: each package's version, files,
    gates (enabled, trust) and group, every grant, and who wins name clashes. It changes
    when ``install``, ``update``, ``uninstall``, ``sync``, ``grant``, ``trust``, ``enable``,
    ``group`` or ``prefer`` did something, and not when a running gateway only read the
    store or wrote its call journal. Read in one transaction (one snapshot of the store);
    ``package_set_digest`` of the same packages says the same. None when there is no
    usable store."""
    path = Path(home) / STATE_FILE
    if not path.is_file():
        return None
    try:
        conn = connect_readonly(path)
    except StoreError:
        return None
    try:
        conn.execute("BEGIN")
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        packages = conn.execute(_PACKAGES).fetchall()
        grants: dict[str, list[str]] = {}
        for package_id, permission in conn.execute(_GRANTS):
            grants.setdefault(package_id, []).append(permission)
        preferred: list[str] = []
        if "clash_preference" in tables:
            preferred = [row[0] for row in conn.execute(_PREFERENCE)]
        conn.execute("COMMIT")
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    return _digest(
        (
            (package_id, version, str(Path(folder)), content_hash, bool(enabled),
             bool(trusted), trusted_hash, group, tuple(sorted(grants.get(package_id, ()))))
            for package_id, version, folder, content_hash, enabled, trusted, trusted_hash, group
            in packages
        ),
        preferred,
    )  # fmt: skip
