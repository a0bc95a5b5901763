"""What the sandbox refused a package the last time it started, kept so that the commands
that do not start it still say so: ``status`` (which never starts anything) and ``list``
while the package's registration comes from the registration cache.

A record holds the refusals of one start — ``sandbox.denied``, ``sandbox.protected_name``,
``sandbox.network_denied``, each with its code — and the grants the package had then. It
is shown only while the grants are the same: after ``gateway permissions`` widens them,
the refusal may no longer happen, and the next start says what is true. A start without
refusals removes the record. Files live under ``GATEWAY_HOME/cache/denials``, one JSON
document per package named by a digest of its id (an id never becomes a path),
written atomically; an unreadable one is no record, never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from gateway.base import Diagnostic, DiagnosticCode, write_json_atomically
from gateway.sandbox import NETWORK_DENIED, PROTECTED_NAME, SANDBOX_DENIED

__all__ = ["DENIAL_CODES", "recalled_denials", "remember_denials"]

_SPECS: dict[str, DiagnosticCode] = {
    c.code: c for c in (SANDBOX_DENIED, PROTECTED_NAME, NETWORK_DENIED)
}
DENIAL_CODES = frozenset(_SPECS)
"""What the sandbox refused a package, recalled while it is not started again."""
_RECALLED = " (at its last start)"
_KEPT = 20
"""Refusals kept per package: one per missing grant is what the reporter emits."""


def _path(home: Path, package_id: str) -> Path:
    name = hashlib.sha256(package_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return home / "cache" / "denials" / f"{name}.json"


def remember_denials(
    home: Path, package_id: str, granted: Iterable[str], found: Iterable[Diagnostic]
) -> None:
    """Replace the package's record with the refusals of this start (none: no record).
    Best effort: a record that cannot be written only loses a reminder."""
    # A refusal recalled earlier in this run (its package held dormant, then started) is
    # the same refusal: kept once, as it was said at the start, never with the note again.
    hints: dict[str, tuple[str, str | None]] = {}
    for said in found:
        if said.code in DENIAL_CODES and said.package == package_id:
            hints.setdefault(_as_said(said.message), (said.code, said.hint))
    denials = list(hints)[:_KEPT]
    path = _path(home, package_id)
    if not denials:
        with contextlib.suppress(OSError):
            path.unlink()
        return
    document = {
        "package": package_id,
        "granted": sorted(set(granted)),
        "denials": [
            {"message": message, "code": hints[message][0], "hint": hints[message][1]}
            for message in denials
        ],
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_json_atomically(path, document)
    except (OSError, ValueError):
        return


def recalled_denials(home: Path, package_id: str, granted: Iterable[str]) -> list[Diagnostic]:
    """The refusals of the package's last start, each with its code (``sandbox.denied`` for
    a record without one), saying so, when its grants are still those it had then; else
    none."""
    try:
        document = json.loads(_path(home, package_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(document, dict) or document.get("package") != package_id:
        return []
    if document.get("granted") != sorted(set(granted)):
        return []
    recalled: list[Diagnostic] = []
    for item in document.get("denials") or []:
        if not isinstance(item, dict) or not isinstance(item.get("message"), str):
            continue
        hint = item.get("hint") if isinstance(item.get("hint"), str) else None
        spec = _SPECS.get(item.get("code"), SANDBOX_DENIED)  # type: ignore[arg-type]
        message = _as_said(item["message"]) + _RECALLED
        recalled.append(spec(message, package=package_id, hint=hint))
    return recalled


def _as_said(message: str) -> str:
    """The refusal without the notes recalling added (a record written before they were
    stripped holds one per run)."""
    while message.endswith(_RECALLED):
        message = message[: -len(_RECALLED)]
    return message
