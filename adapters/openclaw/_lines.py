"""OpenClaw's current release lines, which of them a plugin works with, and which rules the
gateway applies to a plugin: decided by the host version the plugin declares.

Two inputs, both read without running anything:

- the **declared host version**: ``package.json`` ``openclaw.compat.pluginApi``,
  ``openclaw.compat.minGatewayVersion``, ``openclaw.install.minHostVersion`` and the
  ``openclaw`` peer range. The lowest version every declaration admits is the plugin's
  *floor*; a floor at or above 2026.10 means the plugin was built for the newer hosts and
  gets their rules (``rules_for``), anything else keeps the 2026.9 behaviour;
- **OpenClaw's compatibility registry** (vendored: ``data/compat-removed.json``, its source
  commits noted there): the SDK surfaces removed, and in which line. A plugin whose code
  uses a surface a line removed does not work with that line.

The lines (``LINES``) are the ones OpenClaw ships now: 2026.11, 2026.10 and the 2026.9
extended-stable line (2026.9.36 LTS). They were read from OpenClaw's published notes,
docs and source; the npm registry here serves ``openclaw`` up to 2026.9.6 only.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from adapters import _codes as codes
from adapters._semver import Version, parse_version, satisfies
from gateway.audit import HostLine, SourceFile

__all__ = [
    "LINES",
    "NEWER",
    "Line",
    "RemovedUse",
    "declared_ranges",
    "floor",
    "floor_range",
    "gone_from",
    "line_admitted",
    "openclaw_host_lines",
    "removed_uses",
    "rules_for",
    "withdrawn_subpaths",
]

DATA: Final = Path(__file__).parent / "data" / "compat-removed.json"


@dataclass(frozen=True, slots=True)
class Line:
    name: str
    """As people name it: ``2026.11``, ``2026.9.36 LTS``."""
    first: str
    last: str
    """The versions a declared range is tried against (the line's first and a late patch)."""
    removed_through: str
    """Registry removals up to this line are gone from it (``2026.9`` keeps 2026.10's)."""


LINES: Final = (
    Line("2026.11", "2026.11.0", "2026.11.99", "2026.11"),
    Line("2026.10", "2026.10.0", "2026.10.99", "2026.10"),
    Line("2026.9.36 LTS", "2026.9.36", "2026.9.99", "2026.9"),
)
"""Newest first."""

NEWER: Final = "2026.10"
"""From this host version on, the newer rules apply (``rules_for``)."""


def declared_ranges(metadata: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(where, range)`` for each host version the plugin declares (catalog metadata)."""
    found: list[tuple[str, str]] = []
    if isinstance(metadata.get("plugin_api"), str):
        found.append(("compat.pluginApi", metadata["plugin_api"]))
    if isinstance(metadata.get("min_gateway_version"), str):
        found.append(("compat.minGatewayVersion", floor_range(metadata["min_gateway_version"])))
    install = metadata.get("install")
    if isinstance(install, dict) and isinstance(install.get("minHostVersion"), str):
        found.append(("install.minHostVersion", install["minHostVersion"]))
    if isinstance(metadata.get("openclaw_peer"), str):
        found.append(("peerDependencies.openclaw", metadata["openclaw_peer"]))
    return found


def floor_range(value: str) -> str:
    """A ``minGatewayVersion`` as a range: OpenClaw takes ``>=x.y.z`` and, as legacy, a bare
    ``x.y.z`` (its ``parseMinHostVersionRequirement``)."""
    value = value.strip()
    return value if value.startswith(">=") else f">={value}"


def _lower_bound(spec: str) -> Version | None:
    """The lowest version ``spec`` admits (its smallest alternative's bound); None when the
    range cannot be read. ``*`` and bare upper bounds admit anything: ``(0, 0, 0)``."""
    lowest: Version | None = None
    for alternative in spec.split("||"):
        alternative = re.sub(r"(>=|<=|>|<|=|\^|~)\s+", r"\1", alternative.strip())
        hyphen = re.match(r"^(\S+)\s+-\s+\S+$", alternative)
        tokens = [hyphen[1]] if hyphen else alternative.split()
        bound: Version = (0, 0, 0)
        for token in tokens:
            match = re.match(r"^(>=|>|=|\^|~)?(.+)$", token)
            if token.startswith("<") or match is None:
                continue
            version = parse_version(match[2]) if match[2] not in ("*", "x", "X") else (0, 0, 0)
            if version is None:
                return None
            bound = max(bound, version)
        lowest = bound if lowest is None else min(lowest, bound)
    return lowest


def floor(metadata: Mapping[str, Any]) -> Version | None:
    """The lowest host version all the plugin's declarations admit (None: it declares none
    that can be read)."""
    bounds = [_lower_bound(spec) for _, spec in declared_ranges(metadata)]
    known = [bound for bound in bounds if bound is not None]
    return max(known) if known else None


def rules_for(metadata: Mapping[str, Any]) -> str:
    """``2026.10`` when the plugin declares a host of 2026.10 or later (the newer rules),
    else ``2026.9`` (today's behaviour, the lenient one where the two differ)."""
    lowest = floor(metadata)
    newer = parse_version(NEWER)
    return NEWER if lowest is not None and newer is not None and lowest >= newer else "2026.9"


def line_admitted(metadata: Mapping[str, Any], line: Line) -> list[str]:
    """The declarations that shut ``line`` out (a newer host refuses such a plugin at
    install); empty when every declared range admits some version of the line."""
    refused = []
    for where, spec in declared_ranges(metadata):
        if not (satisfies(line.first, spec) or satisfies(line.last, spec)):
            refused.append(f"{where} {spec!r} admits no OpenClaw {line.name}")
    return refused


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


def removed_uses(sources: Sequence[SourceFile]) -> list[RemovedUse]:
    """Every registry surface the reachable ``sources`` use, where (the first use per file)."""
    found: list[RemovedUse] = []
    for record in _records():
        for surface in record["surfaces"]:
            pattern = _finder(surface)
            if pattern is None:
                continue
            imported = _import_pattern(surface["import"]) if "name" in surface else None
            for source in sources:
                if not source.reachable:
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


def gone_from(use: RemovedUse, line: Line) -> bool:
    """Whether ``line`` no longer has the surface ``use`` uses."""
    removed, through = parse_version(use.removed_in), parse_version(line.removed_through)
    return removed is not None and through is not None and removed <= through


def openclaw_host_lines(
    metadata: Mapping[str, Any], sources: Sequence[SourceFile]
) -> list[HostLine]:
    """Each current line: refused at install by a declared range that admits none of its
    versions, or missing a surface the code uses; else it works."""
    uses = removed_uses(sources)
    found: list[HostLine] = []
    for line in LINES:
        refused = [(codes.OPENCLAW_HOST_VERSION.code, why) for why in line_admitted(metadata, line)]
        refused += [
            (
                codes.OPENCLAW_SURFACE_REMOVED.code,
                f"{use.surface} ({use.path}:{use.line}) was removed in OpenClaw "
                f"{use.removed_in} [{use.code}]; use {use.replacement}",
            )
            for use in uses
            if gone_from(use, line)
        ]
        code = refused[0][0] if refused else None
        found.append(
            HostLine("openclaw", line.name, not refused, code, tuple(r for _, r in refused))
        )
    return found


def withdrawn_subpaths(rules: str) -> list[tuple[str, str]]:
    """``(subpath, line)``: the SDK subpaths a plugin under ``rules`` no longer gets ("" is
    the root barrel) — those its hosts removed, though the pinned 2026.9.6 still serves some.
    None under the 2026.9 rules."""
    if rules != NEWER:
        return []
    limit = parse_version(NEWER)
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
