"""Ecosystem adapters: read package metadata into catalog entries and launch plans."""

from __future__ import annotations

from adapters._base import (
    CONTRIBUTION_KINDS,
    RUNTIMES,
    Adapter,
    CatalogEntry,
    Contribution,
    Dependency,
    Permission,
)
from adapters.registry import ADAPTERS, detect_ecosystem, get_adapter, inspect_package

__all__ = [
    "ADAPTERS",
    "CONTRIBUTION_KINDS",
    "RUNTIMES",
    "Adapter",
    "CatalogEntry",
    "Contribution",
    "Dependency",
    "Permission",
    "detect_ecosystem",
    "get_adapter",
    "inspect_package",
]
