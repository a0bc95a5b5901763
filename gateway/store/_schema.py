"""Schema: record types, SQL migrations, and the errors of the state store.

The schema version lives in ``PRAGMA user_version``; ``MIGRATIONS[i]`` takes a store from
version ``i`` to ``i + 1``. Each migration runs in its own ``BEGIN IMMEDIATE`` transaction
together with the ``user_version`` bump, so a crash mid-migration leaves the previous
version intact and the next open simply retries it. A store that is corrupt, belongs to
another application or was written by a newer gateway is reported and left untouched:
silently "repairing" it would throw away the user's trust decisions.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal, get_args

from gateway.base import GatewayError
from gateway.store._hashing import HashCache

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

# "EGWS" in ASCII. Lets us tell our own file from some other SQLite database someone
# pointed GATEWAY_HOME at; ``0`` means "not stamped yet" (a brand new, empty file).
APPLICATION_ID = 0x45475753
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


Migration = Callable[[sqlite3.Connection], None]


def _v1_create_tables(conn: sqlite3.Connection) -> None:
    # One statement per execute(): executescript() would COMMIT our transaction first.
    statements = (
        f"PRAGMA application_id = {APPLICATION_ID}",
        """
        CREATE TABLE packages (
            id            TEXT PRIMARY KEY NOT NULL CHECK (id <> ''),
            name          TEXT NOT NULL,
            version       TEXT NOT NULL,
            ecosystem     TEXT NOT NULL,
            source        TEXT NOT NULL,
            source_kind   TEXT NOT NULL CHECK (source_kind IN ('local', 'git', 'npm')),
            path          TEXT NOT NULL,
            content_hash  TEXT NOT NULL,
            hash_cache    TEXT NOT NULL DEFAULT '{}',
            installed_at  TEXT NOT NULL,
            -- every gate is passed explicitly: a new install is disabled and untrusted
            enabled       INTEGER NOT NULL DEFAULT 0 CHECK (enabled IN (0, 1)),
            trusted       INTEGER NOT NULL DEFAULT 0 CHECK (trusted IN (0, 1)),
            trusted_hash  TEXT,
            trusted_at    TEXT,
            -- trust is meaningless without the hash it was given for
            CHECK ((trusted = 0 AND trusted_hash IS NULL)
                   OR (trusted = 1 AND trusted_hash IS NOT NULL))
        )
        """,
        """
        CREATE TABLE grants (
            package_id  TEXT NOT NULL REFERENCES packages (id) ON DELETE CASCADE,
            permission  TEXT NOT NULL CHECK (permission <> ''),
            granted_at  TEXT NOT NULL,
            PRIMARY KEY (package_id, permission)
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE workspaces (
            path        TEXT PRIMARY KEY NOT NULL,
            trusted     INTEGER NOT NULL CHECK (trusted IN (0, 1)),
            decided_at  TEXT NOT NULL
        )
        """,
    )
    for statement in statements:
        conn.execute(statement)


def _v2_journal_and_policies(conn: sqlite3.Connection) -> None:
    statements = (
        # Calls that must not run twice (Nu's at_most_once tools): a row is written before
        # the call starts and finished after; a row left ``running`` by a gateway that is
        # gone is an interrupted call, which only the user may settle.
        """
        CREATE TABLE call_journal (
            id                TEXT PRIMARY KEY NOT NULL CHECK (id <> ''),
            package_id        TEXT NOT NULL,
            tool              TEXT NOT NULL,
            arguments         TEXT NOT NULL,
            arguments_digest  TEXT NOT NULL,
            session_id        TEXT NOT NULL,
            owner             TEXT NOT NULL,
            state             TEXT NOT NULL
                CHECK (state IN ('running', 'done', 'indeterminate', 'resolved')),
            started_at        TEXT NOT NULL,
            finished_at       TEXT,
            outcome           TEXT
        )
        """,
        "CREATE INDEX call_journal_open ON call_journal (state, package_id, tool, "
        "arguments_digest)",
        # Policy rules a user adopted from a package (``gateway policy accept``): the
        # bundle as it was accepted, applied to every tool call.
        """
        CREATE TABLE policies (
            package_id   TEXT PRIMARY KEY NOT NULL REFERENCES packages (id) ON DELETE CASCADE,
            bundle       TEXT NOT NULL,
            digest       TEXT NOT NULL,
            accepted_at  TEXT NOT NULL
        ) WITHOUT ROWID
        """,
    )
    for statement in statements:
        conn.execute(statement)


def _v3_process_groups_and_extension_grants(conn: sqlite3.Connection) -> None:
    statements = (
        # Sharing a process is the user's explicit choice, never implied by equal grants.
        "ALTER TABLE packages ADD COLUMN process_group TEXT "
        "CHECK (process_group IS NULL OR process_group <> '')",
        # Extensions the gateway discovers in an ecosystem's own folders (``pi:NAME``)
        # are not installed packages, yet the user grants them by their id too.
        """
        CREATE TABLE extension_grants (
            extension_id  TEXT NOT NULL CHECK (extension_id <> ''),
            permission    TEXT NOT NULL CHECK (permission <> ''),
            granted_at    TEXT NOT NULL,
            PRIMARY KEY (extension_id, permission)
        ) WITHOUT ROWID
        """,
    )
    for statement in statements:
        conn.execute(statement)


def _v4_source_integrity(conn: sqlite3.Connection) -> None:
    # What npm publishes for a tarball (dist.integrity), so a lockfile can name it.
    conn.execute(
        "ALTER TABLE packages ADD COLUMN source_integrity TEXT "
        "CHECK (source_integrity IS NULL OR source_integrity <> '')"
    )


# Append only: a released migration is never edited, because stores in the field have
# already run it.
MIGRATIONS: list[Migration] = [
    _v1_create_tables,
    _v2_journal_and_policies,
    _v3_process_groups_and_extension_grants,
    _v4_source_integrity,
]
SCHEMA_VERSION = len(MIGRATIONS)


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
