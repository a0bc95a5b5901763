"""How a home differs from a lockfile, for ``gateway sync``: the packages, their versions
and content, the user's decisions (trust, grants, enabled state, groups), and what a
trusted package's entry fixes beyond its trust — its pinned tool definitions
(``gateway.packages._pins``) and the text accepted for the model
(``gateway.packages._accepted_text``). ``sync --accept`` makes the last two the lockfile's
(``restore_held``); ``--frozen`` refuses a home where they differ (``held_differences``)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from gateway.base import Diagnostic
from gateway.packages import _codes
from gateway.packages._accepted_text import locked_text, restore_accepted_text
from gateway.packages._lockfile import LockedPackage, Lockfile
from gateway.packages._pins import locked_pins, restore_pins
from gateway.store import STATE_FILE, InstalledPackage, StateStore

__all__ = ["decisions", "differences", "held_differences", "installed", "predicted", "restore_held"]


def installed(home: Path) -> dict[str, InstalledPackage]:
    if not (home / STATE_FILE).exists():
        return {}
    with StateStore.open(home) as store:
        return {p.id: p for p in store.list_packages()}


def pin(record: Any) -> tuple[str | None, str]:
    """What a lockfile pins of an installed record: its version (None without one) and
    its content hash."""
    return record.version or None, record.content_hash


def decisions(package: LockedPackage, have: Any) -> list[str]:
    """The lockfile's decisions ``have`` (an installed package, or what ``predicted`` says
    one will be) lacks, each as the ``gateway`` command making it."""
    trusted = have is not None and have.trusted_for(have.record.content_hash)
    granted = have.granted if have is not None else frozenset()
    name = shlex.quote(package.id)
    lines = []
    if package.trusted != trusted:
        lines.append(f"{'trust' if package.trusted else 'untrust'} {name}")
    for grant in sorted(set(package.grants) - granted):
        lines.append(f"permissions {name} {shlex.quote(grant)}")
    for grant in sorted(granted - set(package.grants)):
        lines.append(f"permissions {name} {shlex.quote(grant)} --revoke")
    if package.enabled != (have is not None and have.enabled):
        lines.append(f"{'enable' if package.enabled else 'disable'} {name}")
    group = have.process_group if have is not None else None
    if package.process_group != group:
        group_name = package.process_group
        lines.append(f"group {shlex.quote(group_name)} {name}" if group_name else f"ungroup {name}")
    return lines


def restore_held(home: Path, package: LockedPackage) -> None:
    """A trusted package's pins and accepted text become the lockfile's (where it has any:
    an empty pin list pins nothing, so the first listing here pins)."""
    if not package.trusted:
        return
    if package.tools:
        restore_pins(home, package.id, package.tools)
    if package.accepted_text is not None:
        restore_accepted_text(home, package.id, package.accepted_text)


def _compare(locked: dict[str, str], here: dict[str, str], what: str, done: str) -> list[str]:
    said = []
    for name in sorted(set(locked) | set(here)):
        theirs, ours = locked.get(name), here.get(name)
        if theirs == ours:
            continue
        if theirs is None:
            said.append(f"{what} {name!r} {done} here only")
        elif ours is None:
            said.append(f"{what} {name!r} {done} in the lockfile only")
        else:
            said.append(
                f"{what} {name!r} {done} here as {ours[:19]}…, in the lockfile as {theirs[:19]}…"
            )
    return said


def held_differences(
    home: Path, package: LockedPackage, accept_command: str = "gateway sync --accept"
) -> list[Diagnostic]:
    """How a trusted package's pins (``lock.pins_differ``) and accepted text
    (``lock.accepted_text_differs``) here differ from what ``restore_held`` would make them."""
    if not package.trusted:
        return []
    found = []
    if package.tools:
        said = _compare(package.tools, locked_pins(home, package.id), "tool", "pinned")
        if said:
            found.append(_codes.LOCK_PINS_DIFFER(
                f"{package.id}: its pinned tool definitions are not the lockfile's: "
                f"{'; '.join(said)}", package=package.id, hint=accept_command))  # fmt: skip
    if package.accepted_text is not None:
        keys = locked_text(home, package.id)
        said = _compare(package.accepted_text, keys, "text", "accepted")
        if said:
            found.append(_codes.LOCK_ACCEPTED_TEXT_DIFFERS(
                f"{package.id}: the text accepted for the model is not the lockfile's: "
                f"{'; '.join(said)}", package=package.id, hint=accept_command))  # fmt: skip
    return found


def differences(home: Path, lock: Lockfile, *, decisions_too: bool) -> list[str]:
    """How ``home`` differs from ``lock``: packages, versions, content, and
    (``decisions_too``) trust, grants, enabled state, groups, pins and accepted text."""
    have = installed(home)
    found = [f"{i} is installed but not in the lockfile" for i in sorted(set(have) - {
        p.id for p in lock.packages})]  # fmt: skip
    for package in sorted(lock.packages, key=lambda p: p.id):
        current = have.get(package.id)
        if current is None:
            found.append(f"{package.id} is not installed")
        elif pin(current.record) != (package.version, package.integrity):
            version = current.record.version or "(no version)"
            found.append(f"{package.id} is {version} with other content")
        elif decisions_too:
            found += decisions(package, current)
            found += [d.message for d in held_differences(home, package)]
    return found


def predicted(package: LockedPackage, have: dict[str, InstalledPackage]) -> Any:
    """What a sync without ``accept`` leaves: a new install has no decisions; new content
    has no trust."""
    current = have.get(package.id)
    if current is None or current.record.content_hash == package.integrity:
        return current
    return _Untrusted(current)


class _Untrusted:
    def __init__(self, package: InstalledPackage) -> None:
        self.record, self.granted = package.record, package.granted
        self.enabled, self.process_group = package.enabled, package.process_group

    def trusted_for(self, _: str) -> bool:
        return False
