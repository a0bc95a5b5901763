"""``StateStore``: installed packages, trust, grants, enabled flags and workspace trust.

One SQLite file, ``<home>/state.sqlite3``, in WAL mode. Every change is a single
``BEGIN IMMEDIATE`` … ``COMMIT`` with its read-modify-write inside, so two gateway
processes changing state at once serialise on SQLite's write lock (waiting up to the busy
timeout) instead of losing an update, and a process killed at any point leaves either the
complete old or the complete new state.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Collection, Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Self

from gateway.store import _rows
from gateway.store._connection import connect, translate
from gateway.store._hashing import HashCache
from gateway.store._schema import (
    InstalledPackage,
    InstallResult,
    PackageRecord,
    PermissionNotRequested,
    StoreError,
    WorkspaceTrust,
)

__all__ = ["StateStore"]


def _workspace_key(path: Path | str) -> Path:
    return Path(path).expanduser().resolve()


def _permissions(perms: Iterable[str]) -> frozenset[str]:
    result = frozenset(perms)
    if isinstance(perms, str) or not all(isinstance(p, str) and p for p in result):
        raise ValueError("permissions must be a collection of non-empty strings")
    return result


class StateStore:
    """Durable gateway state. Synchronous; safe to share between threads of one process."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        # Use StateStore.open(); this only wraps a connection that is already validated.
        self._conn: sqlite3.Connection | None = conn
        self.path = path
        # sqlite3 connections must not be used by two threads at once; callers run us via
        # worker threads (anyio.to_thread), so serialise here.
        self._lock = threading.RLock()

    # -- lifecycle -------------------------------------------------------------------

    @classmethod
    def open(cls, home: Path) -> StateStore:
        """Open (creating if missing) ``home/state.sqlite3`` and migrate it.

        Raises :class:`StoreCorrupt` or :class:`StoreTooNew` without modifying the file.
        """
        conn, path = connect(home)
        return cls(conn, path)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- transactions ----------------------------------------------------------------

    @contextmanager
    def _transaction(self, *, write: bool) -> Iterator[sqlite3.Connection]:
        """One transaction: IMMEDIATE for writes (take the write lock before reading, so
        the read-modify-write cannot interleave), DEFERRED for a consistent read snapshot."""
        with self._lock:
            conn = self._conn
            if conn is None:
                raise StoreError(f"state store {self.path} is closed")
            try:
                conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                try:
                    yield conn
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise translate(exc, self.path) from exc

    # -- packages --------------------------------------------------------------------

    def record_install(
        self,
        record: PackageRecord,
        *,
        requested: Collection[str],
        aliases: Iterable[str] = (),
        anew: bool = False,
    ) -> InstallResult:
        """Insert or replace a package.

        Same content hash: trust, grants and enabled are kept. Different hash: trust is
        dropped. Either way only grants still in ``requested`` survive. ``aliases``: the
        other names it answers to (``resolve``), replacing those it had. ``anew``: the
        package of that id is another one (``install --replace``), removed in the same
        transaction as ``remove_package`` removes it: the new one keeps nothing of it.
        """
        requested = _permissions(requested)
        installed_at = record.installed_at or datetime.now(UTC)
        with self._transaction(write=True) as conn:
            if anew:
                _rows.delete_package(conn, record.id)
            old = _rows.load_package(conn, record.id)
            hash_changed = old is not None and old.record.content_hash != record.content_hash
            keep_trust = old is not None and old.trusted and not hash_changed
            # An upsert, not INSERT OR REPLACE: REPLACE deletes the row first, which would
            # cascade to the grants we mean to keep.
            # New rows: disabled, untrusted (the column defaults).
            # ``installed_at`` stays the first install's: the load order (install order)
            # decides name clashes, and an update must not move a package to the end.
            columns = (*_rows.COLUMNS[:-4], *_rows.SOURCE_PINS)
            updated = [c for c in columns[1:] if c != "installed_at"]
            conn.execute(
                f"INSERT INTO packages ({', '.join(columns)}) "
                f"VALUES ({', '.join('?' * len(columns))}) ON CONFLICT (id) DO UPDATE SET "
                + ", ".join(f"{c} = excluded.{c}" for c in updated),
                (
                    *(getattr(record, name) for name in _rows.RECORD_COLUMNS),
                    str(record.path),
                    record.hash_cache.to_json(),
                    installed_at.isoformat(),
                    *(getattr(record, name) for name in _rows.SOURCE_PINS),
                ),
            )
            _rows.set_aliases(conn, record.id, frozenset(aliases) - {record.id})
            if old is not None and not keep_trust:
                _rows.set_trust(conn, record.id, trusted=False)
            dropped = old.granted - requested if old is not None else frozenset()
            _rows.delete_grants(conn, record.id, dropped)
            new = _rows.load_package(conn, record.id)
        assert new is not None
        return InstallResult(
            package=new,
            created=old is None,
            hash_changed=hash_changed,
            trust_revoked=old is not None and old.trusted and not keep_trust,
            dropped_grants=dropped,
        )

    def update_content_hash(
        self, package_id: str, content_hash: str, hash_cache: HashCache
    ) -> bool:
        """Store a fresh hash (and its cache) of the installed tree; return whether trust was
        revoked because the content no longer matches what was trusted."""
        with self._transaction(write=True) as conn:
            old = _rows.require_package(conn, package_id)
            conn.execute(
                "UPDATE packages SET content_hash = ?, hash_cache = ? WHERE id = ?",
                (content_hash, hash_cache.to_json(), package_id),
            )
            revoke = old.trusted and old.trusted_hash != content_hash
            if revoke:
                _rows.set_trust(conn, package_id, trusted=False)
        return revoke

    def get_package(self, package_id: str) -> InstalledPackage:
        with self._transaction(write=False) as conn:
            return _rows.require_package(conn, package_id)

    def list_packages(self) -> list[InstalledPackage]:
        with self._transaction(write=False) as conn:
            ids = [row[0] for row in conn.execute("SELECT id FROM packages ORDER BY id")]
            return [_rows.require_package(conn, package_id) for package_id in ids]

    def resolve(self, name: str) -> str | None:
        """The id of the installed package ``name`` names: its id, else one of its aliases;
        None when no package answers to it."""
        with self._transaction(write=False) as conn:
            if conn.execute("SELECT 1 FROM packages WHERE id = ?", (name,)).fetchone():
                return name
            row = conn.execute(
                "SELECT package_id FROM package_aliases WHERE alias = ?", (name,)
            ).fetchone()
            return None if row is None else str(row[0])

    def names(self) -> dict[str, str]:
        """Every name a package answers to (its id, its aliases) → its id."""
        with self._transaction(write=False) as conn:
            found = {str(a): str(i) for a, i in conn.execute(
                "SELECT alias, package_id FROM package_aliases")}  # fmt: skip
            found.update((str(i), str(i)) for (i,) in conn.execute("SELECT id FROM packages"))
            return found

    def remove_package(self, package_id: str) -> None:
        with self._transaction(write=True) as conn:
            _rows.require_package(conn, package_id)
            _rows.delete_package(conn, package_id)

    # -- trust, grants, enabled ------------------------------------------------------

    def set_trusted(self, package_id: str, trusted: bool) -> None:
        """Trust (or distrust) the package's currently recorded content hash."""
        with self._transaction(write=True) as conn:
            _rows.require_package(conn, package_id)
            _rows.set_trust(conn, package_id, trusted=trusted)

    def is_trusted(self, package_id: str, current_hash: str) -> bool:
        return self.get_package(package_id).trusted_for(current_hash)

    def grant(
        self, package_id: str, permissions: Iterable[str], requested: Collection[str]
    ) -> frozenset[str]:
        """Grant permissions (all or none); return the full granted set afterwards."""
        wanted, allowed = _permissions(permissions), _permissions(requested)
        if not wanted <= allowed:
            raise PermissionNotRequested(package_id, wanted - allowed)
        with self._transaction(write=True) as conn:
            _rows.require_package(conn, package_id)
            now = _rows.now()
            conn.executemany(
                "INSERT OR IGNORE INTO grants (package_id, permission, granted_at) "
                "VALUES (?, ?, ?)",
                [(package_id, perm, now) for perm in sorted(wanted)],
            )
            return _rows.granted(conn, package_id)

    def revoke(self, package_id: str, permissions: Iterable[str]) -> frozenset[str]:
        """Revoke permissions; return the granted set afterwards."""
        perms = _permissions(permissions)
        with self._transaction(write=True) as conn:
            _rows.require_package(conn, package_id)
            _rows.delete_grants(conn, package_id, perms)
            return _rows.granted(conn, package_id)

    def granted(self, package_id: str) -> frozenset[str]:
        return self.get_package(package_id).granted

    def set_enabled(self, package_id: str, enabled: bool) -> None:
        with self._transaction(write=True) as conn:
            _rows.require_package(conn, package_id)
            conn.execute(
                "UPDATE packages SET enabled = ? WHERE id = ?", (int(bool(enabled)), package_id)
            )

    def set_group(self, package_ids: Iterable[str], group: str | None) -> None:
        """Put the packages in ``group`` (None: in none), all or none of them."""
        ids = list(package_ids)
        with self._transaction(write=True) as conn:
            for package_id in ids:
                _rows.require_package(conn, package_id)
            conn.executemany(
                "UPDATE packages SET process_group = ? WHERE id = ?",
                [(group, package_id) for package_id in ids],
            )

    def preferred(self) -> list[str]:
        """The package ids that win name clashes (``gateway prefer``), strongest first."""
        with self._transaction(write=False) as conn:
            rows = conn.execute("SELECT package_id FROM clash_preference ORDER BY position")
            return [row[0] for row in rows]

    def set_preferred(self, package_ids: Iterable[str], extensions: Iterable[str] = ()) -> None:
        """Replace the preference: ``package_ids`` win name clashes, the first the most
        (empty: none, install order decides). Each must be installed, but for the ids of
        discovered extensions (``pi:NAME``) named in ``extensions``; repeats are kept once."""
        ids = list(dict.fromkeys(package_ids))
        discovered = set(extensions)
        with self._transaction(write=True) as conn:
            for package_id in ids:
                if package_id not in discovered:
                    _rows.require_package(conn, package_id)
            conn.execute("DELETE FROM clash_preference")
            conn.executemany(
                "INSERT INTO clash_preference (position, package_id) VALUES (?, ?)",
                list(enumerate(ids)),
            )

    # -- extensions discovered in an ecosystem's own folders --------------------------

    def grant_extension(self, extension_id: str, permissions: Iterable[str]) -> frozenset[str]:
        """Grant a discovered extension (``pi:NAME``) permissions; the granted set after."""
        perms = _permissions(permissions)
        with self._transaction(write=True) as conn:
            now = _rows.now()
            conn.executemany(
                "INSERT OR IGNORE INTO extension_grants (extension_id, permission, granted_at) "
                "VALUES (?, ?, ?)",
                [(extension_id, perm, now) for perm in sorted(perms)],
            )
            return _extension_granted(conn, extension_id)

    def revoke_extension(self, extension_id: str, permissions: Iterable[str]) -> frozenset[str]:
        perms = _permissions(permissions)
        with self._transaction(write=True) as conn:
            conn.executemany(
                "DELETE FROM extension_grants WHERE extension_id = ? AND permission = ?",
                [(extension_id, perm) for perm in sorted(perms)],
            )
            return _extension_granted(conn, extension_id)

    def extension_granted(self, extension_id: str) -> frozenset[str]:
        with self._transaction(write=False) as conn:
            return _extension_granted(conn, extension_id)

    # -- workspaces ------------------------------------------------------------------

    def trust_workspace(self, path: Path | str, trusted: bool) -> None:
        """Record an explicit decision for a folder; subfolders inherit it."""
        key = str(_workspace_key(path))
        with self._transaction(write=True) as conn:
            conn.execute(
                "INSERT INTO workspaces (path, trusted, decided_at) VALUES (?, ?, ?) "
                "ON CONFLICT (path) DO UPDATE SET trusted = excluded.trusted, "
                "decided_at = excluded.decided_at",
                (key, int(bool(trusted)), _rows.now()),
            )

    def forget_workspace(self, path: Path | str) -> bool:
        """Remove the folder's own decision (it then inherits again); True if one existed."""
        with self._transaction(write=True) as conn:
            cur = conn.execute(
                "DELETE FROM workspaces WHERE path = ?", (str(_workspace_key(path)),)
            )
            return cur.rowcount > 0

    def workspace_decision(self, path: Path | str) -> WorkspaceTrust | None:
        """The decision that applies to ``path``: its own, else its nearest ancestor's."""
        key = _workspace_key(path)
        candidates = [str(p) for p in (key, *key.parents)]
        with self._transaction(write=False) as conn:
            rows = conn.execute(
                "SELECT path, trusted, decided_at FROM workspaces WHERE path IN "
                f"({', '.join('?' * len(candidates))})",
                candidates,
            ).fetchall()
        if not rows:
            return None
        nearest = max(rows, key=lambda row: len(Path(row[0]).parts))
        return WorkspaceTrust(
            Path(nearest[0]), bool(nearest[1]), datetime.fromisoformat(nearest[2])
        )

    def is_workspace_trusted(self, path: Path | str) -> bool:
        """Untrusted unless the folder or its nearest decided ancestor was trusted."""
        decision = self.workspace_decision(path)
        return decision is not None and decision.trusted

    def list_workspaces(self) -> list[WorkspaceTrust]:
        with self._transaction(write=False) as conn:
            rows = conn.execute(
                "SELECT path, trusted, decided_at FROM workspaces ORDER BY path"
            ).fetchall()
        return [WorkspaceTrust(Path(p), bool(t), datetime.fromisoformat(d)) for p, t, d in rows]


def _extension_granted(conn: sqlite3.Connection, extension_id: str) -> frozenset[str]:
    rows = conn.execute(
        "SELECT permission FROM extension_grants WHERE extension_id = ?", (extension_id,)
    )
    return frozenset(row[0] for row in rows)
