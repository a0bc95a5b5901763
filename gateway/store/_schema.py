"""Schema: record types, running the migrations (``gateway.store._migrations``), and the
errors of the state store.

The schema version lives in ``PRAGMA user_version``; ``MIGRATIONS[i]`` takes a store from
version ``i`` to ``i + 1``. Each migration runs in its own ``BEGIN IMMEDIATE`` transaction
together with the ``user_version`` bump, so a crash mid-migration leaves the previous
version intact and the next open simply retries it. A store that is corrupt, belongs to
another application or was written by a newer gateway is reported and left untouched:
silently "repairing" it would throw away the user's trust decisions.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal, get_args

from gateway.base import GatewayError
from gateway.store._hashing import HashCache
from gateway.store._migrations import APPLICATION_ID, MIGRATIONS

SCHEMA_VERSION = len(MIGRATIONS)

__all__ = [
    "APPLICATION_ID",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "InstallResult",
    "InstalledPackage",
    "PackageRecord",
    "PermissionNotRequested",
    "SourceKind",
    "StoreBusy",
    "StoreCorrupt",
    "StoreError",
    "StoreTooNew",
    "UnknownPackage",
    "WorkspaceTrust",
    "check_header",
    "check_readable",
    "migrate",
]

_SQLITE_MAGIC = b"SQLite format 3\x00"


class StoreError(GatewayError):
    """Base class for every state-store failure the caller is expected to handle."""


class StoreCorrupt(StoreError):
    """The state file is damaged or not a gateway state store; it was left as it is."""

    def __init__(self, path: Path, detail: str) -> None:
        self.path = path
        self.detail = detail
        super().__init__(
            f"state store {path} is unusable ({detail}). It has not been modified. "
            f"Move it aside (for example to {path.name}.broken) to start with an empty "
            "store, or restore it from a backup."
        )


class StoreTooNew(StoreError):
    """The state file was written by a newer gateway whose schema this code does not know."""

    def __init__(self, path: Path, found: int, supported: int) -> None:
        self.path = path
        self.found = found
        self.supported = supported
        super().__init__(
            f"state store {path} has schema version {found}, but this gateway only knows "
            f"versions up to {supported}. It has not been modified. Upgrade the gateway, or "
            "point GATEWAY_HOME at another directory."
        )


class StoreBusy(StoreError):
    """Another process held the write lock for longer than the busy timeout."""


class UnknownPackage(StoreError):
    """No installed package has this id."""

    def __init__(self, package_id: str) -> None:
        self.package_id = package_id
        super().__init__(f"no installed package with id {package_id!r}")


class PermissionNotRequested(StoreError):
    """A grant named permissions that the package's manifest does not request."""

    def __init__(self, package_id: str, permissions: frozenset[str]) -> None:
        self.package_id = package_id
        self.permissions = permissions
        listed = ", ".join(sorted(permissions))
        super().__init__(
            f"package {package_id!r} does not request {listed}; only requested "
            "permissions can be granted"
        )


SourceKind = Literal["local", "git", "npm"]


@dataclass(frozen=True, slots=True)
class PackageRecord:
    """What an install produced: identity, origin, location and content hash."""

    id: str
    name: str
    version: str
    ecosystem: str
    source: str
    source_kind: SourceKind
    path: Path
    content_hash: str
    hash_cache: HashCache = field(default_factory=HashCache)
    # None means "now" when recorded; the store always returns a concrete time.
    installed_at: datetime | None = None
    source_integrity: str | None = None
    """For an npm install, the tarball's digest in npm's ``dist.integrity`` form
    (``sha512-<base64>``), which the registry publishes too; None for other sources."""
    source_version: str | None = None
    """The version its source published it as (an npm package's ``package.json``), which
    may differ from its format's own (a Claude plugin's ``plugin.json``); None unknown."""
    source_hash: str | None = None
    """The content hash of what was fetched, before the adapter's install step added to it
    (Nu's bundles): what its source is compared with (``outdated``); None unknown."""
    source_member: str | None = None
    """The package a collection offered (``MARKETPLACE#PLUGIN``: the plugin), when ``source``
    names a collection (a Claude Code marketplace); None for a package installed itself."""

    def __post_init__(self) -> None:
        if not self.id:
            raise ValueError("package id must not be empty")
        if self.source_kind not in get_args(SourceKind):
            raise ValueError(f"source_kind must be one of {get_args(SourceKind)}")


