"""Text with injection signals (``base.held_flags``) that the user accepted for the model.

The host holds such text back — a tool's description and schema, a command's description,
a prompt template's body — and records what it held (``GATEWAY_HOME/accepted-text/<sha256
of the id>.json``, the id itself never a path): each contribution's kind and name and the
SHA-256 of the text. ``gateway trust ID --accept-text`` moves what was held to what is
accepted; the host then lets exactly that text through, and a later change of it is held
again (its digest differs).

``gateway lock`` writes the accepted digests of each package (``locked_text``);
``gateway sync --accept`` makes them the new home's (``restore_accepted_text``), so text
accepted on one machine is offered on the next, and only that text.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from pathlib import Path

from gateway.base import private_dir, write_json_atomically

__all__ = [
    "AcceptedText",
    "accept_held_text",
    "locked_text",
    "restore_accepted_text",
    "text_digest",
]

ACCEPTED = "accepted-text"
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}\Z")


def text_digest(kind: str, name: str, text: str) -> str:
    """The SHA-256 of one contribution's text the model reads."""
    data = json.dumps([kind, name, text], ensure_ascii=True)
    return "sha256:" + hashlib.sha256(data.encode()).hexdigest()


def _path(home: Path, package_id: str) -> Path:
    return home / ACCEPTED / (hashlib.sha256(package_id.encode()).hexdigest()[:32] + ".json")


def _digests(value: object) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    return {
        key: digest
        for key, digest in value.items()
        if isinstance(key, str) and isinstance(digest, str) and _DIGEST.match(digest)
    }


class AcceptedText:
    """What of one package's text was held back, and what the user accepted."""

    def __init__(self, home: Path, package_id: str) -> None:
        self._home, self.package_id = home, package_id
        self.held: dict[str, str] = {}
        self.accepted: dict[str, str] = {}
        with contextlib.suppress(OSError, ValueError):
            document = json.loads(_path(home, package_id).read_text(encoding="utf-8"))
            if isinstance(document, dict) and document.get("package") == package_id:
                self.held = _digests(document.get("held"))
                self.accepted = _digests(document.get("accepted"))

    def admits(self, kind: str, name: str, digest: str) -> bool:
        return self.accepted.get(f"{kind}:{name}") == digest

    def hold(self, kind: str, name: str, digest: str) -> None:
        key = f"{kind}:{name}"
        if self.held.get(key) != digest:
            self.held[key] = digest
            self.write()

    def write(self) -> None:
        document = {
            "package": self.package_id,
            "held": dict(sorted(self.held.items())),
            "accepted": dict(sorted(self.accepted.items())),
        }
        with contextlib.suppress(OSError, TypeError, ValueError):
            private_dir(self._home / ACCEPTED)
            write_json_atomically(_path(self._home, self.package_id), document)


def accept_held_text(home: Path, package_id: str) -> list[str]:
    """Accept the text held back for ``package_id`` (as it was when held); what was
    accepted, as ``kind:name``."""
    text = AcceptedText(home, package_id)
    keys = sorted(text.held)
    if keys:
        text.accepted.update(text.held)
        text.held = {}
        text.write()
    return keys


def locked_text(home: Path, package_id: str) -> dict[str, str]:
    """``kind:name`` → digest of each text accepted for ``package_id``, for the lockfile."""
    return dict(sorted(AcceptedText(home, package_id).accepted.items()))


def restore_accepted_text(home: Path, package_id: str, digests: dict[str, str]) -> None:
    """What is accepted becomes exactly ``digests`` (from a lockfile); what was held here
    with an accepted digest is no longer held."""
    text = AcceptedText(home, package_id)
    text.accepted = dict(_digests(digests))
    text.held = {key: d for key, d in text.held.items() if text.accepted.get(key) != d}
    text.write()
