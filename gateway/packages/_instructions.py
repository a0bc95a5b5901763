"""What the user is told when they decide about a package — at ``install`` and at
``trust``: what it declares for the model to read, checked for instruction-like text
(``base._model_text``), and what its hooks may do to other packages' tools
(``hooks.rewrite``).

Declared: its contributions' descriptions, and the bodies of the skills and prompt
templates it ships (read from the package's folder, never outside it). What a runtime
registers only when it runs (a Pi or OpenClaw tool) is checked where it is shown:
``gateway list`` and ``gateway serve --mcp``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection
from pathlib import Path

from gateway.base import (
    Diagnostic,
    PathRefused,
    flagged_text,
    model_text_flags,
    read_model_text,
    safe_join,
    schema_text,
)
from gateway.model import CatalogEntry
from gateway.packages._rewrites import rewrite_notice

__all__ = ["decision_notices", "declared_instructions"]

_READ = ("tool", "command", "skill", "prompt")


def declared_instructions(entry: CatalogEntry, root: Path) -> list[Diagnostic]:
    """``package.model_instructions`` for each declared contribution whose text flags."""
    found = []
    for contribution in entry.contributions:
        if contribution.kind not in _READ:
            continue
        text = contribution.description
        schema = contribution.detail.get("input_schema")
        if schema:  # a tool's schema descriptions reach the model as its description does
            text += "\n" + schema_text(schema)
        path = contribution.detail.get("path")
        if isinstance(path, str) and path:
            # A path leading out of the package is no text of its own.
            with contextlib.suppress(PathRefused):
                text += "\n" + read_model_text(safe_join(root, *path.split("/"), portable=False))
        flags = model_text_flags(text)
        if flags:
            found.append(flagged_text(contribution.kind, contribution.name, entry.id, flags))
    return found


def decision_notices(entry: CatalogEntry, root: Path, granted: Collection[str]) -> list[Diagnostic]:
    """What the user is told when they decide about a package (``install``, ``trust``):
    the text it gives the model, and what its hooks may do to other packages' tools."""
    notice = rewrite_notice(entry, granted)
    return [*declared_instructions(entry, root), *([notice] if notice else [])]
