"""Durable gateway state: installed packages, trust, grants, enabled flags, workspaces, the
at-most-once call journal and adopted policy bundles.

Backed by one SQLite file under the gateway home (see :class:`StateStore`), plus the
content hashing that decides when trust must be revoked (see :func:`content_hash`).
Everything here is synchronous; async callers run it in a worker thread.
"""

from __future__ import annotations

from gateway.store._connection import STATE_FILE
from gateway.store._hashing import (
    ContentHashError,
    FileEntry,
    HashCache,
    content_hash,
    fingerprint_changed,
)
from gateway.store._journal import (
    ARGUMENTS_CAP,
    CallJournal,
    JournalEntry,
    Resolution,
    arguments_digest,
    process_token,
)
from gateway.store._policies import AdoptedPolicy, PolicyRecords, bundle_digest
from gateway.store._schema import (
    SCHEMA_VERSION,
    InstalledPackage,
    InstallResult,
    PackageRecord,
    PermissionNotRequested,
    SourceKind,
    StoreBusy,
    StoreCorrupt,
    StoreError,
    StoreTooNew,
    UnknownPackage,
    WorkspaceTrust,
)
from gateway.store._store import StateStore

__all__ = [
    "ARGUMENTS_CAP",
    "SCHEMA_VERSION",
    "STATE_FILE",
    "AdoptedPolicy",
    "CallJournal",
    "ContentHashError",
    "FileEntry",
    "HashCache",
    "InstallResult",
    "InstalledPackage",
    "JournalEntry",
    "PackageRecord",
    "PermissionNotRequested",
    "PolicyRecords",
    "Resolution",
    "SourceKind",
    "StateStore",
    "StoreBusy",
    "StoreCorrupt",
    "StoreError",
    "StoreTooNew",
    "UnknownPackage",
    "WorkspaceTrust",
    "arguments_digest",
    "bundle_digest",
    "content_hash",
    "fingerprint_changed",
    "process_token",
]
