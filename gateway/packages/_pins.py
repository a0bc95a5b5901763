"""Pinned tool definitions: a rug pull (a package that changes what a tool says or takes
after the user trusted it) is held back until the user trusts the package again.

A trusted package's tools are pinned the first time its runtime lists them after trust:
each tool's name, description and input schema, and the SHA-256 of the three
(``GATEWAY_HOME/pins/<sha256 of the id>.json``, the id itself never a path). A later listing
— at a later start, from the registration cache, or a runtime's ``tools/list_changed`` in
the middle of a session — whose definition differs is held back (``tool.definition_changed``,
naming what changed); a tool first seen after the pins were taken is pinned then.
``gateway trust ID`` accepts what the package lists now: it forgets the pins, and the next
listing pins again. Only installed packages are pinned: a discovered extension is the
workspace's own code, trusted with the workspace.

``gateway lock`` writes each package's pin digests (``locked_pins``); ``gateway sync --accept``
restores them into the new home (``restore_pins``) as pins known by digest only, so a tool
whose definition differs from the locked one is held back there too; one that matches is
pinned in full at that listing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gateway.base import json_text, private_dir, write_json_atomically

__all__ = [
    "PinnedTool",
    "ToolPins",
    "forget_pins",
    "locked_pins",
    "pin_digest",
    "restore_pins",
]

PINS = "pins"
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}\Z")


def pin_digest(name: str, description: str, input_schema: Any) -> str:
    """The SHA-256 of a definition (canonical JSON of name, description, schema)."""
    text = json.dumps([name, description, input_schema], sort_keys=True, ensure_ascii=True)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class PinnedTool:
    description: str | None
    """None: known by its digest alone (restored from a lockfile)."""
    input_schema: Any
    digest: str

    @property
    def complete(self) -> bool:
        return self.description is not None

    def differences(self, name: str, description: str, input_schema: Any) -> list[str]:
        """What of a listed definition differs from the pinned one, said for the user."""
        if self.description is None:
            now = pin_digest(name, description, input_schema)
            if now == self.digest:
                return []
            return [
                f"its definition (name, description, schema) hashes to {now[:19]}…, "
                f"the lockfile's to {self.digest[:19]}…; description now "
                f"{json_text(description[:160])}"
            ]
        found = []
        if description != self.description:
            found.append(
                f"description was {json_text(self.description[:160])}, "
                f"now {json_text(description[:160])}"
            )
        if input_schema != self.input_schema:
            before = json.dumps(self.input_schema, sort_keys=True)[:160]
            after = json.dumps(input_schema, sort_keys=True)[:160]
            found.append(f"input schema was {before}, now {after}")
        return found


def _path(home: Path, package_id: str) -> Path:
    return home / PINS / (hashlib.sha256(package_id.encode()).hexdigest()[:32] + ".json")


class ToolPins:
    """The pins of one package, read once; ``pin`` adds and writes them."""

    def __init__(self, home: Path, package_id: str) -> None:
        self._home, self.package_id = home, package_id
        self.tools: dict[str, PinnedTool] = {}
        with contextlib.suppress(OSError, ValueError):
            document = json.loads(_path(home, package_id).read_text(encoding="utf-8"))
            if isinstance(document, dict) and document.get("package") == package_id:
                for name, item in (document.get("tools") or {}).items():
                    if not isinstance(item, dict):
                        continue
                    if isinstance(item.get("description"), str):
                        self.tools[name] = PinnedTool(
                            item["description"], item.get("input_schema"), str(item.get("digest"))
                        )
                    elif isinstance(item.get("digest"), str) and _DIGEST.match(item["digest"]):
                        self.tools[name] = PinnedTool(None, None, item["digest"])

    def pin(self, found: dict[str, tuple[str, Any]]) -> None:
        """Pin these definitions (name → (description, schema)) beside the others."""
        for name, (description, schema) in found.items():
            self.tools[name] = PinnedTool(
                description, schema, pin_digest(name, description, schema)
            )
        self._write()

    def _write(self) -> None:
        document = {
            "package": self.package_id,
            "tools": {
                name: {"description": t.description, "input_schema": t.input_schema,
                       "digest": t.digest} if t.complete else {"digest": t.digest}
                for name, t in sorted(self.tools.items())
            },
        }  # fmt: skip
        with contextlib.suppress(OSError, TypeError, ValueError):
            private_dir(self._home / PINS)
            write_json_atomically(_path(self._home, self.package_id), document)


def forget_pins(home: Path, package_id: str) -> None:
    """The user trusts the package as it is now: its next listing is pinned afresh."""
    with contextlib.suppress(FileNotFoundError):
        _path(home, package_id).unlink()


def locked_pins(home: Path, package_id: str) -> dict[str, str]:
    """Tool name → digest of each pinned definition, for the lockfile."""
    return {name: t.digest for name, t in sorted(ToolPins(home, package_id).tools.items())}


def restore_pins(home: Path, package_id: str, digests: dict[str, str]) -> None:
    """The pins become exactly ``digests`` (from a lockfile); a definition pinned here whose
    digest is the locked one keeps its text, so a later difference is shown in full."""
    pins = ToolPins(home, package_id)
    kept = {name: pins.tools.get(name) for name in digests}
    pins.tools = {
        name: found if found is not None and found.digest == digest else PinnedTool(
            None, None, digest)
        for name, digest in digests.items()
        for found in (kept[name],)
    }  # fmt: skip
    pins._write()
