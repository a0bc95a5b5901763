"""A plugin's ``dependencies`` (``.claude-plugin/plugin.json``), by Claude Code's plugin
dependencies page: each entry is a plugin name (``"audit-logger"``), ``"name@marketplace"``,
or an object with ``name`` (required), ``version`` (a semver range such as ``~2.1.0``) and
``marketplace``. A dependency resolves in the declaring plugin's marketplace; another
marketplace only when the root marketplace allows it (``allowCrossMarketplaceDependenciesOn``),
which the gateway, knowing marketplaces by location and not by name, cannot check.

Each dependency is an ``extension`` dependency of the entry (the activation gates hold the
plugin until it is installed and ready) and a ``PackageRequirement`` that ``gateway install
MARKETPLACE#PLUGIN`` installs from the same marketplace. Reads text only."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Final

from adapters._files import Inspection, type_name
from adapters._semver import satisfies
from adapters.claude_plugins import _codes as codes
from gateway.base import counted
from gateway.model import CatalogEntry, Dependency, PackageRequirement

__all__ = [
    "PluginDependency",
    "as_dependencies",
    "package_requirements",
    "read_dependencies",
    "to_metadata",
]

_NAME: Final = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_MARKETPLACE: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
_FIELDS: Final = frozenset(("name", "version", "marketplace"))
_MOST: Final = 100
"""Entries read; a plugin naming more is refused past them (a hostile list is bounded)."""
WHERE: Final = ".claude-plugin/plugin.json dependencies"


@dataclass(frozen=True, slots=True)
class PluginDependency:
    name: str
    version: str = ""
    marketplace: str | None = None

    def describe(self) -> str:
        at = f"@{self.marketplace}" if self.marketplace else ""
        return f"{self.name}{at}{f' {self.version}' if self.version else ''}"


def read_dependencies(inspection: Inspection, raw: Any, own_name: str) -> list[PluginDependency]:
    """The valid entries of ``raw`` in order; each bad one is ``claude.dependency_invalid``
    naming it, and is left out."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        _invalid(inspection, f"{WHERE} is {type_name(raw)}, not a list")
        return []
    if len(raw) > _MOST:
        _invalid(inspection, f"{WHERE} lists {len(raw)} plugins; only the first {_MOST} are read")
    found: list[PluginDependency] = []
    for index, item in enumerate(raw[:_MOST]):
        where = f"{WHERE}[{index}]"
        dependency = _entry(inspection, item, where)
        if dependency is None:
            continue
        if dependency.name == own_name and dependency.marketplace is None:
            _invalid(inspection, f"{where}: the plugin {own_name!r} names itself")
        elif any(d.name == dependency.name for d in found):
            _invalid(inspection, f"{where}: {dependency.name!r} is listed twice")
        else:
            found.append(dependency)
    return found


def _entry(inspection: Inspection, item: Any, where: str) -> PluginDependency | None:
    if isinstance(item, str):
        name, at, elsewhere = item.partition("@")
        return _checked(inspection, where, name, "", elsewhere if at else None)
    if not isinstance(item, dict):
        _invalid(inspection, f"{where} is {type_name(item)}, not a plugin name or an object")
        return None
    unknown = sorted(str(key)[:100] for key in item if key not in _FIELDS)
    if unknown:
        inspection.add(
            codes.CLAUDE_MANIFEST_FIELD_UNKNOWN(
                f"{where}: {counted(len(unknown), 'unknown field')} ignored: "
                + ", ".join(map(repr, unknown))
            )
        )
    version, marketplace = item.get("version", ""), item.get("marketplace")
    if not isinstance(version, str):
        _invalid(inspection, f"{where}: `version` is {type_name(version)}, not a semver range")
        return None
    if version.strip() and satisfies("0.0.0", version) is None:
        _invalid(inspection, f"{where}: `version` {version[:100]!r} is not a semver range")
        return None
    if marketplace is not None and not isinstance(marketplace, str):
        _invalid(inspection, f"{where}: `marketplace` is {type_name(marketplace)}, not text")
        return None
    return _checked(inspection, where, item.get("name"), version.strip(), marketplace)


def _checked(
    inspection: Inspection, where: str, name: Any, version: str, marketplace: str | None
) -> PluginDependency | None:
    if not isinstance(name, str) or not _NAME.match(name):
        shown = name[:100] if isinstance(name, str) else type_name(name)
        _invalid(inspection, f"{where}: name {shown!r} is not a kebab-case plugin name")
        return None
    if marketplace is not None and not _MARKETPLACE.match(marketplace):
        shown = marketplace[:100]
        _invalid(inspection, f"{where}: marketplace {shown!r} is not a marketplace name")
        return None
    return PluginDependency(name, version, marketplace)


def _invalid(inspection: Inspection, message: str) -> None:
    inspection.add(codes.CLAUDE_DEPENDENCY_INVALID(message))


def to_metadata(dependencies: list[PluginDependency]) -> list[dict[str, Any]]:
    return [
        {"name": d.name, "version": d.version, "marketplace": d.marketplace} for d in dependencies
    ]


def as_dependencies(dependencies: list[PluginDependency]) -> list[Dependency]:
    """What the activation gates check: each plugin installed (its version range is checked
    when ``install`` resolves it; the gates read Python specifiers, not semver ranges)."""
    return [Dependency("extension", d.name) for d in dependencies]


def package_requirements(entry: CatalogEntry) -> list[PackageRequirement]:
    """The plugins ``entry`` needs, from what its inspection kept (``metadata``)."""
    found = []
    for item in entry.metadata.get("dependencies") or []:
        version = item.get("version") or ""
        found.append(
            PackageRequirement(
                name=item["name"],
                constraint=version,
                collection=item.get("marketplace"),
                accepts=functools.partial(_accepts, spec=version),
            )
        )
    return found


def _accepts(version: str, spec: str) -> bool | None:
    return True if not spec else satisfies(version, spec)
