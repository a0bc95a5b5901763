"""``gateway.lock``: every installed package of a home — where it came from, what it is
(version, content hash) and what the user decided about it — as sorted, indented JSON.

A package's configuration is recorded by digest only: it may hold keys. Secrets are never
read. The file is written atomically (a temporary file beside it, then a rename).

Reading one is hostile input (``gateway.packages._lockfile_read``).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gateway.base import Diagnostic, GatewayError, gateway_version
from gateway.packages import _codes
from gateway.packages._accepted_text import locked_text
from gateway.packages._aliases import source_version
from gateway.packages._config import PackageConfigError, config_path
from gateway.packages._pins import locked_pins
from gateway.store import STATE_FILE, InstalledPackage, StateStore

__all__ = [
    "LOCKFILE_NAME",
    "LOCKFILE_VERSION",
    "LockedPackage",
    "LockedSource",
    "Lockfile",
    "LockfileError",
    "config_digest",
    "lock_home",
    "render_lockfile",
    "write_lockfile",
]

LOCKFILE_NAME = "gateway.lock"
LOCKFILE_VERSION = 1


class LockfileError(GatewayError):
    """A lockfile that cannot be read or written; ``diagnostic`` says why, with its code."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


@dataclass(frozen=True, slots=True)
class LockedSource:
    """Where a package came from, as installed: a folder, a git URL at a ref and the commit
    it resolved to, or an npm spec and the tarball it resolved to."""

    kind: str  # local | git | npm
    location: str  # the folder, the git URL, the npm spec (or tarball path)
    ref: str | None = None  # git: the branch, tag or commit asked for
    resolved: str | None = None  # git: the commit; npm: the tarball's file name
    tarball_integrity: str | None = None
    """npm: the tarball's ``dist.integrity`` (``sha512-…``), checked when sync fetches it."""
    version: str | None = None
    """npm: the version npm published (``package.json``), which sync asks the registry for;
    a package's own version (a Claude plugin's ``plugin.json``) may be another."""
    plugin: str | None = None
    """The package the source (a collection: a Claude Code marketplace folder or git
    repository) offers, which sync installs as ``FOLDER#PLUGIN`` / ``URL#COMMIT#PLUGIN``."""
    offered: str | None = None
    """Where the collection said the plugin comes from, as fetched (``git URL#PIN COMMIT``,
    ``npm SPEC TARBALL``, ``archive URL sha256:HEX``); None for a plugin in its folder."""

    @classmethod
    def from_record(
        cls,
        kind: str,
        text: str,
        tarball_integrity: str | None = None,
        version: str | None = None,
        member: str | None = None,
    ) -> LockedSource:
        """The store keeps ``SOURCE`` or ``SOURCE (RESOLVED)`` (``_installer._describe``)."""
        resolved = None
        if (kind != "local" or member) and text.endswith(")") and " (" in text:
            text, _, rest = text.rpartition(" (")
            resolved = rest[:-1]
        if member is not None:
            text = text.removesuffix(f"#{member}")
            if kind == "git":  # URL#REF: the marketplace; RESOLVED its commit[; the plugin's]
                location, _, ref = text.partition("#")
                commit, _, offered = (resolved or "").partition("; ")
                return cls("git", location, ref or None, commit or None, tarball_integrity,
                           None, member, offered or None)  # fmt: skip
            return cls(kind, text, None, None, tarball_integrity, None, member, resolved)
        if kind == "git":
            location, _, ref = text.partition("#")
            return cls("git", location, ref or None, resolved)
        if kind != "npm":
            return cls(kind, text)
        return cls(kind, text, None, resolved, tarball_integrity, version)

    def to_dict(self) -> dict[str, Any]:
        if self.plugin is not None:
            found = self._collection()
            found["plugin"] = self.plugin
            if self.offered is not None:
                found["offered"] = self.offered
            if self.tarball_integrity is not None:
                found["integrity"] = self.tarball_integrity
            return found
        if self.kind in ("local", "git"):
            return self._collection()
        found = {"kind": "npm", "spec": self.location, "tarball": self.resolved}
        if self.tarball_integrity is not None:
            found["integrity"] = self.tarball_integrity
        if self.version is not None:
            found["version"] = self.version
        return found

    def _collection(self) -> dict[str, Any]:
        if self.kind == "local":
            return {"kind": "local", "path": self.location}
        return {"kind": "git", "url": self.location, "ref": self.ref, "commit": self.resolved}


