"""Whether an installed package's code loaded the last time it started, kept so that the
commands that start nothing — ``status``, ``doctor``, ``list --packages`` — say "failed to
load" (with the reason) instead of "active" for a package whose gates pass but whose code did
not load: its process did not start, or its runtime reported an error as it registered
(``pi.load_failed``, ``openclaw.load_failed``, …).

A record is valid for the content it was made with: a reinstall or an update (another
content hash) forgets it, and so does the next start that loads. Files live under
``GATEWAY_HOME/cache/starts``, one JSON document per package named by a digest of its id
(an id never becomes a path), written atomically; an unreadable one is no record.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path

from gateway.base import write_json_atomically

__all__ = ["MAX_REASON", "recalled_load_failure", "remember_start"]

MAX_REASON = 2000
"""Characters of the reason kept: a stack trace's head says what failed."""


def _path(home: Path, package_id: str) -> Path:
    name = hashlib.sha256(package_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return home / "cache" / "starts" / f"{name}.json"


def remember_start(home: Path, package_id: str, content_hash: str, failure: str | None) -> None:
    """Record how the package's start went: ``failure`` is why its code did not load, None
    when it loaded (then no record is kept). Best effort: a record that cannot be written
    only loses a reminder."""
    path = _path(home, package_id)
    if failure is None:
        with contextlib.suppress(OSError):
            path.unlink()
        return
    document = {"package": package_id, "content_hash": content_hash,
                "failure": failure[:MAX_REASON]}  # fmt: skip
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_json_atomically(path, document)
    except (OSError, ValueError):
        return


def recalled_load_failure(home: Path, package_id: str, content_hash: str) -> str | None:
    """Why the package's code did not load at its last start, when that start was of this
    content; else None."""
    try:
        document = json.loads(_path(home, package_id).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(document, dict) or document.get("package") != package_id:
        return None
    failure = document.get("failure")
    if document.get("content_hash") != content_hash or not isinstance(failure, str):
        return None
    return failure[:MAX_REASON] or None
