"""OpenClaw's plugin compatibility registry, the part the gateway needs: vendored as
``data/compat-removed.json`` (the records whose surfaces a plugin's code can be seen to use,
with the OpenClaw line that no longer has them; the registry's source commits are noted
there). ``removed_uses`` finds them in a plugin's code (the audit); ``withdrawn_subpaths``
lists the SDK subpaths a plugin built for the newer hosts no longer gets (the sidecar).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from adapters._semver import parse_version
from gateway.audit import SourceFile

__all__ = [
    "DATA",
    "NEWER",
    "RemovedUse",
    "gone_from",
    "removed_uses",
    "withdrawn_subpaths",
    "withdrawn_through",
]

DATA: Final = Path(__file__).parent / "data" / "compat-removed.json"
NEWER: Final = "2026.10"
"""From this host version on, the newer rules apply (``_lines.rules_for``)."""


@dataclass(frozen=True, slots=True)
class RemovedUse:
    code: str
    """The registry record's code."""
    surface: str
    removed_in: str
    replacement: str
    path: str
    line: int


@functools.cache
def _records() -> tuple[dict[str, Any], ...]:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    return tuple(data["records"])


def _import_pattern(module: str) -> re.Pattern[str]:
    """A module specifier in quotes; ``openclaw/plugin-sdk…`` also under its ``@openclaw``
    alias."""
    sdk = "openclaw/plugin-sdk"
    if module.startswith(sdk):
        rest = re.escape(module[len(sdk) :])
        return re.compile(rf"""["'](?:@openclaw/plugin-sdk|openclaw/plugin-sdk){rest}["']""")
    return re.compile(rf"""["']{re.escape(module)}["']""")


def _finder(surface: Mapping[str, str]) -> re.Pattern[str] | None:
    if "call" in surface:
        # ``api.x(``, and feature-detected ``api?.x?.(``
        name = re.escape(surface["call"])
        return re.compile(rf"(?<![\w$])\w+\s*\??\.\s*{name}\s*(?:\?\.)?\s*\(")
    if "path" in surface:
        parts = r"\s*\.\s*".join(map(re.escape, surface["path"].split(".")))
        return re.compile(rf"(?<![\w$]){parts}(?![\w$])")
    if "hook" in surface:
        return re.compile(rf"""\.\s*on\s*\(\s*["']{re.escape(surface["hook"])}["']""")
    if "name" in surface:
        return re.compile(rf"(?<![\w$]){re.escape(surface['name'])}(?![\w$])")
    if "import" in surface:
        return _import_pattern(surface["import"])
    return None


def _needles(surface: Mapping[str, str]) -> tuple[str, ...]:
    """Text every match of ``_finder(surface)`` (and of its import, for a ``name``) contains
    verbatim: a file without one of them is not searched (a plugin's bundle is megabytes, and
    a pattern that starts with a look-behind is tried at every position)."""
    for key in ("call", "hook", "name"):
        if key in surface:
            return (surface[key], surface["import"]) if key == "name" else (surface[key],)
    if "path" in surface:
        return tuple(surface["path"].split("."))
    return (surface["import"],) if "import" in surface else ()


def removed_uses(sources: Sequence[SourceFile]) -> list[RemovedUse]:
    """Every registry surface the reachable ``sources`` use, where (the first use per file)."""
    found: list[RemovedUse] = []
    for record in _records():
        for surface in record["surfaces"]:
            pattern = _finder(surface)
            if pattern is None:
                continue
            imported = _import_pattern(surface["import"]) if "name" in surface else None
            needles = _needles(surface)
            for source in sources:
                if not source.reachable or not all(n in source.text for n in needles):
                    continue
                if imported is not None and not imported.search(source.text):
                    continue
                match = pattern.search(source.text)
                if match is None:
                    continue
                found.append(
                    RemovedUse(
                        record["code"],
                        surface["surface"],
                        record["removed_in"],
                        record["replacement"],
                        source.path,
                        source.line_of(match.start()),
                    )
                )
    return found


def gone_from(use: RemovedUse, removed_through: str) -> bool:
    """Whether a line that has every removal up to ``removed_through`` lacks what ``use``
    uses."""
    removed, through = parse_version(use.removed_in), parse_version(removed_through)
    return removed is not None and through is not None and removed <= through


def withdrawn_subpaths(rules: str) -> list[tuple[str, str]]:
    """``(subpath, line)``: the SDK subpaths a plugin under ``rules`` no longer gets ("" is
    the root barrel) — those its hosts removed, though the pinned 2026.9.6 still serves some.
    None under the 2026.9 rules."""
    return withdrawn_through(NEWER) if rules == NEWER else []


def withdrawn_through(line: str) -> list[tuple[str, str]]:
    """``(subpath, line)``: the SDK subpaths OpenClaw removed up to ``line`` (inclusive)."""
    limit = parse_version(line)
    sdk = "openclaw/plugin-sdk"
    found: dict[str, str] = {}
    for record in _records():
        removed = parse_version(record["removed_in"])
        if removed is None or limit is None or removed > limit:
            continue
        for surface in record["surfaces"]:
            module = surface.get("import", "")
            if "name" not in surface and (module == sdk or module.startswith(f"{sdk}/")):
                found.setdefault(module[len(sdk) :].lstrip("/"), record["removed_in"])
    return sorted(found.items())
