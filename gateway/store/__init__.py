"""Durable gateway state: installed packages, trust, grants, enabled flags, workspaces, the
at-most-once call journal and adopted policy bundles.

Backed by one SQLite file under the gateway home (see :class:`StateStore`), plus the
content hashing that decides when trust must be revoked (see :func:`content_hash`).
Everything here is synchronous; async callers run it in a worker thread.
"""

from __future__ import annotations

from gateway.base.lazy import lazy_attributes

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
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
    from gateway.store._readonly import (
        check_store,
        package_set_digest,
        package_set_fingerprint,
        read_package_names,
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
    from gateway.store._state_digest import StateDigestReader, read_state_digest
    from gateway.store._store import StateStore

_WHERE: dict[str, str] = {
    "ARGUMENTS_CAP": "gateway.store._journal",
    "AdoptedPolicy": "gateway.store._policies",
    "CallJournal": "gateway.store._journal",
    "ContentHashError": "gateway.store._hashing",
    "FileEntry": "gateway.store._hashing",
    "HashCache": "gateway.store._hashing",
    "InstallResult": "gateway.store._schema",
    "InstalledPackage": "gateway.store._schema",
    "JournalEntry": "gateway.store._journal",
    "PackageRecord": "gateway.store._schema",
    "PermissionNotRequested": "gateway.store._schema",
    "PolicyRecords": "gateway.store._policies",
    "Resolution": "gateway.store._journal",
    "SCHEMA_VERSION": "gateway.store._schema",
    "STATE_FILE": "gateway.store._connection",
    "StateDigestReader": "gateway.store._state_digest",
    "SourceKind": "gateway.store._schema",
    "StateStore": "gateway.store._store",
    "StoreBusy": "gateway.store._schema",
    "StoreCorrupt": "gateway.store._schema",
    "StoreError": "gateway.store._schema",
    "StoreTooNew": "gateway.store._schema",
    "UnknownPackage": "gateway.store._schema",
    "WorkspaceTrust": "gateway.store._schema",
    "arguments_digest": "gateway.store._journal",
    "bundle_digest": "gateway.store._policies",
    "check_store": "gateway.store._readonly",
    "package_set_digest": "gateway.store._readonly",
    "package_set_fingerprint": "gateway.store._readonly",
    "content_hash": "gateway.store._hashing",
    "fingerprint_changed": "gateway.store._hashing",
    "process_token": "gateway.store._journal",
    "read_package_names": "gateway.store._readonly",
    "read_state_digest": "gateway.store._state_digest",
}

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
    "StateDigestReader",
    "StateStore",
    "StoreBusy",
    "StoreCorrupt",
    "StoreError",
    "StoreTooNew",
    "UnknownPackage",
    "WorkspaceTrust",
    "arguments_digest",
    "bundle_digest",
    "check_store",
    "content_hash",
    "fingerprint_changed",
    "package_set_digest",
    "package_set_fingerprint",
    "process_token",
    "read_package_names",
    "read_state_digest",
]

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)
