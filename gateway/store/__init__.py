"""Durable gateway state: installed packages, trust, grants, enabled flags, workspaces, the
at-most-once call journal and adopted policy bundles.

Backed by one SQLite file under the gateway home (see :class:`StateStore`), plus the
content hashing that decides when trust must be revoked (see :func:`content_hash`).
Everything here is synchronous; async callers run it in a worker thread.
"""

from __future__ import annotations

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.store._connection import STATE_FILE as STATE_FILE
    from gateway.store._hashing import ContentHashError as ContentHashError
    from gateway.store._hashing import FileEntry as FileEntry
    from gateway.store._hashing import HashCache as HashCache
    from gateway.store._hashing import content_hash as content_hash
    from gateway.store._hashing import fingerprint_changed as fingerprint_changed
    from gateway.store._journal import ARGUMENTS_CAP as ARGUMENTS_CAP
    from gateway.store._journal import CallJournal as CallJournal
    from gateway.store._journal import JournalEntry as JournalEntry
    from gateway.store._journal import Resolution as Resolution
    from gateway.store._journal import arguments_digest as arguments_digest
    from gateway.store._journal import process_token as process_token
    from gateway.store._policies import AdoptedPolicy as AdoptedPolicy
    from gateway.store._policies import PolicyRecords as PolicyRecords
    from gateway.store._policies import bundle_digest as bundle_digest
    from gateway.store._readonly import check_store as check_store
    from gateway.store._readonly import package_set_digest as package_set_digest
    from gateway.store._readonly import package_set_fingerprint as package_set_fingerprint
    from gateway.store._readonly import read_package_names as read_package_names
    from gateway.store._schema import SCHEMA_VERSION as SCHEMA_VERSION
    from gateway.store._schema import InstalledPackage as InstalledPackage
    from gateway.store._schema import InstallResult as InstallResult
    from gateway.store._schema import PackageRecord as PackageRecord
    from gateway.store._schema import PermissionNotRequested as PermissionNotRequested
    from gateway.store._schema import SourceKind as SourceKind
    from gateway.store._schema import StoreBusy as StoreBusy
    from gateway.store._schema import StoreCorrupt as StoreCorrupt
    from gateway.store._schema import StoreError as StoreError
    from gateway.store._schema import StoreTooNew as StoreTooNew
    from gateway.store._schema import UnknownPackage as UnknownPackage
    from gateway.store._schema import WorkspaceTrust as WorkspaceTrust
    from gateway.store._state_digest import StateDigestReader as StateDigestReader
    from gateway.store._state_digest import read_state_digest as read_state_digest
    from gateway.store._store import StateStore as StateStore


__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
