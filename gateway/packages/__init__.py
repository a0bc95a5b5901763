"""Packages: install from a folder, a git repository or npm; inspect; gate; activate.

One pipeline for every ecosystem, four gates a user passes explicitly — install,
permission grant, trust, enable — and nothing a package contains runs before all four.
Adapters are reached through an entry point, never imported (see ``_adapters``).
"""

from __future__ import annotations

from gateway.base.lazy import lazy_attributes

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.packages._accepted_text import AcceptedText, accept_held_text, text_digest
    from gateway.packages._adapters import (
        NoAdapters,
        load_adapters,
        plan_launch,
        prepare_install,
    )
    from gateway.packages._aliases import recorded_source
    from gateway.packages._codes import (
        GATE_BLOCKED,
        LOCK_HOME_DIFFERS,
        LOCK_WRITE_FAILED,
        RUNTIME_UNAVAILABLE,
        STORE_UNUSABLE,
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
    from gateway.packages._denials import recalled_denials, remember_denials
    from gateway.packages._extract import ExtractError, extract_tarball
    from gateway.packages._garbage import collect_garbage
    from gateway.packages._gates import PackageStatus, evaluate_packages
    from gateway.packages._installer import (
        InstallError,
        InstallReport,
        install,
        package_folder,
        uninstall,
    )
    from gateway.packages._instructions import decision_notices, declared_instructions
    from gateway.packages._last_start import recalled_load_failure, remember_start
    from gateway.packages._lockfile import (
        LOCKFILE_NAME,
        Lockfile,
        LockfileError,
        lock_home,
        render_lockfile,
        write_lockfile,
    )
    from gateway.packages._lockfile_read import read_lockfile
    from gateway.packages._observed import (
        ObservedRegistration,
        forget_registrations,
        observed_registration,
        registration_file,
    )
    from gateway.packages._offered import offered_package
    from gateway.packages._outdated import Outdated, check_outdated
    from gateway.packages._package_trust import Trusted, trust_packages
    from gateway.packages._pins import PinnedTool, ToolPins, forget_pins, pin_digest
    from gateway.packages._replacing import OtherSource, describe_installed
    from gateway.packages._requirements import RequirementsReport, install_requirements
    from gateway.packages._rewrites import (
        HOOK_PERMISSIONS,
        HOOKS_REWRITE,
        REWRITING_EVENTS,
        rewrite_notice,
        rewrite_refused,
    )
    from gateway.packages._sources import (
        Fetched,
        FetchError,
        Source,
        SourceError,
        fetch,
        parse_source,
    )
    from gateway.packages._sync import SyncRefused, SyncReport, sync
    from gateway.packages._trees import remove_tree
    from gateway.packages._update import update_package
    from gateway.packages._verify import InstallLimits, VerifyError, verify_tree

_WHERE: dict[str, str] = {
    "Outdated": "gateway.packages._outdated",
    "check_outdated": "gateway.packages._outdated",
    "update_package": "gateway.packages._update",
    "GATE_BLOCKED": "gateway.packages._codes",
    "LOCK_HOME_DIFFERS": "gateway.packages._codes",
    "LOCK_WRITE_FAILED": "gateway.packages._codes",
    "RUNTIME_UNAVAILABLE": "gateway.packages._codes",
    "STORE_UNUSABLE": "gateway.packages._codes",
    "LOCKFILE_NAME": "gateway.packages._lockfile",
    "Lockfile": "gateway.packages._lockfile",
    "LockfileError": "gateway.packages._lockfile",
    "lock_home": "gateway.packages._lockfile",
    "read_lockfile": "gateway.packages._lockfile_read",
    "recalled_load_failure": "gateway.packages._last_start",
    "remember_start": "gateway.packages._last_start",
    "render_lockfile": "gateway.packages._lockfile",
    "write_lockfile": "gateway.packages._lockfile",
    "ObservedRegistration": "gateway.packages._observed",
    "HOOK_PERMISSIONS": "gateway.packages._rewrites",
    "HOOKS_REWRITE": "gateway.packages._rewrites",
    "REWRITING_EVENTS": "gateway.packages._rewrites",
    "rewrite_notice": "gateway.packages._rewrites",
    "rewrite_refused": "gateway.packages._rewrites",
    "Trusted": "gateway.packages._package_trust",
    "PinnedTool": "gateway.packages._pins",
    "AcceptedText": "gateway.packages._accepted_text",
    "accept_held_text": "gateway.packages._accepted_text",
    "text_digest": "gateway.packages._accepted_text",
    "ToolPins": "gateway.packages._pins",
    "forget_pins": "gateway.packages._pins",
    "pin_digest": "gateway.packages._pins",
    "trust_packages": "gateway.packages._package_trust",
    "recorded_source": "gateway.packages._aliases",
    "observed_registration": "gateway.packages._observed",
    "forget_registrations": "gateway.packages._observed",
    "registration_file": "gateway.packages._observed",
    "SyncRefused": "gateway.packages._sync",
    "SyncReport": "gateway.packages._sync",
    "sync": "gateway.packages._sync",
    "ExtractError": "gateway.packages._extract",
    "FetchError": "gateway.packages._sources",
    "Fetched": "gateway.packages._sources",
    "GATEWAY_SETTINGS": "gateway.packages._config",
    "InstallError": "gateway.packages._installer",
    "InstallLimits": "gateway.packages._verify",
    "InstallReport": "gateway.packages._installer",
    "NoAdapters": "gateway.packages._adapters",
    "PackageConfigError": "gateway.packages._config",
    "PackageStatus": "gateway.packages._gates",
    "Source": "gateway.packages._sources",
    "SourceError": "gateway.packages._sources",
    "VerifyError": "gateway.packages._verify",
    "collect_garbage": "gateway.packages._garbage",
    "config_path": "gateway.packages._config",
    "evaluate_packages": "gateway.packages._gates",
    "extract_tarball": "gateway.packages._extract",
    "fetch": "gateway.packages._sources",
    "install": "gateway.packages._installer",
    "install_requirements": "gateway.packages._requirements",
    "OtherSource": "gateway.packages._replacing",
    "describe_installed": "gateway.packages._replacing",
    "RequirementsReport": "gateway.packages._requirements",
    "decision_notices": "gateway.packages._instructions",
    "declared_instructions": "gateway.packages._instructions",
    "load_adapters": "gateway.packages._adapters",
    "offered_package": "gateway.packages._offered",
    "package_folder": "gateway.packages._installer",
    "package_settings": "gateway.packages._config",
    "parse_config_value": "gateway.packages._config",
    "parse_source": "gateway.packages._sources",
    "plan_launch": "gateway.packages._adapters",
    "prepare_install": "gateway.packages._adapters",
    "read_package_config": "gateway.packages._config",
    "recalled_denials": "gateway.packages._denials",
    "remember_denials": "gateway.packages._denials",
    "remove_tree": "gateway.packages._trees",
    "set_config_value": "gateway.packages._config",
    "uninstall": "gateway.packages._installer",
    "unset_config_value": "gateway.packages._config",
    "verify_tree": "gateway.packages._verify",
    "write_package_config": "gateway.packages._config",
}

__all__ = [
    "GATEWAY_SETTINGS",
    "GATE_BLOCKED",
    "HOOKS_REWRITE",
    "HOOK_PERMISSIONS",
    "LOCKFILE_NAME",
    "LOCK_HOME_DIFFERS",
    "LOCK_WRITE_FAILED",
    "REWRITING_EVENTS",
    "RUNTIME_UNAVAILABLE",
    "STORE_UNUSABLE",
    "AcceptedText",
    "ExtractError",
    "FetchError",
    "Fetched",
    "InstallError",
    "InstallLimits",
    "InstallReport",
    "Lockfile",
    "LockfileError",
    "NoAdapters",
    "ObservedRegistration",
    "OtherSource",
    "Outdated",
    "PackageConfigError",
    "PackageStatus",
    "PinnedTool",
    "RequirementsReport",
    "Source",
    "SourceError",
    "SyncRefused",
    "SyncReport",
    "ToolPins",
    "Trusted",
    "VerifyError",
    "accept_held_text",
    "check_outdated",
    "collect_garbage",
    "config_path",
    "decision_notices",
    "declared_instructions",
    "describe_installed",
    "evaluate_packages",
    "extract_tarball",
    "fetch",
    "forget_pins",
    "forget_registrations",
    "install",
    "install_requirements",
    "load_adapters",
    "lock_home",
    "observed_registration",
    "offered_package",
    "package_folder",
    "package_settings",
    "parse_config_value",
    "parse_source",
    "pin_digest",
    "plan_launch",
    "prepare_install",
    "read_lockfile",
    "read_package_config",
    "recalled_denials",
    "recalled_load_failure",
    "recorded_source",
    "registration_file",
    "remember_denials",
    "remember_start",
    "remove_tree",
    "render_lockfile",
    "rewrite_notice",
    "rewrite_refused",
    "set_config_value",
    "sync",
    "text_digest",
    "trust_packages",
    "uninstall",
    "unset_config_value",
    "update_package",
    "verify_tree",
    "write_lockfile",
    "write_package_config",
]

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)
