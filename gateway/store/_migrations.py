"""The state store's schema migrations: ``MIGRATIONS[i]`` takes a store from version ``i``
to ``i + 1`` (``gateway.store._schema.migrate`` runs each in its own transaction)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

__all__ = ["APPLICATION_ID", "MIGRATIONS", "Migration"]

# "EGWS" in ASCII. Lets us tell our own file from some other SQLite database someone
# pointed GATEWAY_HOME at; ``0`` means "not stamped yet" (a brand new, empty file).
APPLICATION_ID = 0x45475753


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


def _v5_source_pins_and_aliases(conn: sqlite3.Connection) -> None:
    statements = (
        # What the source itself says (an npm version; the fetched tree's hash before the
        # install step), so lock, sync and outdated compare like with like.
        "ALTER TABLE packages ADD COLUMN source_version TEXT "
        "CHECK (source_version IS NULL OR source_version <> '')",
        "ALTER TABLE packages ADD COLUMN source_hash TEXT "
        "CHECK (source_hash IS NULL OR source_hash <> '')",
        # The names a person types for a package besides its id (its npm name, its
        # folder's), recorded at install.
        """
        CREATE TABLE package_aliases (
            alias       TEXT PRIMARY KEY NOT NULL CHECK (alias <> ''),
            package_id  TEXT NOT NULL REFERENCES packages (id) ON DELETE CASCADE
        ) WITHOUT ROWID
        """,
    )
    for statement in statements:
        conn.execute(statement)


def _v6_clash_preference(conn: sqlite3.Connection) -> None:
    # The packages the user prefers when two own one name (``gateway prefer``), strongest
    # first. No foreign key: a preferred package uninstalled stays preferred, and the load
    # says so (``host.preferred_not_installed``) rather than forget the user's choice.
    conn.execute(
        """
        CREATE TABLE clash_preference (
            position    INTEGER PRIMARY KEY NOT NULL CHECK (position >= 0),
            package_id  TEXT NOT NULL UNIQUE CHECK (package_id <> '')
        )
        """
    )


def _v7_source_member(conn: sqlite3.Connection) -> None:
    # The package a collection offered (a Claude Code marketplace's plugin): the source
    # names the collection, this the member, so lock, sync and outdated can fetch it again.
    conn.execute(
        "ALTER TABLE packages ADD COLUMN source_member TEXT "
        "CHECK (source_member IS NULL OR source_member <> '')"
    )


# Append only: a released migration is never edited, because stores in the field have
# already run it.
MIGRATIONS: list[Migration] = [
    _v1_create_tables,
    _v2_journal_and_policies,
    _v3_process_groups_and_extension_grants,
    _v4_source_integrity,
    _v5_source_pins_and_aliases,
    _v6_clash_preference,
    _v7_source_member,
]
SCHEMA_VERSION = len(MIGRATIONS)
