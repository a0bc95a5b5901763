"""Policy bundles a user adopted from packages (``gateway policy accept``), kept as they were
accepted: a package update that suggests other rules changes nothing until the user
accepts again."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from gateway.store import _rows
from gateway.store._store import StateStore

__all__ = ["AdoptedPolicy", "PolicyRecords", "bundle_digest"]


def bundle_digest(bundle: dict[str, Any]) -> str:
    text = json.dumps(bundle, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class AdoptedPolicy:
    package_id: str
    bundle: dict[str, Any]
    digest: str
    accepted_at: datetime


class PolicyRecords:
    """The adopted bundles in one open state store."""

    def __init__(self, store: StateStore) -> None:
        self._store = store

    def accept(self, package_id: str, bundle: dict[str, Any]) -> AdoptedPolicy:
        """Adopt ``bundle`` for an installed package (replacing what it had)."""
        digest = bundle_digest(bundle)
        now = datetime.now(UTC)
        with self._store._transaction(write=True) as conn:
            _rows.require_package(conn, package_id)
            conn.execute(
                "INSERT INTO policies (package_id, bundle, digest, accepted_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (package_id) DO UPDATE SET "
                "bundle = excluded.bundle, digest = excluded.digest, "
                "accepted_at = excluded.accepted_at",
                (package_id, json.dumps(bundle, ensure_ascii=False), digest, now.isoformat()),
            )
        return AdoptedPolicy(package_id, bundle, digest, now)

    def revoke(self, package_id: str) -> bool:
        with self._store._transaction(write=True) as conn:
            done = conn.execute("DELETE FROM policies WHERE package_id = ?", (package_id,))
            return done.rowcount > 0

    def adopted(self) -> list[AdoptedPolicy]:
        with self._store._transaction(write=False) as conn:
            rows = conn.execute(
                "SELECT package_id, bundle, digest, accepted_at FROM policies ORDER BY package_id"
            ).fetchall()
        return [
            AdoptedPolicy(package, json.loads(bundle), digest, datetime.fromisoformat(when))
            for package, bundle, digest, when in rows
        ]

    def get(self, package_id: str) -> AdoptedPolicy | None:
        return next((p for p in self.adopted() if p.package_id == package_id), None)