@dataclass(frozen=True, slots=True)
class LockedPackage:
    id: str
    name: str
    ecosystem: str
    version: str | None
    """None: the package has none (a nimlet folder); ``integrity`` pins it alone."""
    source: LockedSource
    integrity: str  # the store's content hash
    trusted: bool = False
    enabled: bool = False
    grants: tuple[str, ...] = ()
    process_group: str | None = None
    config_digest: str | None = None
    tools: dict[str, str] | None = None
    """Tool name → the digest of its pinned definition (``gateway.packages._pins``); None
    in a lockfile written before pins were locked."""
    accepted_text: dict[str, str] | None = None
    """``kind:name`` → the digest of the text the user accepted for the model (``gateway
    trust ID --accept-text``, ``gateway.packages._accepted_text``); None in a lockfile
    written before accepted text was locked."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "ecosystem": self.ecosystem,
            "version": self.version,
            "source": self.source.to_dict(),
            "integrity": self.integrity,
            "trusted": self.trusted,
            "enabled": self.enabled,
            "grants": sorted(self.grants),
            "process_group": self.process_group,
            "config_digest": self.config_digest,
            "tools": dict(sorted((self.tools or {}).items())),
            "accepted_text": dict(sorted((self.accepted_text or {}).items())),
        }


@dataclass(frozen=True, slots=True)
class Lockfile:
    packages: tuple[LockedPackage, ...]
    gateway: str = field(default_factory=gateway_version)
    host: dict[str, str | None] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "lockfile": LOCKFILE_VERSION,
            "gateway": self.gateway,
            "host": dict(sorted(self.host.items())),
            "packages": [p.to_dict() for p in sorted(self.packages, key=lambda p: p.id)],
        }


def config_digest(home: Path, package_id: str) -> str | None:
    """``sha256:`` of the package's configuration file, None without one. Never its text."""
    try:
        data = config_path(home, package_id).read_bytes()
    except (PackageConfigError, OSError):
        return None
    return "sha256:" + hashlib.sha256(data).hexdigest()


def locked(home: Path, package: InstalledPackage) -> LockedPackage:
    record = package.record
    npm_version = record.source_version
    if npm_version is None and record.source_kind == "npm":  # recorded before schema 5
        npm_version = source_version("npm", record.path)
    return LockedPackage(
        id=record.id,
        name=record.name,
        ecosystem=record.ecosystem,
        version=record.version or None,
        source=LockedSource.from_record(
            record.source_kind,
            record.source,
            record.source_integrity,
            npm_version,
            record.source_member,
        ),
        integrity=record.content_hash,
        trusted=package.trusted_for(record.content_hash),
        enabled=package.enabled,
        grants=tuple(sorted(package.granted)),
        process_group=package.process_group,
        config_digest=config_digest(home, record.id),
        tools=locked_pins(home, record.id),
        accepted_text=locked_text(home, record.id),
    )


def _host() -> dict[str, str | None]:
    from gateway.runtime import find_node, node_version

    node = find_node()
    version = node_version(node) if node else None
    return {
        "platform": f"{platform.system().lower()}-{platform.machine()}",
        "python": platform.python_version(),
        "node": ".".join(map(str, version)) if version else None,
    }


def lock_home(home: Path) -> Lockfile:
    """The lockfile of what ``home`` holds now."""
    packages: list[InstalledPackage] = []
    if (home / STATE_FILE).exists():
        with StateStore.open(home) as store:
            packages = store.list_packages()
    return Lockfile(tuple(locked(home, p) for p in packages), host=_host())


def render_lockfile(lock: Lockfile) -> str:
    return json.dumps(lock.to_dict(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_lockfile(path: Path, text: str) -> None:
    """Atomically: the old file stays whole until the new one is complete."""
    folder = path.parent
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(temporary, 0o644)  # a lockfile is shared; it holds no secret
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as error:
        reason = error.strerror or str(error)
        raise LockfileError(
            _codes.LOCK_WRITE_FAILED(f"cannot write {path}: {reason}", hint="--out PATH")
        ) from None
