"""How the gateway reaches the adapters without importing them.

Adapters depend on the gateway, never the reverse: the gateway finds the function that
inspects a package through the ``extension_gateway.adapters`` entry point group (the
``adapters`` package registers ``adapters.registry:inspect_package`` there).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Protocol

from ..diagnostics import Diagnostic

__all__ = ["CatalogEntryLike", "Inspector", "load_inspector"]

ENTRY_POINT_GROUP = "extension_gateway.adapters"


class PermissionLike(Protocol):
    name: str
    reason: str


class DependencyLike(Protocol):
    kind: str
    name: str
    specifier: str
    optional: bool
    provided_by_host: bool


class ContributionLike(Protocol):
    kind: str
    name: str


class CatalogEntryLike(Protocol):
    """What the gateway reads of an adapter's catalog entry."""

    id: str
    name: str
    version: str
    ecosystem: str
    runtime: str
    root: str
    permissions: list[Any]
    dependencies: list[Any]
    contributions: list[Any]
    diagnostics: list[Diagnostic]

    def to_dict(self) -> dict[str, Any]: ...


Inspector = Callable[[Path], CatalogEntryLike]


class NoAdapters(RuntimeError):
    pass


@functools.cache
def load_inspector() -> Inspector:
    found = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda point: point.name)
    if not found:
        raise NoAdapters(
            f"no package adapters are installed (entry point group {ENTRY_POINT_GROUP!r}); "
            "reinstall extension-gateway"
        )
    inspector: Inspector = found[0].load()
    return inspector
