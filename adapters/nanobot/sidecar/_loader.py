"""Load packages: import each entry under its private name, call ``register(api)``.

``register`` must be synchronous and return None (the authoring document). Anything else —
an import error, an exception, ``sys.exit()``, a returned value (an ``async def register``
returns a coroutine) — is a diagnostic, and everything that package registered is rolled
back and its modules forgotten; the other packages of the sidecar are unaffected.
"""

from __future__ import annotations

import importlib
import json
import os

from . import _diagnostics as codes
from ._api import ExtensionApi
from ._channel import log
from ._diagnostics import Report
from ._isolation import PackageNamespace
from ._manifest import ManifestError, PackageInfo, read_package
from ._registry import Registry
from ._shim import install_shim

# For type checkers only: importing typing would cost the sidecar ≈7 ms at start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["METADATA_ONLY", "load_packages"]

EXECUTABLE_KINDS = frozenset({"tool", "command", "hook"})
METADATA_ONLY: dict[str, str] = {
    "skill": "skills are not installed from a nanobot manifest; ship them as SKILL.md files",
    "channel": "the gateway hosts no chat channels",
    "llm_provider": "model providers belong to the embedding agent",
    "transcription_provider": "the gateway has no transcription provider registry",
    "image_generation_provider": "the gateway has no image generation provider registry",
    "web_search_provider": "the gateway has no web search provider registry",
    "mcp_server": "the gateway does not start MCP servers from a nanobot manifest",
    "webui": "the gateway has no web UI",
}


def load_packages(
    roots: list[str],
    *,
    data_dir: str,
    config_files: list[tuple[str, str]],
    workspace: str,
    session_id: str,
    report: Report,
) -> Registry:
    install_shim()
    registry = Registry(report, workspace, session_id)
    configs = _read_configs(config_files, report)
    for root in roots:
        try:
            package = read_package(root)
        except ManifestError as error:
            report.add(codes.REGISTER_FAILED, os.path.basename(root.rstrip("/")), str(error))
            continue
        if package.id in registry.packages:
            report.add(
                codes.REGISTER_FAILED, package.id, f"{root}: the same package id is loaded twice"
            )
            continue
        registry.packages[package.id] = package
        _report_metadata_only(package, report)
        raw = configs.get(package.id, {})
        if not isinstance(raw, dict):
            report.add(codes.CONFIG_INVALID, package.id, "its configuration is not a JSON object")
            raw = {}
        _load_one(package, registry, raw, data_dir, workspace)
        _report_missing_hooks(package, registry, report)
    return registry


_CONFIG_LIMIT = 1024 * 1024


def _read_configs(files: list[tuple[str, str]], report: Report) -> dict[str, Any]:
    """Each ``--config-file ID=PATH``: the file holds package ID's configuration, one JSON
    object. The nanobot manifest declares no configuration keys, so the object is passed
    as it is."""
    configs: dict[str, Any] = {}
    for package, path in files:
        try:
            with open(path, "rb") as handle:
                raw = handle.read(_CONFIG_LIMIT + 1)
            if len(raw) > _CONFIG_LIMIT:
                raise ValueError(f"larger than {_CONFIG_LIMIT} bytes")
            configs[package] = json.loads(raw)
        except OSError as error:
            report.add(codes.CONFIG_INVALID, package, f"cannot read {path}: {error.strerror}")
        except (ValueError, RecursionError) as error:
            report.add(codes.CONFIG_INVALID, package, f"{path} is not JSON: {error}")
    return configs


def _report_metadata_only(package: PackageInfo, report: Report) -> None:
    for contribution in package.contributions:
        if contribution.kind not in EXECUTABLE_KINDS:
            reason = METADATA_ONLY.get(contribution.kind, "the gateway cannot run it")
            report.add(
                codes.METADATA_ONLY,
                package.id,
                f"{contribution.kind} {contribution.name!r} is metadata only: {reason}",
                contribution.name,
            )


def _load_one(
    package: PackageInfo, registry: Registry, config: dict[str, Any], data_dir: str, workspace: str
) -> None:
    namespace = PackageNamespace(package.id, package.root)
    namespace.install()
    api: ExtensionApi | None = None
    entry = f"{package.module}:{package.attribute}"
    try:
        api = ExtensionApi(
            package, registry, config=config, data_root=data_dir, workspace=workspace
        )
        module = importlib.import_module(namespace.qualify(package.module))
        register = getattr(module, package.attribute, None)
        if not callable(register):
            raise TypeError(f"{entry} is not a function")
        result = register(api)
    except (Exception, SystemExit) as error:
        reason = _describe(error, namespace.qualify(package.module), entry)
        _roll_back(package, registry, namespace, api, codes.REGISTER_FAILED, reason, error)
        return
    api.close()
    if result is not None:
        if hasattr(result, "close") and hasattr(result, "__await__"):
            result.close()  # an un-awaited coroutine would warn at exit
        reason = (
            f"register() returned {type(result).__name__}, not None "
            "(it must be a synchronous function that returns nothing)"
        )
        _roll_back(package, registry, namespace, api, codes.REGISTER_RETURNED_VALUE, reason)


def _describe(error: BaseException, qualified: str, entry: str) -> str:
    missing = error.name if isinstance(error, ModuleNotFoundError) else None
    if missing and (qualified == missing or qualified.startswith(missing + ".")):
        # The entry module itself is absent: it is looked up inside the package only.
        module = entry.partition(":")[0]
        return f"entry module {module!r} is not in the package"
    return f"{entry} failed: {type(error).__name__}: {error}"


def _roll_back(
    package: PackageInfo,
    registry: Registry,
    namespace: PackageNamespace,
    api: ExtensionApi | None,
    code: str,
    reason: str,
    error: BaseException | None = None,
) -> None:
    if api is not None:
        api.close()
    registry.remove_owner(package.id)
    namespace.unload()
    registry.report.add(code, package.id, f"{reason}; its registrations were rolled back")
    if error is not None:
        import traceback

        log("".join(traceback.format_exception(error)).rstrip())


def _report_missing_hooks(package: PackageInfo, registry: Registry, report: Report) -> None:
    registered = {r.name for r in registry.hooks.registrations if r.owner == package.id}
    for name in sorted(set(package.declared("hook")) - registered):
        report.add(
            codes.CONTRIBUTION_MISSING,
            package.id,
            f"declared hook {name!r} was never registered",
            name,
        )
