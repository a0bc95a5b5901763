"""OpenClaw's current release lines, which of them a plugin works with, and which rules the
gateway applies to a plugin: decided by the host version the plugin declares.

Two inputs, both read without running anything:

- the **declared host version**: ``package.json`` ``openclaw.compat.pluginApi``,
  ``openclaw.compat.minGatewayVersion``, ``openclaw.install.minHostVersion`` and the
  ``openclaw`` peer range. The lowest version every declaration admits is the plugin's
  *floor*; a floor at or above 2026.10 means the plugin was built for the newer hosts and
  gets their rules (``rules_for``), anything else keeps the 2026.9 behaviour;
- **OpenClaw's compatibility registry** (``_compat_registry``): the SDK surfaces removed,
  and in which line. A plugin whose code uses a surface a line removed does not work with
  that line.

The lines (``LINES``) are the ones OpenClaw ships now: 2026.11, 2026.10 and the 2026.9
extended-stable line (2026.9.36 LTS), as the project's issue 21 names them; what each lacks
comes from the compat registry's source and OpenClaw's docs (the npm registry here serves
``openclaw`` up to 2026.9.6 only, and no release notes of the newer lines were found).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from adapters._semver import Version, parse_version, satisfies
from adapters.openclaw import _codes as codes
from adapters.openclaw._compat_registry import (
    NEWER,
    gone_from,
    removed_uses,
    withdrawn_subpaths,
    withdrawn_through,
)
from gateway.audit import HostLine, SourceFile

__all__ = [
    "LINES",
    "NEWER",
    "PINNED_HOOK_CATALOG",
    "Line",
    "declared_floor",
    "declared_ranges",
    "floor",
    "floor_range",
    "hook_catalog_for",
    "legacy_hooks_removed",
    "line_admitted",
    "loader_for",
    "openclaw_host_lines",
    "rules_for",
    "tool_contract_enforced",
    "withdrawn_for",
]


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


LOADER_LINES: Final = (("2026.5.0", "jiti"), ("2026.8.0", "native-jiti"))
"""Below each version, the loader OpenClaw used then: jiti's transform for every entry
(2026.3-2026.4), native require with a jiti fallback on any error (2026.5-2026.7); from
2026.8 native require with no fallback (the pinned 2026.9.6)."""


def loader_for(metadata: Mapping[str, Any]) -> str:
    """How the sidecar loads the plugin's entry: as the OpenClaw of its declared floor loads
    plugins (``jiti``, ``native-jiti``); ``native`` (the pinned 2026.9.6's way) when it
    declares 2026.8 or later, or nothing that can be read."""
    lowest = floor(metadata)
    if lowest is None:
        return "native"
    for below, loader in LOADER_LINES:
        bound = parse_version(below)
        if bound is not None and lowest < bound:
            return loader
    return "native"


TOOL_CONTRACT_FROM: Final = "2026.5.2"
"""The first OpenClaw that refuses a tool its plugin's ``contracts.tools`` does not list (its
changelog: "Plugins/tools: enforce `contracts.tools` as the manifest ownership contract for
plugin tool registration, rejecting undeclared runtime tool names"; 2026.4.29's registry
has no such check, 2026.5.2's and the pinned 2026.9.6's do)."""

LEGACY_HOOKS_GONE: Final = "2026.8"
"""From this line on ``before_agent_start``, ``deactivate`` and ``subagent_spawning`` are no
typed hooks: OpenClaw ignores ``api.on`` of them as an unknown hook (2026.9.6's
``isPluginHookName``; 2026.7.35 still has them)."""


def _declared_at_least(metadata: Mapping[str, Any], version: str) -> bool:
    """The plugin is loaded as an OpenClaw at or after ``version``: its declared floor is
    there, or it declares nothing and is loaded as the pinned 2026.9.6."""
    lowest, bound = floor(metadata), parse_version(version)
    return lowest is None or bound is None or lowest >= bound


def tool_contract_enforced(metadata: Mapping[str, Any]) -> bool:
    """A tool outside ``contracts.tools`` is refused (``openclaw.tool_undeclared``), as the
    OpenClaw the plugin is loaded as refuses it; a plugin declaring an OpenClaw before
    2026.5.2 keeps that host's acceptance, with ``openclaw.tool_contract``."""
    return _declared_at_least(metadata, TOOL_CONTRACT_FROM)


def legacy_hooks_removed(metadata: Mapping[str, Any]) -> bool:
    """The legacy hook names are ignored (``openclaw.legacy_hook_removed``), as the OpenClaw
    the plugin is loaded as ignores them; before 2026.8 they run through their aliases."""
    return _declared_at_least(metadata, LEGACY_HOOKS_GONE)


HOOK_CATALOGS: Final = (("2026.5.0", "2026.4.29"), ("2026.8.0", "2026.7.35"))
"""Below each version, the OpenClaw release whose typed hook names apply (``hookCatalog``;
the names of each are in the sidecar's ``sidecars/lib/openclaw/hooks.mjs``): the fidelity
harness's reference bands (2026.5.0-2026.5.1 had no release: the next one, 2026.7.35's band,
whose loader and rules those plugins already get); from 2026.8 the pinned 2026.9.6's."""
PINNED_HOOK_CATALOG: Final = "2026.9.6"


def hook_catalog_for(metadata: Mapping[str, Any]) -> str:
    """The OpenClaw release whose typed hook catalogue the plugin is loaded with: a hook name
    that release does not have is ignored as it ignores one (``openclaw.hook_not_in_version``)."""
    lowest = floor(metadata)
    if lowest is None:
        return PINNED_HOOK_CATALOG
    for below, release in HOOK_CATALOGS:
        bound = parse_version(below)
        if bound is not None and lowest < bound:
            return release
    return PINNED_HOOK_CATALOG


def declared_floor(metadata: Mapping[str, Any]) -> str | None:
    """The plugin's floor as text (``2026.4.0``), None when it declares none."""
    lowest = floor(metadata)
    return ".".join(map(str, lowest)) if lowest is not None else None


NO_ROOT_BARREL: Final = "2026.8"
"""From this line on OpenClaw no longer has the whole-subpath SDK records the compat registry
removed in it (the root ``openclaw/plugin-sdk`` barrel among them)."""


def withdrawn_for(metadata: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(subpath, line)``: the SDK subpaths the OpenClaw the plugin declares no longer has,
    though the pinned 2026.9.6 (or its ``sdk-root.mjs`` shim) still serves them: the newer
    hosts' removals under their rules, 2026.8's for a plugin declaring 2026.8 or 2026.9.
    None for a plugin that declares nothing, or an OpenClaw before 2026.8."""
    rules = rules_for(metadata)
    if rules == NEWER:
        return withdrawn_subpaths(rules)
    lowest, first = floor(metadata), parse_version(NO_ROOT_BARREL)
    if lowest is None or first is None or lowest < first:
        return []
    return withdrawn_through(f"{lowest[0]}.{lowest[1]}")


def line_admitted(metadata: Mapping[str, Any], line: Line) -> list[str]:
    """The declarations that shut ``line`` out (a newer host refuses such a plugin at
    install); empty when every declared range admits some version of the line."""
    refused = []
    for where, spec in declared_ranges(metadata):
        if not (satisfies(line.first, spec) or satisfies(line.last, spec)):
            refused.append(f"{where} {spec!r} admits no OpenClaw {line.name}")
    return refused


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
            if gone_from(use, line.removed_through)
        ]
        code = refused[0][0] if refused else None
        found.append(
            HostLine("openclaw", line.name, not refused, code, tuple(r for _, r in refused))
        )
    return found
