"""The packages and grants tables, read and written inside a transaction the caller holds
(``StateStore._transaction``): a package's row to and from ``InstalledPackage``, its grants,
its trust.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from gateway.store._hashing import HashCache
from gateway.store._schema import InstalledPackage, PackageRecord, UnknownPackage

__all__ = [
    "COLUMNS",
    "RECORD_COLUMNS",
    "SOURCE_PINS",
    "aliases_of",
    "delete_grants",
    "delete_package",
    "granted",
    "load_package",
    "now",
    "require_package",
    "set_aliases",
    "set_trust",
]

# Columns copied verbatim between PackageRecord and the packages table.
RECORD_COLUMNS = ("id", "name", "version", "ecosystem", "source", "source_kind", "content_hash")
SOURCE_PINS = ("source_integrity", "source_version", "source_hash", "source_member")
"""What the source said of what was installed (schema 4, 5 and 7), copied verbatim too."""
COLUMNS = (
    *RECORD_COLUMNS,
    "path",
    "hash_cache",
    "installed_at",
    "enabled",
    "trusted",
    "trusted_hash",
    "trusted_at",
)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def require_package(conn: sqlite3.Connection, package_id: str) -> InstalledPackage:
    package = load_package(conn, package_id)
    if package is None:
        raise UnknownPackage(package_id)
    return package


def load_package(conn: sqlite3.Connection, package_id: str) -> InstalledPackage | None:
    loaded = (*COLUMNS, "process_group", *SOURCE_PINS)
    row = conn.execute(
        f"SELECT {', '.join(loaded)} FROM packages WHERE id = ?", (package_id,)
    ).fetchone()
    if row is None:
        return None
    v = dict(zip(loaded, row, strict=True))
    record = PackageRecord(
        **{name: v[name] for name in RECORD_COLUMNS},
        path=Path(v["path"]),
        hash_cache=HashCache.from_json(v["hash_cache"]),
        installed_at=datetime.fromisoformat(v["installed_at"]),
        **{name: v[name] for name in SOURCE_PINS},
    )
    return InstalledPackage(
        record=record,
        enabled=bool(v["enabled"]),
        trusted=bool(v["trusted"]),
        trusted_hash=v["trusted_hash"],
        trusted_at=None if v["trusted_at"] is None else datetime.fromisoformat(v["trusted_at"]),
        granted=granted(conn, package_id),
        process_group=v["process_group"],
        aliases=aliases_of(conn, package_id),
    )


def aliases_of(conn: sqlite3.Connection, package_id: str) -> frozenset[str]:
    rows = conn.execute("SELECT alias FROM package_aliases WHERE package_id = ?", (package_id,))
    return frozenset(row[0] for row in rows)


def set_aliases(conn: sqlite3.Connection, package_id: str, aliases: frozenset[str]) -> None:
    """The package's aliases become ``aliases``: a name another package's id already is
    stays that package's; a name another package had as an alias moves to this one (the
    latest install of that name)."""
    conn.execute("DELETE FROM package_aliases WHERE package_id = ?", (package_id,))
    ids = {row[0] for row in conn.execute("SELECT id FROM packages")}
    conn.executemany(
        "INSERT INTO package_aliases (alias, package_id) VALUES (?, ?) "
        "ON CONFLICT (alias) DO UPDATE SET package_id = excluded.package_id",
        [(alias, package_id) for alias in sorted(aliases - ids)],
    )


def granted(conn: sqlite3.Connection, package_id: str) -> frozenset[str]:
    rows = conn.execute("SELECT permission FROM grants WHERE package_id = ?", (package_id,))
    return frozenset(row[0] for row in rows)


def delete_grants(conn: sqlite3.Connection, package_id: str, perms: frozenset[str]) -> None:
    conn.executemany(
        "DELETE FROM grants WHERE package_id = ? AND permission = ?",
        [(package_id, perm) for perm in sorted(perms)],
    )


def delete_package(conn: sqlite3.Connection, package_id: str) -> None:
    """The package's row and everything kept of it in the store (none when it has none)."""
    # Explicit, so grants go even on a connection without foreign_keys enabled.
    conn.execute("DELETE FROM grants WHERE package_id = ?", (package_id,))
    conn.execute("DELETE FROM policies WHERE package_id = ?", (package_id,))
    conn.execute("DELETE FROM package_aliases WHERE package_id = ?", (package_id,))
    conn.execute("DELETE FROM packages WHERE id = ?", (package_id,))


def set_trust(conn: sqlite3.Connection, package_id: str, *, trusted: bool) -> None:
    if trusted:
        conn.execute(
            "UPDATE packages SET trusted = 1, trusted_hash = content_hash, trusted_at = ? "
            "WHERE id = ?",
            (now(), package_id),
        )
    else:
        conn.execute(
            "UPDATE packages SET trusted = 0, trusted_hash = NULL, trusted_at = NULL WHERE id = ?",
            (package_id,),
        )
