"""``gateway.lock``: every installed package of a home — where it came from, what it is
(version, content hash) and what the user decided about it — as sorted, indented JSON.

A package's configuration is recorded by digest only: it may hold keys. Secrets are never
read. The file is written atomically (a temporary file beside it, then a rename).

Reading one is reading hostile input: every field is checked for its type and for values
that would be unsafe later (an id that is not one, a relative local path, a git URL install
refuses); the first problem is a ``lock.invalid`` diagnostic naming the field.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import tempfile
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gateway.base import Diagnostic, GatewayError, name_problem
from gateway.base._version import gateway_version
from gateway.packages import _codes
from gateway.packages._config import PackageConfigError, config_path
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
    "read_lockfile",
    "render_lockfile",
    "write_lockfile",
]

LOCKFILE_NAME = "gateway.lock"
LOCKFILE_VERSION = 1
MAX_LOCKFILE_BYTES = 16 * 1024 * 1024
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
_COMMIT = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")
_MAX_TEXT = 4096


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

    @classmethod
    def from_record(
        cls, kind: str, text: str, tarball_integrity: str | None = None
    ) -> LockedSource:
        """The store keeps ``SOURCE`` or ``SOURCE (RESOLVED)`` (``_installer._describe``)."""
        resolved = None
        if kind != "local" and text.endswith(")") and " (" in text:
            text, _, rest = text.rpartition(" (")
            resolved = rest[:-1]
        if kind == "git":
            location, _, ref = text.partition("#")
            return cls("git", location, ref or None, resolved)
        return cls(kind, text, None, resolved, tarball_integrity if kind == "npm" else None)

    def to_dict(self) -> dict[str, Any]:
        if self.kind == "local":
            return {"kind": "local", "path": self.location}
        if self.kind == "git":
            return {"kind": "git", "url": self.location, "ref": self.ref, "commit": self.resolved}
        found = {"kind": "npm", "spec": self.location, "tarball": self.resolved}
        if self.tarball_integrity is not None:
            found["integrity"] = self.tarball_integrity
        return found


@dataclass(frozen=True, slots=True)
class LockedPackage:
    id: str
    name: str
    ecosystem: str
    version: str
    source: LockedSource
    integrity: str  # the store's content hash
    trusted: bool = False
    enabled: bool = False
    grants: tuple[str, ...] = ()
    process_group: str | None = None
    config_digest: str | None = None

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
    return LockedPackage(
        id=record.id,
        name=record.name,
        ecosystem=record.ecosystem,
        version=record.version,
        source=LockedSource.from_record(record.source_kind, record.source, record.source_integrity),
        integrity=record.content_hash,
        trusted=package.trusted_for(record.content_hash),
        enabled=package.enabled,
        grants=tuple(sorted(package.granted)),
        process_group=package.process_group,
        config_digest=config_digest(home, record.id),
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


# --------------------------------------------------------------------------- reading


class _Invalid(GatewayError):
    pass


def read_lockfile(path: Path) -> Lockfile:
    """Read and check ``path``; raises ``LockfileError`` (``lock.invalid``)."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_LOCKFILE_BYTES + 1)
    except OSError as error:
        raise _refusal(path, f"cannot read it: {error.strerror or error}") from None
    if len(data) > MAX_LOCKFILE_BYTES:
        raise _refusal(path, f"it is larger than {MAX_LOCKFILE_BYTES} bytes")
    try:
        value = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise _refusal(path, "it is not UTF-8 text") from None
    except (ValueError, RecursionError) as error:
        raise _refusal(path, f"it is not valid JSON ({str(error)[:200]})") from None
    try:
        return _lockfile(value)
    except _Invalid as problem:
        raise _refusal(path, str(problem)) from None


def _refusal(path: Path, reason: str) -> LockfileError:
    return LockfileError(
        _codes.LOCK_INVALID(
            f"lockfile {path}: {reason}", hint="gateway lock writes a valid one; nothing changed"
        )
    )


