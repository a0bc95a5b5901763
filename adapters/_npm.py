"""What Pi, OpenClaw and Nu packages share: an npm ``package.json``.

Identity (name keeps its scope), version, description and the dependency tables. Only
the fields the gateway reads are checked, with npm's types; everything else in
package.json is the package manager's business.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adapters import _codes as codes
from adapters._files import Inspection, safe_is_file
from adapters._files import type_name as _type
from gateway.model import Dependency, folder_name

__all__ = ["PACKAGE_JSON", "NpmPackage", "has_key", "npm_dependencies", "read_package"]

PACKAGE_JSON = "package.json"


@dataclass(slots=True)
class NpmPackage:
    id: str
    name: str
    version: str
    description: str
    raw: dict[str, Any]


def has_key(root: Path, key: str) -> bool:
    """Cheap detection: does root/package.json parse to an object with ``key``?"""
    if not safe_is_file(root / PACKAGE_JSON):
        return False
    probe = Inspection(root)
    data = probe.read_json_object(PACKAGE_JSON)
    return data is not None and key in data


def read_package(inspection: Inspection, *, required: bool = True) -> NpmPackage | None:
    """package.json's identity; None (with diagnostics) when it is absent or malformed."""
    raw = inspection.read_json_object(PACKAGE_JSON, required=required)
    if raw is None:
        return None
    fallback = folder_name(inspection.root) or "package"
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        inspection.add(
            codes.NAME_MISSING(
                f"{PACKAGE_JSON}: name is {_type(name) if 'name' in raw else 'missing'}; "
                f"using the directory name {fallback!r}"
            )
        )
        name = fallback
    return NpmPackage(
        id=name.strip(),
        name=name.strip(),
        version=_string_field(inspection, raw, "version"),
        description=_string_field(inspection, raw, "description"),
        raw=raw,
    )


def _string_field(inspection: Inspection, raw: dict[str, Any], key: str) -> str:
    value = raw.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        inspection.add(codes.FIELD_INVALID(f"{PACKAGE_JSON}: {key} is {_type(value)}"))
        return ""
    return value


def npm_dependencies(
    inspection: Inspection, raw: dict[str, Any], *, host_packages: frozenset[str] = frozenset()
) -> list[Dependency]:
    """dependencies, optionalDependencies and peerDependencies as npm dependencies.

    Peers named in ``host_packages`` are marked provided by the host; a peer marked
    optional in peerDependenciesMeta is optional.
    """
    deps: list[Dependency] = []
    peer_meta = raw.get("peerDependenciesMeta")
    if not isinstance(peer_meta, dict):
        peer_meta = {}
    for table, optional in (
        ("dependencies", False),
        ("optionalDependencies", True),
        ("peerDependencies", False),
    ):
        for name, specifier in _table(inspection, raw, table):
            is_peer = table == "peerDependencies"
            meta = peer_meta.get(name) if is_peer else None
            peer_optional = isinstance(meta, dict) and meta.get("optional") is True
            deps.append(
                Dependency(
                    kind="npm",
                    name=name,
                    specifier=specifier,
                    optional=optional or peer_optional,
                    provided_by_host=is_peer and name in host_packages,
                )
            )
    return deps


def _table(inspection: Inspection, raw: dict[str, Any], key: str) -> list[tuple[str, str]]:
    value = raw.get(key)
    if value is None:
        return []
    if not isinstance(value, dict):
        inspection.add(codes.FIELD_INVALID(f"{PACKAGE_JSON}: {key} is {_type(value)}"))
        return []
    pairs: list[tuple[str, str]] = []
    for name, specifier in value.items():
        if not isinstance(specifier, str) or not name:
            inspection.add(
                codes.FIELD_INVALID(f"{PACKAGE_JSON}: {key}[{name!r}] is {_type(specifier)}")
            )
            continue
        pairs.append((name, specifier))
    return pairs
