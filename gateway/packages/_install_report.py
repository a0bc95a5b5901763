"""What an install reports (``InstallReport``), and how one fails (``InstallError``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gateway.base import Diagnostic, GatewayError
from gateway.model import CatalogEntry
from gateway.packages.environment import env_grant
from gateway.store import InstalledPackage, InstallResult, PackageRecord

__all__ = ["InstallError", "InstallReport"]


class InstallError(GatewayError):
    """``str()`` is the whole reason in one message; ``subject`` ("cannot install SRC") is
    its head, for a display that lists the package's ``diagnostics`` under it instead."""

    def __init__(
        self, message: str, diagnostics: list[Diagnostic] | None = None, subject: str = ""
    ) -> None:
        super().__init__(message)
        self.diagnostics = diagnostics or []
        self.subject = subject or message


@dataclass(slots=True)
class InstallReport:
    package: InstalledPackage
    result: InstallResult
    entry: CatalogEntry
    files: int
    size: int
    diagnostics: list[Diagnostic] = field(default_factory=list)
    replaced: PackageRecord | None = None
    """The package of another ecosystem or source it replaced (``--replace``)."""

    def to_dict(self) -> dict[str, Any]:
        record = self.package.record
        return {
            "id": record.id,
            "name": record.name,
            "version": record.version,
            "ecosystem": record.ecosystem,
            "source": record.source,
            "source_kind": record.source_kind,
            "aliases": sorted(self.package.aliases),
            "path": str(record.path),
            "content_hash": record.content_hash,
            "files": self.files,
            "bytes": self.size,
            "created": self.result.created,
            "content_changed": self.result.hash_changed,
            "trust_revoked": self.result.trust_revoked,
            "trusted": self.package.trusted,
            "enabled": self.package.enabled,
            "granted": sorted(self.package.granted),
            "requested_permissions": [p.name for p in self.entry.permissions],
            # Each variable it declares needing: the grant that passes it through.
            "environment": {
                d.name: f"gateway permissions {record.id} {env_grant(d.name)}"
                for d in self.entry.dependencies
                if d.kind == "environment"
            },
            "replaced": None if self.replaced is None else {
                "id": self.replaced.id, "version": self.replaced.version,
                "ecosystem": self.replaced.ecosystem, "source": self.replaced.source,
                "source_kind": self.replaced.source_kind,
            },
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }  # fmt: skip
