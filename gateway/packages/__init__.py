"""Packages: install from a folder, a git repository or npm; inspect; gate; activate.

One pipeline for every ecosystem, four gates a user passes explicitly — install,
permission grant, trust, enable — and nothing a package contains runs before all four.
Adapters are reached through an entry point, never imported (see ``_adapters``).
"""

from __future__ import annotations

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.packages._accepted_text import AcceptedText as AcceptedText
    from gateway.packages._accepted_text import accept_held_text as accept_held_text
    from gateway.packages._accepted_text import text_digest as text_digest
    from gateway.packages._adapters import NoAdapters as NoAdapters
    from gateway.packages._adapters import load_adapters as load_adapters
    from gateway.packages._adapters import plan_launch as plan_launch
    from gateway.packages._adapters import prepare_install as prepare_install
    from gateway.packages._aliases import recorded_source as recorded_source
    from gateway.packages._codes import GATE_BLOCKED as GATE_BLOCKED
    from gateway.packages._codes import LOCK_HOME_DIFFERS as LOCK_HOME_DIFFERS
    from gateway.packages._codes import LOCK_WRITE_FAILED as LOCK_WRITE_FAILED
    from gateway.packages._codes import RUNTIME_UNAVAILABLE as RUNTIME_UNAVAILABLE
    from gateway.packages._codes import STORE_UNUSABLE as STORE_UNUSABLE
    from gateway.packages._config import GATEWAY_SETTINGS as GATEWAY_SETTINGS
    from gateway.packages._config import PackageConfigError as PackageConfigError
    from gateway.packages._config import config_path as config_path
    from gateway.packages._config import package_settings as package_settings
    from gateway.packages._config import parse_config_value as parse_config_value
    from gateway.packages._config import read_package_config as read_package_config
    from gateway.packages._config import set_config_value as set_config_value
    from gateway.packages._config import unset_config_value as unset_config_value
    from gateway.packages._config import write_package_config as write_package_config
    from gateway.packages._denials import recalled_denials as recalled_denials
    from gateway.packages._denials import remember_denials as remember_denials
    from gateway.packages._extract import ExtractError as ExtractError
    from gateway.packages._extract import extract_tarball as extract_tarball
    from gateway.packages._garbage import collect_garbage as collect_garbage
    from gateway.packages._gates import PackageStatus as PackageStatus
    from gateway.packages._gates import evaluate_packages as evaluate_packages
    from gateway.packages._installer import InstallError as InstallError
    from gateway.packages._installer import InstallReport as InstallReport
    from gateway.packages._installer import install as install
    from gateway.packages._installer import package_folder as package_folder
    from gateway.packages._installer import uninstall as uninstall
    from gateway.packages._instructions import decision_notices as decision_notices
    from gateway.packages._instructions import declared_instructions as declared_instructions
    from gateway.packages._last_start import recalled_load_failure as recalled_load_failure
    from gateway.packages._last_start import remember_start as remember_start
    from gateway.packages._lockfile import LOCKFILE_NAME as LOCKFILE_NAME
    from gateway.packages._lockfile import Lockfile as Lockfile
    from gateway.packages._lockfile import LockfileError as LockfileError
    from gateway.packages._lockfile import lock_home as lock_home
    from gateway.packages._lockfile import render_lockfile as render_lockfile
    from gateway.packages._lockfile import write_lockfile as write_lockfile
    from gateway.packages._lockfile_read import read_lockfile as read_lockfile
    from gateway.packages._observed import ObservedRegistration as ObservedRegistration
    from gateway.packages._observed import forget_registrations as forget_registrations
    from gateway.packages._observed import observed_registration as observed_registration
    from gateway.packages._observed import registration_file as registration_file
    from gateway.packages._offered import offered_package as offered_package
    from gateway.packages._outdated import Outdated as Outdated
    from gateway.packages._outdated import check_outdated as check_outdated
    from gateway.packages._package_trust import Trusted as Trusted
    from gateway.packages._package_trust import trust_packages as trust_packages
    from gateway.packages._pins import PinnedTool as PinnedTool
    from gateway.packages._pins import ToolPins as ToolPins
    from gateway.packages._pins import forget_pins as forget_pins
    from gateway.packages._pins import pin_digest as pin_digest
    from gateway.packages._replacing import OtherSource as OtherSource
    from gateway.packages._replacing import describe_installed as describe_installed
    from gateway.packages._requirements import RequirementsReport as RequirementsReport
    from gateway.packages._requirements import install_requirements as install_requirements
    from gateway.packages._rewrites import HOOK_PERMISSIONS as HOOK_PERMISSIONS
    from gateway.packages._rewrites import HOOKS_REWRITE as HOOKS_REWRITE
    from gateway.packages._rewrites import REWRITING_EVENTS as REWRITING_EVENTS
    from gateway.packages._rewrites import rewrite_notice as rewrite_notice
    from gateway.packages._rewrites import rewrite_refused as rewrite_refused
    from gateway.packages._sources import Fetched as Fetched
    from gateway.packages._sources import FetchError as FetchError
    from gateway.packages._sources import Source as Source
    from gateway.packages._sources import SourceError as SourceError
    from gateway.packages._sources import fetch as fetch
    from gateway.packages._sources import parse_source as parse_source
    from gateway.packages._sync import SyncRefused as SyncRefused
    from gateway.packages._sync import SyncReport as SyncReport
    from gateway.packages._sync import sync as sync
    from gateway.packages._trees import remove_tree as remove_tree
    from gateway.packages._update import update_package as update_package
    from gateway.packages._verify import InstallLimits as InstallLimits
    from gateway.packages._verify import VerifyError as VerifyError
    from gateway.packages._verify import verify_tree as verify_tree


__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
