"""``gateway doctor``'s checks of ``GATEWAY_HOME``: the folder, the state store's integrity
(read-only), the JSON settings files, disk use (a bounded walk) and each installed package's
gates. A broken home is a failed check saying why, never a traceback."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from gateway.cli._doctor_checks import FAIL, OK, WARN, Check

__all__ = ["disk_check", "home_check", "package_checks", "settings_check", "store_check"]

_WALK_ENTRIES = 200_000
_WALK_SECONDS = 3.0
_SETTINGS = ("", "config", "cache")
"""The folders whose ``*.json`` files are the gateway's own settings and records (a
package's own files, its secrets and sessions are not read)."""
_JSON_LIMIT = 4 * 1024 * 1024


def home_check(home: Path) -> Check:
    """None of the other home checks runs unless this one is ``ok``."""
    if not home.exists():
        return Check(
            "home", WARN, f"{home} does not exist yet (nothing installed)", "gateway setup"
        )
    if not home.is_dir():
        return Check("home", FAIL, f"{home} is not a folder", "point GATEWAY_HOME at a folder")
    if not os.access(home, os.R_OK | os.W_OK | os.X_OK):
        return Check("home", FAIL, f"{home} cannot be read and written", f"chmod u+rwx {home}")
    return Check("home", OK, str(home))


def store_check(home: Path) -> tuple[Check, int]:
    """The store's integrity (``PRAGMA integrity_check`` on a read-only connection) and how
    many packages it holds."""
    from gateway.store import STATE_FILE, StoreCorrupt, StoreError, StoreTooNew, check_store

    path = home / STATE_FILE
    try:
        found = check_store(home)
    except StoreTooNew as error:
        return Check("state store", FAIL, str(error), "pip install -U extension-gateway"), 0
    except StoreCorrupt as error:
        return Check("state store", FAIL, str(error), f"mv {path} {path}.broken"), 0
    except StoreError as error:
        return Check("state store", FAIL, str(error), f"check {path}"), 0
    if found is None:
        return Check("state store", OK, f"no {STATE_FILE} yet (nothing installed)"), 0
    version, packages = found
    text = f"{path}: schema {version}, {packages} package{'s' * (packages != 1)}, integrity ok"
    return Check("state store", OK, text), packages


def settings_check(home: Path) -> Check:
    """The gateway's own JSON files under the home parse."""
    broken: list[str] = []
    count = 0
    for folder in _SETTINGS:
        try:
            names = sorted(p for p in (home / folder).glob("*.json") if p.is_file())
        except OSError:
            continue
        for path in names:
            count += 1
            try:
                if path.stat().st_size <= _JSON_LIMIT:
                    json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as error:
                reason = getattr(error, "strerror", None) or str(error).splitlines()[0]
                broken.append(f"{path.relative_to(home)} ({reason})")
    if broken:
        fix = "fix or remove " + ", ".join(str(home / b.split(" (")[0]) for b in broken[:3])
        return Check("settings", FAIL, "unreadable: " + "; ".join(broken[:3]), fix)
    return Check("settings", OK, f"{count} JSON file{'s' * (count != 1)} read")


def disk_check(home: Path) -> Check:
    """Disk use of the home, by top-level folder; the walk stops after ``_WALK_ENTRIES``
    entries or ``_WALK_SECONDS`` (then it is "at least")."""
    total, files, parts, complete = _walk(home)
    biggest = sorted(parts.items(), key=lambda item: -item[1])[:3]
    shown = ", ".join(f"{name} {_size(size)}" for name, size in biggest if size)
    text = f"{'at least ' * (not complete)}{_size(total)} in {files:,} files"
    return Check("disk", OK, text + (f" ({shown})" if shown else ""))


def _walk(home: Path) -> tuple[int, int, dict[str, int], bool]:
    deadline = time.monotonic() + _WALK_SECONDS
    total = files = seen = 0
    parts: dict[str, int] = {}
    stack: list[tuple[str, str]] = [(str(home), "")]
    while stack:
        folder, top = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > _WALK_ENTRIES or time.monotonic() > deadline:
                return total, files, parts, False
            part = top or entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, part))
                    continue
                size = entry.stat(follow_symlinks=False).st_size
            except OSError:
                continue
            files += 1
            total += size
            parts[part] = parts.get(part, 0) + size
    return total, files, parts, True


def _size(size: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


def package_checks(home: Path) -> list[Check]:
    """Each installed package: active, or why not with the commands that change it."""
    from gateway.base import Severity
    from gateway.packages import evaluate_packages, load_adapters

    checks: list[Check] = []
    for status in evaluate_packages(home, load_adapters()):
        name = f"package {status.id}"
        # A package without a version (a nimlet folder) says nothing where it would stand.
        version = f"{status.package.record.version}: " if status.package.record.version else ""
        if status.active:
            checks.append(Check(name, OK, f"{version}active"))
            continue
        hints = [d.hint for d in status.diagnostics if d.hint and d.package == status.id]
        if status.ready:  # every gate passed, but its code did not load when it last started
            # What status says of it, where its errors say what to do (a server command
            # not on PATH); else its logs tell.
            errors = [d for d in status.diagnostics if d.severity is Severity.ERROR]
            said = [d.hint for d in errors if d.hint and d.package == status.id]
            first = "; ".join(dict.fromkeys(said)) or f"gateway logs {status.id}"
            hint = f"{first}; then `gateway list` starts it again"
            checks.append(Check(name, FAIL, f"{version}{status.state}", hint))
            continue
        failed = any(d.severity is Severity.ERROR for d in status.diagnostics)
        found = f"{version}{status.state}"
        checks.append(Check(name, FAIL if failed else WARN, found, "; ".join(dict.fromkeys(hints))))
    return checks
