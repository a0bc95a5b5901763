"""Packages: install from a folder, a git repository or npm; inspect; gate; activate.

One pipeline for every ecosystem, four gates a user passes explicitly — install,
permission grant, trust, enable — and nothing a package contains runs before all four.
Adapters are reached through an entry point, never imported (see ``_adapters``).
"""

from gateway.packages._adapters import (
    NoAdapters,
    discover_all,
    load_adapters,
    plan_launch,
    prepare_install,
)
from gateway.packages._config import (
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
from gateway.packages._extract import ExtractError, extract_tarball
from gateway.packages._gates import PackageStatus, evaluate_packages
from gateway.packages._installer import (
    InstallError,
    InstallReport,
    collect_garbage,
    install,
    package_folder,
    uninstall,
)
from gateway.packages._sources import Fetched, FetchError, Source, fetch, parse_source
from gateway.packages._trees import remove_tree
from gateway.packages._verify import InstallLimits, VerifyError, verify_tree

__all__ = [
    "GATEWAY_SETTINGS",
    "ExtractError",
    "FetchError",
    "Fetched",
    "InstallError",
    "InstallLimits",
    "InstallReport",
    "NoAdapters",
    "PackageConfigError",
    "PackageStatus",
    "Source",
    "VerifyError",
    "collect_garbage",
    "config_path",
    "discover_all",
    "evaluate_packages",
    "extract_tarball",
    "fetch",
    "install",
    "load_adapters",
    "package_folder",
    "package_settings",
    "parse_config_value",
    "parse_source",
    "plan_launch",
    "prepare_install",
    "read_package_config",
    "remove_tree",
    "set_config_value",
    "uninstall",
    "unset_config_value",
    "verify_tree",
    "write_package_config",
]
