"""The names a person types for a package besides its id, and what its source says of its
version — both read at install from what was fetched, never from running anything.

A Claude Code plugin published on npm as ``selfish-pipeline`` whose ``plugin.json`` names it
``selfish`` installs as ``selfish``; the person typed ``selfish-pipeline``. Both resolve
(``StateStore.resolve``). Aliases are only ever looked up, never made into paths, and only
names shaped like package names are kept.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from gateway.model import CatalogEntry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gateway.store import InstalledPackage

__all__ = [
    "install_aliases",
    "npm_manifest",
    "npm_spec_name",
    "recorded_source",
    "source_version",
]

_NAME = re.compile(r"^(?:@[A-Za-z0-9][A-Za-z0-9._-]*/)?[A-Za-z0-9][A-Za-z0-9._~-]*\Z")
_MAX_NAME = 214  # npm's limit for a package name
_GIT_SUFFIX = re.compile(r"\.git$")


def npm_spec_name(spec: str) -> str | None:
    """The package name an npm spec asks for (``@scope/name@range`` → ``@scope/name``); None
    for an alias, a git or URL spec, or a path."""
    if ":" in spec or spec.startswith((".", "/", "~")):
        return None  # aliases, git and URL specs
    if spec.startswith("@"):
        scope, _, rest = spec.partition("/")
        return f"{scope}/{rest.split('@', 1)[0]}" if rest else None
    return spec.split("@", 1)[0] or None


def npm_manifest(root: Path) -> dict[str, Any]:
    """The package's ``package.json`` as an object; empty when it has none that parses."""
    try:
        with (root / "package.json").open("rb") as handle:
            found = json.loads(handle.read(1 << 20))
    except (OSError, ValueError, RecursionError):
        return {}
    return found if isinstance(found, dict) else {}


def source_version(kind: str, root: Path) -> str | None:
    """An npm source's version as npm published it (``package.json``), which is what a
    registry is asked for; None for other sources, or a manifest without one."""
    if kind != "npm":
        return None
    version = npm_manifest(root).get("version")
    return version if isinstance(version, str) and 0 < len(version) <= 256 else None


def install_aliases(kind: str, location: str, root: Path, entry: CatalogEntry) -> frozenset[str]:
    """Its npm name, its format's own name, and the folder or repository it came from,
    where each is a package-shaped name other than its id."""
    found: set[str] = set()
    name = npm_manifest(root).get("name")
    if isinstance(name, str):
        found.add(name)
    found.add(entry.name)
    if kind == "local":
        found.add(Path(location).name)
    elif kind == "git":
        found.add(_GIT_SUFFIX.sub("", location.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]))
    return frozenset(a for a in found if _is_name(a) and a != entry.id)


def _is_name(text: str) -> bool:
    return 0 < len(text) <= _MAX_NAME and _NAME.match(text) is not None


def recorded_source(package: InstalledPackage) -> str:
    """The source as the user gave it (the record adds what was fetched: ``SRC (RESOLVED)``)."""
    source = package.record.source
    plain = package.record.source_kind == "local" and package.record.source_member is None
    if not plain and source.endswith(")") and " (" in source:
        return source.rsplit(" (", 1)[0]
    return source
