"""Helpers for adapter tests: build package folders, read diagnostics."""

from __future__ import annotations

import json
from pathlib import Path

from adapters import CONTRIBUTION_KINDS, RUNTIMES, CatalogEntry
from adapters._codes import ALL_CODES
from gateway.diagnostics import Severity

DECLARED = {code.code for code in ALL_CODES}


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