@dataclass(frozen=True, slots=True)
class InstalledPackage:
    """A package record plus the user's decisions about it."""

    record: PackageRecord
    enabled: bool
    trusted: bool
    trusted_hash: str | None
    trusted_at: datetime | None
    granted: frozenset[str]
    process_group: str | None = None
    """The group the user put it in (``gateway group``): packages of one group may share a
    process; a package in no group always runs alone."""
    aliases: frozenset[str] = frozenset()
    """The other names it answers to (its npm name, its folder's), recorded at install."""

    @property
    def id(self) -> str:
        return self.record.id

    def trusted_for(self, current_hash: str) -> bool:
        """Trust only counts for the exact content it was given for."""
        return self.trusted and self.trusted_hash == current_hash


@dataclass(frozen=True, slots=True)
class InstallResult:
    """What ``record_install`` did, so the CLI can tell the user (e.g. "trust revoked")."""

    package: InstalledPackage
    created: bool  # no package with this id existed before
    hash_changed: bool  # it existed with a different content hash
    trust_revoked: bool  # it was trusted and the new content is not what was trusted
    dropped_grants: frozenset[str]  # grants removed because they are no longer requested


@dataclass(frozen=True, slots=True)
class WorkspaceTrust:
    """An explicit trust decision for a folder (absolute, symlinks resolved)."""

    path: Path
    trusted: bool
    decided_at: datetime


def check_header(path: Path) -> None:
    """Refuse a non-empty file that does not start with the SQLite magic, before connecting.

    An empty file is a valid, empty SQLite database (schema version 0).
    """
    try:
        with path.open("rb") as fh:
            head = fh.read(len(_SQLITE_MAGIC))
    except OSError as exc:
        raise StoreError(f"cannot read state store {path}: {exc}") from exc
    if head and head != _SQLITE_MAGIC:
        raise StoreCorrupt(path, "not an SQLite database")


def check_readable(conn: sqlite3.Connection, path: Path) -> int:
    """Validate an opened store without writing to it; return its schema version.

    Runs before anything that could write (WAL switch, migrations), so a bad file is
    never touched.
    """
    # One read transaction, so all of this is a single snapshot: another gateway process
    # may be committing a migration between our statements. SQLite errors propagate; the
    # caller maps "not a database"/"malformed" to StoreCorrupt and "locked" to StoreBusy.
    conn.execute("BEGIN")
    try:
        version, app_id, tables = conn.execute(
            "SELECT (SELECT user_version FROM pragma_user_version),"
            " (SELECT application_id FROM pragma_application_id),"
            " (SELECT count(*) FROM sqlite_master)"
        ).fetchone()
        if version > SCHEMA_VERSION:
            raise StoreTooNew(path, version, SCHEMA_VERSION)
        problems = [row[0] for row in conn.execute("PRAGMA quick_check").fetchall()]
    finally:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
    if problems != ["ok"]:
        raise StoreCorrupt(path, "integrity check failed: " + "; ".join(problems[:3]))
    if app_id not in (0, APPLICATION_ID) or (app_id == 0 and (version or tables)):
        raise StoreCorrupt(path, "it is an SQLite database, but not a gateway state store")
    return int(version)


def migrate(conn: sqlite3.Connection, path: Path) -> int:
    """Bring the store up to ``SCHEMA_VERSION``, one transaction per migration.

    The version is re-read under the write lock because another gateway process may have
    migrated the file between our check and our ``BEGIN IMMEDIATE``.
    """
    while True:
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                raise StoreTooNew(path, version, SCHEMA_VERSION)
            if version == SCHEMA_VERSION:
                conn.execute("COMMIT")
                return version
            try:
                MIGRATIONS[version](conn)
            except sqlite3.Error as exc:
                raise StoreError(
                    f"migrating state store {path} from schema version {version} to "
                    f"{version + 1} failed: {exc}. The store was left at version {version}."
                ) from exc
            # user_version is part of the database header, so this bump commits or rolls
            # back together with the migration itself.
            conn.execute(f"PRAGMA user_version = {version + 1}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
