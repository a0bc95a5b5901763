"""What the discovery tests share: the fixture extension, the extension roots of the
spec, and small writers and readers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).parents[1] / "fixtures" / "scripted_extension.py"

EXTENSION_ROOTS = (
    "~/.agents/extensions",
    "~/.nimlet/extensions",
    ".agents/extensions",
    ".nimlet/extensions",
)


def codes(diagnostics: Any) -> list[str]:
    return [d.code for d in diagnostics]


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def write_script(path: Path, text: str, *, executable: bool = True) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755 if executable else 0o644)
    return path


def names(found: Any) -> list[str]:
    return [item.manifest.name for item in found.extensions]


def ws(workspace: Any) -> Path:
    return workspace.root.resolve()