def _object(value: Any, where: str, keys: set[str], required: set[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Invalid(f"{where} must be an object")
    unknown = sorted(set(value) - keys)
    if unknown:
        raise _Invalid(f"{where} has unknown field {unknown[0]!r}")
    missing = sorted(required - set(value))
    if missing:
        raise _Invalid(f"{where} lacks the field {missing[0]!r}")
    return value


def _text(value: Any, where: str, *, optional: bool = False) -> Any:
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value:
        raise _Invalid(f"{where} must be a non-empty string")
    if len(value) > _MAX_TEXT or any(unicodedata.category(c) in ("Cc", "Cf", "Cs") for c in value):
        raise _Invalid(f"{where} {value[:80]!r} holds control characters or is too long")
    return value


def _flag(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise _Invalid(f"{where} must be true or false")
    return value


def _digest(value: Any, where: str, *, optional: bool = False) -> Any:
    if value is None and optional:
        return None
    if not isinstance(value, str) or not _DIGEST.match(value):
        raise _Invalid(f"{where} must be 'sha256:' and 64 hex digits")
    return value


def _package_id(value: Any, where: str) -> str:
    """An id becomes file names (its folder, its config file): one name, or ``@scope/name``."""
    text: str = _text(value, where)
    parts = text.split("/")
    scoped = len(parts) == 2 and parts[0].startswith("@")
    problems = [name_problem(part, portable=False) for part in parts]
    if (len(parts) > 1 and not scoped) or any(problems) or text.startswith(("-", ".")):
        reason = next((p for p in problems if p), "it is not one name or @scope/name")
        raise _Invalid(f"{where} {text[:80]!r} is not a package id: {reason}")
    return text


def _source(value: Any, where: str) -> LockedSource:
    kind = value.get("kind") if isinstance(value, dict) else None
    if kind == "local":
        _object(value, where, {"kind", "path"}, {"kind", "path"})
        path = _text(value["path"], f"{where}.path")
        if not os.path.isabs(path):
            raise _Invalid(f"{where}.path {path[:80]!r} must be an absolute path")
        return LockedSource("local", path)
    if kind == "git":
        _object(value, where, {"kind", "url", "ref", "commit"}, {"kind", "url"})
        url = _text(value["url"], f"{where}.url")
        ref = _text(value.get("ref"), f"{where}.ref", optional=True)
        commit = value.get("commit")
        if commit is not None and (not isinstance(commit, str) or not _COMMIT.match(commit)):
            raise _Invalid(f"{where}.commit must be a full commit id (hex) or null")
        from gateway.packages._sources import FetchError, parse_source

        try:
            parse_source(url, "git")
        except FetchError as error:
            raise _Invalid(f"{where}.url: {error}") from None
        if "#" in url:
            raise _Invalid(f"{where}.url must not hold '#'; the ref is its own field")
        return LockedSource("git", url, ref, commit)
    if kind == "npm":
        _object(value, where, {"kind", "spec", "tarball", "integrity"}, {"kind", "spec"})
        spec = _text(value["spec"], f"{where}.spec")
        if spec.startswith("-"):
            raise _Invalid(f"{where}.spec must not start with '-'")
        tarball = _text(value.get("tarball"), f"{where}.tarball", optional=True)
        integrity = value.get("integrity")
        if integrity is not None and (
            not isinstance(integrity, str) or not _NPM_INTEGRITY.match(integrity)
        ):
            raise _Invalid(f"{where}.integrity must be npm's sha512-<base64> digest or absent")
        return LockedSource("npm", spec, None, tarball, integrity)
    raise _Invalid(f"{where}.kind must be 'local', 'git' or 'npm'")


_NPM_INTEGRITY = re.compile(r"sha512-[A-Za-z0-9+/]{86}==\Z")

_PACKAGE_KEYS = {
    "id", "name", "ecosystem", "version", "source", "integrity", "trusted", "enabled",
    "grants", "process_group", "config_digest",
}  # fmt: skip


def _package(value: Any, where: str) -> LockedPackage:
    data = _object(value, where, _PACKAGE_KEYS, {"id", "version", "source", "integrity"})
    grants = data.get("grants", [])
    if not isinstance(grants, list):
        raise _Invalid(f"{where}.grants must be a list of strings")
    return LockedPackage(
        id=_package_id(data["id"], f"{where}.id"),
        name=_text(data.get("name", data["id"]), f"{where}.name"),
        ecosystem=_text(data.get("ecosystem", "unknown"), f"{where}.ecosystem"),
        version=_text(data["version"], f"{where}.version"),
        source=_source(data["source"], f"{where}.source"),
        integrity=_digest(data["integrity"], f"{where}.integrity"),
        trusted=_flag(data.get("trusted", False), f"{where}.trusted"),
        enabled=_flag(data.get("enabled", False), f"{where}.enabled"),
        grants=tuple(sorted({_text(g, f"{where}.grants[{i}]") for i, g in enumerate(grants)})),
        process_group=_text(data.get("process_group"), f"{where}.process_group", optional=True),
        config_digest=_digest(data.get("config_digest"), f"{where}.config_digest", optional=True),
    )


def _lockfile(value: Any) -> Lockfile:
    data = _object(value, "the file", {"lockfile", "gateway", "host", "packages"}, {"lockfile"})
    if data["lockfile"] != LOCKFILE_VERSION or isinstance(data["lockfile"], bool):
        raise _Invalid(f"'lockfile' is {data['lockfile']!r}; this gateway reads version 1")
    host = data.get("host", {})
    if not isinstance(host, dict) or not all(
        isinstance(v, str | None) and isinstance(k, str) for k, v in host.items()
    ):
        raise _Invalid("'host' must be an object of strings")
    packages = data.get("packages", [])
    if not isinstance(packages, list):
        raise _Invalid("'packages' must be a list")
    found = [_package(item, f"packages[{i}]") for i, item in enumerate(packages)]
    ids = [p.id for p in found]
    duplicate = next((i for i in ids if ids.count(i) > 1), None)
    if duplicate is not None:
        raise _Invalid(f"package {duplicate!r} is listed twice")
    gateway = _text(data.get("gateway", "unknown"), "'gateway'")
    return Lockfile(tuple(found), gateway, dict(host))
