"""What each installed package's runtime registered the last time it started, so the next
gateway can list its tools, commands and hooks without starting it, and start it only when
one of them is used (as VS Code's activation events and OpenClaw's
``activation.onStartup/onCommands`` do).

A cache that cannot lie: an entry is used only for the exact start it was made from. Its
key (``registration_key``) digests everything that start depended on — the package's
content hash, the launch (command and declared environment), the files its command runs (a
runtime upgraded in place is another start), what its adapter says it depends on beyond
that (``LaunchSpec.programs``: each program its configuration names, as it resolves on
PATH; ``LaunchSpec.depends_on``: the sidecar's modules), its settings, secrets and sign-ins, its
grants and when it was trusted, and the gateway's version. Anything else is a miss, and the
package starts at once (and is cached again). A start that failed is never cached, and
drops what was: a runtime that did not start, or that registered with an error (an MCP
server whose command was missing); the next load starts it again, so it heals as soon as
what it lacked is there. Enabling, disabling and installing (again) drop a package's
entry too (``gateway.packages.forget_registrations``). Files live under
``GATEWAY_HOME/cache/registrations``, one JSON document per process, written atomically; an
unreadable one is a miss, never an error.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from gateway.base import (
    Severity,
    command_identity,
    file_identity,
    find_code,
    gateway_version,
    write_json_atomically,
)
from gateway.host._settings_watch import settings_fingerprint
from gateway.model import LaunchSpec
from gateway.packages import PackageStatus, registration_file
from gateway.wire import RegisterMessage, ToolSpec
from gateway.wire.features import ExtraError, RegisterExtras, RuntimeDiagnostic

__all__ = [
    "CachedRegistration",
    "RegistrationCache",
    "RegistrationMemory",
    "StartInputs",
    "registration_key",
    "start_inputs",
]

_FORMAT = 3
"""Part of every key. 3: a cache written before registrations were kept by
``LaunchPlan.identity`` may hold a same-named workspace extension's registration: none of
those is served."""


@dataclass(frozen=True, slots=True)
class StartInputs:
    """What one package's start depends on (``registration_key``'s material)."""

    package_id: str
    content_hash: str
    settings: str
    """A digest of its settings and secrets files (``settings_fingerprint``)."""
    granted: Iterable[str]
    trusted_at: str
    programs: Sequence[str]
    """What ``LaunchSpec.programs`` resolve to now (``command_identity``)."""
    depends_on: Sequence[str]


def start_inputs(status: PackageStatus, home: Path) -> StartInputs:
    """What an installed package's start depends on, for ``registration_key``."""
    package = status.package
    spec = status.runtime
    return StartInputs(
        package_id=status.id,
        content_hash=package.record.content_hash,
        settings=settings_fingerprint(home, status.id),
        granted=package.granted,
        trusted_at=package.trusted_at.isoformat() if package.trusted_at is not None else "",
        programs=[command_identity(p) for p in spec.programs]
        if isinstance(spec, LaunchSpec)
        else [],
        depends_on=spec.depends_on if isinstance(spec, LaunchSpec) else (),
    )


def registration_key(command: Sequence[str], env: dict[str, str], inputs: StartInputs) -> str:
    """The digest a cached registration must carry to be used."""
    material = [
        _FORMAT,
        gateway_version(),
        inputs.package_id,
        inputs.content_hash,
        list(command),
        sorted(env.items()),
        # The programs the command runs (the interpreter, Node): one upgraded in place is
        # another start. Not its other arguments: a configuration the planner rewrites at
        # every load would never hit, and what it holds is ``depends_on``'s.
        [file_identity(part) for part in command if _program(part)],
        inputs.settings,
        sorted(inputs.granted),
        inputs.trusted_at,
        list(inputs.programs),
        list(inputs.depends_on),
    ]
    return hashlib.sha256(json.dumps(material).encode()).hexdigest()


def _program(part: str) -> bool:
    return part.startswith("/") and os.path.isfile(part) and os.access(part, os.X_OK)


def failed(register: RegisterMessage) -> bool:
    """A registration that reports an error (e.g. a server of the package did not start)
    or an incomplete start (``DiagnosticCode.incomplete``: a remote server unreachable):
    the start failed, at least in part, and must not be served again. An error that only
    refused a contribution (``DiagnosticCode.refusal``) is not a failed start."""
    try:
        items = RegisterExtras.parse(register.gateway).runtime_diagnostics()
    except ExtraError:  # reported where the registration is projected
        return False
    codes = [find_code(item.code) for item in items if isinstance(item, RuntimeDiagnostic)]
    return any(
        code is not None
        and ((code.severity is Severity.ERROR and not code.refusal) or code.incomplete)
        for code in codes
    )


@dataclass(frozen=True, slots=True)
class CachedRegistration:
    register: RegisterMessage
    """The ``register`` line the runtime sent."""
    tools: list[ToolSpec] | None
    """Its latest tool list when it changed after start (``registration.update``)."""


class RegistrationCache:
    def __init__(self, home: Path) -> None:
        self._home = home

    def load(self, owner: str, key: str) -> CachedRegistration | None:
        try:
            data = json.loads(registration_file(self._home, owner).read_text(encoding="utf-8"))
            if not isinstance(data, dict) or data.get("key") != key:
                return None
            register = RegisterMessage.model_validate(data["register"])
            tools = data.get("tools")
            specs = [ToolSpec.model_validate(t) for t in tools] if tools is not None else None
        except (OSError, ValueError, KeyError, TypeError, ValidationError, RecursionError):
            return None
        return CachedRegistration(register, specs)

    def store(
        self,
        owner: str,
        key: str,
        register: RegisterMessage,
        tools: list[ToolSpec] | None,
        members: Sequence[str] = (),
    ) -> None:
        """Best effort: a cache that cannot be written only costs a start next time."""
        document: dict[str, Any] = {
            "key": key,
            "package": owner,
            "members": list(members),
            "register": register.model_dump(mode="json", exclude_none=True),
            "tools": None if tools is None else [t.model_dump(mode="json") for t in tools],
        }
        path = registration_file(self._home, owner)
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            write_json_atomically(path, document)
        except OSError:
            return

    def forget(self, owner: str) -> None:
        try:
            registration_file(self._home, owner).unlink()
        except OSError:
            return


class RegistrationMemory:
    """The cache as the running gateway uses it: which owners are cached under which key,
    and what to write when a runtime registers (at start, or a new tool list later)."""

    def __init__(self, cache: RegistrationCache) -> None:
        self._cache = cache
        self._keys: dict[str, str] = {}
        self._members: dict[str, tuple[str, ...]] = {}
        self._registers: dict[str, RegisterMessage] = {}

    def lookup(
        self, owner: str, key: str, members: Sequence[str] = ()
    ) -> CachedRegistration | None:
        self._keys[owner] = key
        self._members[owner] = tuple(members)
        return self._cache.load(owner, key)

    def started(self, owner: str, register: RegisterMessage) -> None:
        key = self._keys.get(owner)
        if key is None:
            return
        if failed(register):
            self.start_failed(owner)
            return
        self._registers[owner] = register
        self._cache.store(owner, key, register, None, self._members.get(owner, ()))

    def start_failed(self, owner: str) -> None:
        """``owner`` did not start, or started with an error (or is not active): what was
        cached for it goes."""
        self._registers.pop(owner, None)
        self._cache.forget(owner)

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
        self._cache.store(owner, key, register, tools, self._members.get(owner, ()))

    def clear(self) -> None:
        self._keys.clear()
        self._members.clear()
        self._registers.clear()
