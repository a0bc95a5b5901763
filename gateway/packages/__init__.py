"""Packages: install from a folder, a git repository or npm; inspect; gate; activate.

One pipeline for every ecosystem, four gates a user passes explicitly — install,
permission grant, trust, enable — and nothing a package contains runs before all four.
Adapters are reached through an entry point, never imported (see ``_inspect``).
"""

from pathlib import Path

from ._config import (
    GATEWAY_SETTINGS,
    PackageConfigError,
    config_path,
    package_settings,
    parse_config_value,
    read_package_config,
    set_config_value,
    unset_config_value,
    write_package_config,
)
from ._gates import PackageStatus, RuntimePlanner, evaluate_packages
from ._inspect import CatalogEntryLike, Inspector, NoAdapters, load_inspector
from ._installer import (
    InstallError,
    InstallReport,
    collect_garbage,
    install,
    package_folder,
    uninstall,
)
from ._launch import (
    DiscoveredLaunch,
    Discoverer,
    LaunchRefusal,
    LaunchSpec,
    load_discoverers,
    load_launcher,
)
from ._sources import FetchError, Source, parse_source
from ._verify import InstallLimits

NATIVE_RUNTIMES = frozenset({"nimlet-process", "nimlet-tool", "declarative"})


def runtime_planner(home: Path) -> RuntimePlanner:
    """nimlet packages (processes, tools, skills, prompts) run natively; any other package
    runs through whatever its adapter's launcher plans, or says why it cannot."""
    launcher = load_launcher()

    def plan(entry: CatalogEntryLike) -> LaunchSpec | LaunchRefusal | None:
        if entry.ecosystem == "nimlet" and entry.runtime in NATIVE_RUNTIMES:
            return None
        return launcher(entry, home)

    return plan


__all__ = [
    "GATEWAY_SETTINGS",
    "NATIVE_RUNTIMES",
    "CatalogEntryLike",
    "DiscoveredLaunch",
    "Discoverer",
    "FetchError",
    "Inspector",
    "InstallError",
    "InstallLimits",
    "InstallReport",
    "LaunchRefusal",
    "LaunchSpec",
    "NoAdapters",
    "PackageConfigError",
    "PackageStatus",
    "RuntimePlanner",
    "Source",
    "collect_garbage",
    "config_path",
    "evaluate_packages",
    "install",
    "load_discoverers",
    "load_inspector",
    "load_launcher",
    "package_folder",
    "package_settings",
    "parse_config_value",
    "parse_source",
    "read_package_config",
    "runtime_planner",
    "set_config_value",
    "uninstall",
    "unset_config_value",
    "write_package_config",
]
