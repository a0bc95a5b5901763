"""Packages: install from a folder, a git repository or npm; inspect; gate; activate.

One pipeline for every ecosystem, four gates a user passes explicitly — install,
permission grant, trust, enable — and nothing a package contains runs before all four.
Adapters are reached through an entry point, never imported (see ``_adapters``).
"""

from ._adapters import NoAdapters, discover_all, load_adapters, plan_launch
from ._gates import PackageStatus, evaluate_packages
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

__all__ = [
    "FetchError",
    "InstallError",
    "InstallLimits",
    "InstallReport",
    "NoAdapters",
    "PackageStatus",
    "Source",
    "collect_garbage",
    "discover_all",
    "evaluate_packages",
    "install",
    "load_adapters",
    "package_folder",
    "parse_source",
    "plan_launch",
    "uninstall",
]
