"""Durable gateway state: installed packages, trust, grants, enabled flags, workspaces.

Backed by one SQLite file under the gateway home (see :class:`StateStore`), plus the
content hashing that decides when trust must be revoked (see :func:`content_hash`).
Everything here is synchronous; async callers run it in a worker thread.
"""

from __future__ import annotations

from gateway.store._hashing import (
    ContentHashError,
    FileEntry,
    HashCache,
    content_hash,
    fingerprint_changed,
)
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
from gateway.store._store import STATE_FILE, StateStore

__all__ = [
    "SCHEMA_VERSION",
    "STATE_FILE",
    "ContentHashError",
    "FileEntry",
    "HashCache",
    "InstallResult",
    "InstalledPackage",
    "PackageRecord",
    "PermissionNotRequested",
    "SourceKind",
    "StateStore",
    "StoreBusy",
    "StoreCorrupt",
    "StoreError",
    "StoreTooNew",
    "UnknownPackage",
    "WorkspaceTrust",
    "content_hash",
    "fingerprint_changed",
]
