"""Reading ``gateway.lock`` is reading hostile input: every field is checked for its type and
for values that would be unsafe later (an id that is not one, a relative local path, a git
URL install refuses); the first problem is a ``lock.invalid`` diagnostic naming the field and,
once its id is known, the package.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from pathlib import Path
from typing import Any

from gateway.base import GatewayError, name_problem
from gateway.packages import _codes
from gateway.packages._lockfile import (
    LOCKFILE_VERSION,
    LockedPackage,
    LockedSource,
    Lockfile,
    LockfileError,
)

__all__ = ["MAX_LOCKFILE_BYTES", "read_lockfile"]

MAX_LOCKFILE_BYTES = 16 * 1024 * 1024
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
_COMMIT = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")
_MAX_TEXT = 4096


class _Invalid(GatewayError):
    def __init__(self, message: str, package: str | None = None) -> None:
        super().__init__(message)
        self.package = package


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
        raise _refusal(path, str(problem), problem.package) from None


def _refusal(path: Path, reason: str, package: str | None = None) -> LockfileError:
    return LockfileError(
        _codes.LOCK_INVALID(
            f"lockfile {path}: {reason}",
            package=package,
            hint="gateway lock writes a valid one; nothing changed",
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
    if kind in ("local", "git") and "plugin" in value:
        return _offered(value, where)
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
        keys = {"kind", "spec", "tarball", "integrity", "version"}
        _object(value, where, keys, {"kind", "spec"})
        spec = _text(value["spec"], f"{where}.spec")
        if spec.startswith("-"):
            raise _Invalid(f"{where}.spec must not start with '-'")
        tarball = _text(value.get("tarball"), f"{where}.tarball", optional=True)
        integrity = value.get("integrity")
        if integrity is not None and (
            not isinstance(integrity, str) or not _NPM_INTEGRITY.match(integrity)
        ):
            raise _Invalid(f"{where}.integrity must be npm's sha512-<base64> digest or absent")
        version = _text(value.get("version"), f"{where}.version", optional=True)
        if version is not None and not _NPM_VERSION.match(version):
            raise _Invalid(f"{where}.version {version[:80]!r} is not an npm version")
        return LockedSource("npm", spec, None, tarball, integrity, version)
    raise _Invalid(f"{where}.kind must be 'local', 'git' or 'npm'")


def _offered(value: dict[str, Any], where: str) -> LockedSource:
    """A collection's plugin: the collection (a folder, a git URL) checked as above, plus
    the plugin's name, where the collection said it comes from, and an npm integrity."""
    collection = {k: v for k, v in value.items() if k not in ("plugin", "offered", "integrity")}
    found = _source(collection, where)
    plugin = _text(value["plugin"], f"{where}.plugin")
    if not _MEMBER.match(plugin):
        raise _Invalid(f"{where}.plugin {plugin[:80]!r} is not a package name")
    offered = _text(value.get("offered"), f"{where}.offered", optional=True)
    integrity = value.get("integrity")
    if integrity is not None and (
        not isinstance(integrity, str) or not _NPM_INTEGRITY.match(integrity)
    ):
        raise _Invalid(f"{where}.integrity must be npm's sha512-<base64> digest or absent")
    return LockedSource(found.kind, found.location, found.ref, found.resolved, integrity,
                        None, plugin, offered)  # fmt: skip


_MEMBER = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,213}\Z")
_NPM_INTEGRITY = re.compile(r"sha512-[A-Za-z0-9+/]{86}==\Z")
_NPM_VERSION = re.compile(r"[0-9A-Za-z.+-]{1,256}\Z")  # semver's alphabet: never a spec or tag

_PACKAGE_KEYS = {
    "id", "name", "ecosystem", "version", "source", "integrity", "trusted", "enabled",
    "grants", "process_group", "config_digest", "tools", "accepted_text",
}  # fmt: skip


def _package(value: Any, where: str) -> LockedPackage:
    """A problem names the package by its id once that is known, and says which one."""
    if isinstance(value, dict) and "id" in value:
        package_id = _package_id(value["id"], f"{where}.id")
        try:
            return _checked(value, package_id, f"{where} ({package_id})")
        except _Invalid as problem:
            raise _Invalid(str(problem), package_id) from None
    _object(value, where, _PACKAGE_KEYS, {"id"})
    raise AssertionError("unreachable: an object without an id is refused above")


def _checked(value: dict[str, Any], package_id: str, where: str) -> LockedPackage:
    data = _object(value, where, _PACKAGE_KEYS, {"id", "source", "integrity"})
    grants = data.get("grants", [])
    if not isinstance(grants, list):
        raise _Invalid(f"{where}.grants must be a list of strings")
    return LockedPackage(
        id=package_id,
        name=_text(data.get("name", data["id"]), f"{where}.name"),
        ecosystem=_text(data.get("ecosystem", "unknown"), f"{where}.ecosystem"),
        # No version (or null, or ""): the content hash (``integrity``) pins it alone.
        version=_text(data.get("version") or None, f"{where}.version", optional=True),
        source=_source(data["source"], f"{where}.source"),
        integrity=_digest(data["integrity"], f"{where}.integrity"),
        trusted=_flag(data.get("trusted", False), f"{where}.trusted"),
        enabled=_flag(data.get("enabled", False), f"{where}.enabled"),
        grants=tuple(sorted({_text(g, f"{where}.grants[{i}]") for i, g in enumerate(grants)})),
        process_group=_text(data.get("process_group"), f"{where}.process_group", optional=True),
        config_digest=_digest(data.get("config_digest"), f"{where}.config_digest", optional=True),
        tools=_tools(data.get("tools"), f"{where}.tools"),
        accepted_text=_accepted(data.get("accepted_text"), f"{where}.accepted_text"),
    )


def _tools(value: Any, where: str) -> dict[str, str] | None:
    """Absent (a lockfile written before pins were locked): None, nothing restored."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _Invalid(f"{where} must be an object of tool name to digest")
    return {
        _text(name, f"{where} key"): _digest(digest, f"{where}[{name[:80]!r}]")
        for name, digest in value.items()
    }


def _accepted(value: Any, where: str) -> dict[str, str] | None:
    """``kind:name`` → digest; absent (a lockfile written before accepted text was locked):
    None, nothing restored."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _Invalid(f"{where} must be an object of kind:name to digest")
    found = {}
    for key, digest in value.items():
        text = _text(key, f"{where} key")
        if not _ACCEPTED_KEY.match(text):
            raise _Invalid(f"{where} key {text[:80]!r} is not kind:name")
        found[text] = _digest(digest, f"{where}[{text[:80]!r}]")
    return found


_ACCEPTED_KEY = re.compile(r"(?:tool|command|prompt|skill):.+\Z", re.DOTALL)


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
        raise _Invalid(f"package {duplicate!r} is listed twice", duplicate)
    gateway = _text(data.get("gateway", "unknown"), "'gateway'")
    return Lockfile(tuple(found), gateway, dict(host))
