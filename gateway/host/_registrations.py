"""What each installed package's runtime registered the last time it started, so the next
gateway can list its tools, commands and hooks without starting it, and start it only
when one of them is used (as VS Code's activation events and OpenClaw's
``activation.onStartup/onCommands`` do).

An entry is valid only for the exact package it was made from: its key digests the
package's content hash, the launch spec the adapter planned (command and declared
environment), the package's settings file, the stamp of its sign-ins (a person signed in
to a remote MCP server whose start was refused), its granted permissions, and the gateway's
own version. Anything else is a miss, and the package starts at once (and is cached again).
Files live under ``GATEWAY_HOME/cache/registrations``, one JSON document per package,
written atomically; an unreadable one is a miss, never an error.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from gateway.base import gateway_version, write_json_atomically
from gateway.wire import RegisterMessage, ToolSpec

__all__ = ["CachedRegistration", "RegistrationCache", "registration_key"]

_FORMAT = 1


def registration_key(
    package_id: str,
    content_hash: str,
    command: Iterable[str],
    env: dict[str, str],
    settings: Path,
    granted: Iterable[str],
    sign_ins: Path | None = None,
) -> str:
    """The digest a cached registration must carry to be used."""
    settings_digest, sign_ins_digest = _digest(settings), _digest(sign_ins)
    material = [
        _FORMAT,
        gateway_version(),
        package_id,
        content_hash,
        list(command),
        sorted(env.items()),
        settings_digest,
        sorted(granted),
    ]
    if sign_ins_digest:  # absent for most packages: their keys stay as they were
        material.append(sign_ins_digest)
    return hashlib.sha256(json.dumps(material).encode()).hexdigest()


def _digest(path: Path | None) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() if path is not None else ""
    except OSError:
        return ""


@dataclass(frozen=True, slots=True)
class CachedRegistration:
    register: RegisterMessage
    """The ``register`` line the runtime sent."""
    tools: list[ToolSpec] | None
    """Its latest tool list when it changed after start (``registration.update``)."""


class RegistrationCache:
    def __init__(self, home: Path) -> None:
        self._folder = home / "cache" / "registrations"

    def _path(self, package_id: str) -> Path:
        name = hashlib.sha256(package_id.encode()).hexdigest()[:32]
        return self._folder / f"{name}.json"

    def load(self, package_id: str, key: str) -> CachedRegistration | None:
        try:
            data = json.loads(self._path(package_id).read_text(encoding="utf-8"))
            if not isinstance(data, dict) or data.get("key") != key:
                return None
            register = RegisterMessage.model_validate(data["register"])
            tools = data.get("tools")
            specs = [ToolSpec.model_validate(t) for t in tools] if tools is not None else None
        except (OSError, ValueError, KeyError, TypeError, ValidationError, RecursionError):
            return None
        return CachedRegistration(register, specs)

    def store(
        self, package_id: str, key: str, register: RegisterMessage, tools: list[ToolSpec] | None
    ) -> None:
        """Best effort: a cache that cannot be written only costs a start next time."""
        document: dict[str, Any] = {
            "key": key,
            "package": package_id,
            "register": register.model_dump(mode="json", exclude_none=True),
            "tools": None if tools is None else [t.model_dump(mode="json") for t in tools],
        }
        try:
            self._folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            write_json_atomically(self._path(package_id), document)
        except OSError:
            return

    def forget(self, package_id: str) -> None:
        try:
            self._path(package_id).unlink()
        except OSError:
            return


class RegistrationMemory:
    """The cache as the running gateway uses it: which owners are cached under which key,
    and what to write when a runtime registers (at start, or a new tool list later)."""

    def __init__(self, cache: RegistrationCache) -> None:
        self._cache = cache
        self._keys: dict[str, str] = {}
        self._registers: dict[str, RegisterMessage] = {}

    def lookup(self, owner: str, key: str) -> CachedRegistration | None:
        self._keys[owner] = key
        return self._cache.load(owner, key)

    def started(self, owner: str, register: RegisterMessage) -> None:
        key = self._keys.get(owner)
        if key is not None:
            self._registers[owner] = register
            self._cache.store(owner, key, register, None)

    def tools_replaced(
        self, owner: str, tools: list[ToolSpec], tool_owners: dict[str, str] | None = None
    ) -> None:
        """A new tool list; ``tool_owners`` (``register.owners``) says which package of a
        shared process registered each, and is kept with the registration."""
        key, register = self._keys.get(owner), self._registers.get(owner)
        if key is None or register is None:
            return
        if tool_owners is not None:
            gateway = dict(register.gateway or {})
            owners = dict(gateway.get("owners") or {})
            owners["tools"] = {**(owners.get("tools") or {}), **tool_owners}
            gateway["owners"] = owners
            register = register.model_copy(update={"gateway": gateway})
            self._registers[owner] = register
        self._cache.store(owner, key, register, tools)

    def clear(self) -> None:
        self._keys.clear()
        self._registers.clear()
