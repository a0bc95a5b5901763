"""Helpers for adapter tests: build package folders, read diagnostics."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from gateway.base import Severity, catalogue
from gateway.model import CONTRIBUTION_KINDS, RUNTIMES, CatalogEntry

# Every code an adapter declares (in adapters/_codes.py or its own adapters/<eco>/_codes.py).
DECLARED = {code for code, entry in catalogue().items() if entry.module.startswith("adapters.")}

# The example manifest of the nanobot extension-authoring document (the review package).
NANOBOT_DOCUMENT_EXAMPLE: dict[str, Any] = {
    "id": "acme.review",
    "name": "Acme Review",
    "version": "1.0.0",
    "apiVersion": 1,
    "runtime": "python",
    "entry": "my_extension:register",
    "description": "Adds a review tool and command.",
    "homepage": "https://example.com/acme-review",
    "license": "MIT",
    "contributions": [
        {"kind": "tool", "name": "review_code", "description": "Review a local change."},
        {"kind": "command", "name": "review", "description": "Start a review from chat."},
    ],
    "dependencies": [
        {"kind": "python", "name": "acme-review-core", "specifier": ">=1,<2", "optional": False}
    ],
    "permissions": [{"name": "workspace.read", "reason": "Read files selected for review."}],
}


_SCRIPTED_LOOP = """
sys.stdout.write(json.dumps({"type": "register", "tools": tools,
                             "commands": globals().get("commands", []), "events": []}) + "\\n")
sys.stdout.flush()
for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") == "shutdown":
        break
    if message.get("type") == "tool":
        sys.stdout.write(json.dumps({"type": "response", "id": message["id"],
                                     "content": REPLY}) + "\\n")
        sys.stdout.flush()
"""


def scripted_extension(prelude: str, reply: str) -> str:
    """A nimlet extension as a Python script run by this interpreter: ``prelude`` sets
    ``tools`` (and may set ``commands``), which it registers; it answers every tool request
    with ``reply`` until it is told to shut down."""
    head = f"#!{sys.executable}\nimport json, os, sys\nREPLY = {reply!r}\n"
    return head + prelude.strip() + "\n" + _SCRIPTED_LOOP


def write_tree(root: Path, tree: dict[str, object]) -> Path:
    """Write files under root: str as text, bytes as bytes, anything else as JSON."""
    for rel, content in tree.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_text(json.dumps(content, indent=2), encoding="utf-8")
    return root


def codes(entry: CatalogEntry) -> list[str]:
    return [d.code for d in entry.diagnostics]


def messages(entry: CatalogEntry, code: str) -> list[str]:
    return [d.message for d in entry.diagnostics if d.code == code]


def errors(entry: CatalogEntry) -> list[str]:
    return [d.message for d in entry.diagnostics if d.severity is Severity.ERROR]


def names(entry: CatalogEntry, kind: str) -> list[str]:
    return [c.name for c in entry.contributions if c.kind == kind]


def assert_well_formed(entry: CatalogEntry) -> None:
    """What must hold for any input: declared codes, no crash, JSON-serialisable."""
    assert "package.adapter_failed" not in codes(entry), entry.diagnostics
    assert set(codes(entry)) <= DECLARED
    assert all(d.package for d in entry.diagnostics)
    assert entry.runtime in RUNTIMES
    assert {c.kind for c in entry.contributions} <= CONTRIBUTION_KINDS
    json.dumps(entry.to_dict(), allow_nan=True)
