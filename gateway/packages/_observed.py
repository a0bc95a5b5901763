"""The host's registration cache (``GATEWAY_HOME/cache/registrations``) as the package floor
sees it: where each package's document is (``registration_file``), dropping it when the
package's gates change (``forget_registrations``: enable, disable, install (a reinstall, an
update) — its next start is a real one), and what an installed package registered when it
last started, read for ``gateway inspect`` as plain JSON: the newest document that holds
the package, whatever its key, so inspect never imports the host nor starts anything. A
document that cannot be read is skipped."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = [
    "ObservedRegistration",
    "forget_registrations",
    "observed_registration",
    "registration_file",
    "registrations_dir",
]


def registrations_dir(home: Path) -> Path:
    return home / "cache" / "registrations"


def registration_file(home: Path, owner: str) -> Path:
    """The cache document of one process (an installed package's id, or a shared
    process's name): named by a digest, so no package name becomes a path."""
    name = hashlib.sha256(owner.encode()).hexdigest()[:32]
    return registrations_dir(home) / f"{name}.json"


def forget_registrations(home: Path, package_ids: Iterable[str]) -> None:
    """Drop what ``package_ids`` registered at their last start, and every shared
    process's document that names one of them: their next start is a real one. Best
    effort (a document that cannot be removed is a miss anyway once the key moves)."""
    wanted = set(package_ids)
    for package_id in wanted:
        with contextlib.suppress(OSError):
            registration_file(home, package_id).unlink(missing_ok=True)
    try:
        paths = list(registrations_dir(home).glob("*.json"))
    except OSError:
        return
    for path in paths:
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
            members = document.get("members") if isinstance(document, dict) else None
            if isinstance(members, list) and wanted & {str(m) for m in members}:
                path.unlink(missing_ok=True)
        except (OSError, ValueError, RecursionError):
            continue


@dataclass(frozen=True, slots=True)
class ObservedRegistration:
    observed_at: datetime
    """When the document was written: the package's last start (or a later tool list)."""
    tools: list[tuple[str, str]] = field(default_factory=list)
    """(name, description) of each tool."""
    commands: list[tuple[str, str]] = field(default_factory=list)
    hooks: list[str] = field(default_factory=list)
    """The events it subscribed to."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "observed_at": self.observed_at.isoformat(timespec="seconds"),
            "tools": [{"name": n, "description": d} for n, d in self.tools],
            "commands": [{"name": n, "description": d} for n, d in self.commands],
            "hooks": list(self.hooks),
        }


def observed_registration(home: Path, package_id: str) -> ObservedRegistration | None:
    """The newest cached registration naming ``package_id`` (its own, or its part of a
    shared process's), or None when it has not started yet."""
    folder = registrations_dir(home)
    found: list[tuple[float, ObservedRegistration]] = []
    try:
        paths = sorted(folder.glob("*.json"))
    except OSError:
        return None
    for path in paths:
        try:
            mtime = path.stat().st_mtime
            document = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            continue
        observed = _read(document, package_id, mtime) if isinstance(document, dict) else None
        if observed is not None:
            found.append((mtime, observed))
    return max(found, key=lambda item: item[0])[1] if found else None


def _read(document: dict[str, Any], package_id: str, mtime: float) -> ObservedRegistration | None:
    register = document.get("register")
    if not isinstance(register, dict):
        return None
    own = document.get("package") == package_id
    gateway = register.get("gateway")
    owners = gateway.get("owners") if isinstance(gateway, dict) else None
    owners = owners if isinstance(owners, dict) else {}

    def mine(kind: str, name: str) -> bool:
        table = owners.get(kind)
        by = table.get(name) if isinstance(table, dict) else None
        return by == package_id if by is not None else own

    tools = document.get("tools")
    tools = tools if isinstance(tools, list) else register.get("tools")
    listed = [
        (t["name"], str(t.get("description", "")))
        for t in (tools if isinstance(tools, list) else [])
        if isinstance(t, dict) and isinstance(t.get("name"), str) and mine("tools", t["name"])
    ]
    commands = register.get("commands")
    named = [
        (c["name"], str(c.get("description", "")))
        for c in (commands if isinstance(commands, list) else [])
        if isinstance(c, dict) and isinstance(c.get("name"), str) and mine("commands", c["name"])
    ]
    events = register.get("events")
    table = owners.get("events")
    subscribers: dict[str, Any] = table if isinstance(table, dict) else {}
    hooks = [
        e
        for e in (events if isinstance(events, list) else [])
        if isinstance(e, str)
        and (package_id in subscribers[e] if isinstance(subscribers.get(e), list) else own)
    ]
    if not own and not (listed or named or hooks):
        return None
    when = datetime.fromtimestamp(mtime, UTC)
    return ObservedRegistration(when, listed, named, hooks)
