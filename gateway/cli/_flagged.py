"""``gateway list``'s check of what the model will read: each tool's and command's
description (and every string of a tool's input schema), each skill's and prompt's
description and body (``base._model_text``). A
flagged one is a ``package.model_instructions`` diagnostic quoting the text; ``--strict``
shows ``[withheld: …]`` in place of its description, in the table and in ``--json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gateway.base import (
    Diagnostic,
    flagged_text,
    model_text_flags,
    read_model_text,
    schema_text,
    withheld,
)

__all__ = ["flag_listing"]

_KINDS = {"tools": "tool", "commands": "command", "skills": "skill", "prompts": "prompt"}


def flag_listing(
    listing: dict[str, list[dict[str, Any]]], strict: bool, roots: dict[Path, str] | None = None
) -> list[Diagnostic]:
    """Check every entry of ``listing`` (``tools``, ``commands``, ``skills``, ``prompts``:
    dicts with ``name``, ``description``, and ``owner`` or ``path``); with ``strict``, a
    flagged entry's description is replaced and ``withheld`` set. A skill or prompt is the
    package's whose folder (``roots``: each installed package's, its id) holds its file."""
    found: list[Diagnostic] = []
    for key, kind in _KINDS.items():
        for item in listing.get(key, []):
            text = str(item.get("description") or "")
            if item.get("path"):
                text += "\n" + read_model_text(Path(item["path"]))
            if item.get("input_schema"):  # its schema's descriptions reach the model too
                text += "\n" + schema_text(item["input_schema"])
            flags = model_text_flags(text)
            if not flags:
                continue
            owner = item.get("owner") or _owner(item.get("path"), roots or {})
            found.append(flagged_text(kind, str(item["name"]), owner, flags))
            if strict:
                item["description"] = withheld(flags)
                item["withheld"] = True
    return found


def _owner(path: str | None, roots: dict[Path, str]) -> str | None:
    if not path:
        return None
    held = Path(path)
    return next((owner for root, owner in roots.items() if held.is_relative_to(root)), None)
