"""Packages: install from a folder, a git repository or npm; inspect; gate; activate.

One pipeline for every ecosystem, four gates a user passes explicitly — install,
permission grant, trust, enable — and nothing a package contains runs before all four.
Adapters are reached through an entry point, never imported (see ``_inspect``).
"""

from ._gates import PackageStatus, evaluate_packages
from ._inspect import CatalogEntryLike, Inspector, NoAdapters, load_inspector
from ._installer import (
    InstallError,
    InstallReport,
    collect_garbage,
    install,
    package_folder,
    uninstall,
)
from ._sources import FetchError, Source, parse_source
from ._verify import InstallLimits

NATIVE_RUNTIMES = frozenset({"nimlet-process", "nimlet-tool", "declarative"})


def runtime_available(entry: CatalogEntryLike) -> bool:
    """Which packages the gateway can run today: nimlet ones (processes, tools, skills and
    prompts). The sidecars for the other ecosystems come later."""
    return entry.ecosystem == "nimlet" and entry.runtime in NATIVE_RUNTIMES


__all__ = [
    "NATIVE_RUNTIMES",
    "CatalogEntryLike",
    "FetchError",
    "Inspector",
    "InstallError",
    "InstallLimits",
    "InstallReport",
    "NoAdapters",
    "PackageStatus",
    "Source",
    "collect_garbage",
    "evaluate_packages",
    "install",
    "load_inspector",
    "package_folder",
    "parse_source",
    "runtime_available",
    "uninstall",
]
