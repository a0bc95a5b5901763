"""Reading an OpenClaw plugin: ``openclaw.plugin.json`` plus ``package.json`` ``openclaw`` entries.

The manifest gives identity and declared contracts (tools, channels, providers, skills,
command aliases, CLI commands); package.json says which modules to load. Entry order
follows OpenClaw's loader: a declared ``runtimeExtensions`` artifact wins (no fallback to
source), else a built JS peer under ``dist/`` or beside the source, else the source
itself; without ``openclaw.extensions``, the first ``index.*``. ``compat.pluginApi`` and
``install.minHostVersion`` are checked against the OpenClaw the sidecar emulates
(``HOST_VERSION``); ``install`` and ``channel`` are kept as metadata.

Every plugin asks for the optional ``conversation_access`` permission: OpenClaw's
``plugins.entries.<id>.hooks.allowConversationAccess``, without which its conversation
hooks (``before_prompt_build``, ``agent_end``, ``llm_*``, …) do not run; the rest of the
plugin does.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Any, Final

from adapters._fields import Fields
from adapters._files import Inspection, jsonable, normalize_relative, safe_exists, safe_is_file
from adapters._npm import PACKAGE_JSON, has_key, npm_dependencies, read_package
from adapters.openclaw import _codes as codes
from adapters.openclaw._lines import NEWER, declared_ranges, floor_range, loader_for, rules_for
from adapters.openclaw._manifest import PLUGIN_JSON, read_plugin_manifest
from adapters.openclaw._semver import HOST_VERSION, satisfies
from gateway.model import (
    CatalogEntry,
    Contribution,
    Permission,
)

__all__ = ["CONVERSATION_ACCESS", "DEFAULT_ENTRIES", "ECOSYSTEM", "inspect_plugin", "is_plugin"]

ECOSYSTEM: Final = "openclaw"

CONVERSATION_ACCESS: Final = "conversation_access"
_CONVERSATION_REASON: Final = (
    "let its conversation hooks (before_prompt_build, agent_end, llm_input, …) read and shape "
    "prompts and messages, as OpenClaw's hooks.allowConversationAccess; without it the rest "
    "of the plugin still runs"
)
_INSTALL_STRINGS: Final = (
    "npmSpec", "clawhubSpec", "localPath", "defaultChoice", "minHostVersion", "expectedIntegrity",
)  # fmt: skip

DEFAULT_ENTRIES: Final = ("index.ts", "index.js", "index.mjs", "index.cjs")
_JS_PEER: Final = {".ts": ".js", ".tsx": ".js", ".mts": ".mjs", ".cts": ".cjs"}


def is_plugin(root: Path) -> bool:
    return safe_is_file(root / PLUGIN_JSON) or has_key(root, "openclaw")


def inspect_plugin(root: Path) -> CatalogEntry:
    """What ``openclaw.plugin.json`` and ``package.json`` say, never running the plugin."""
    inspection = Inspection(root)
    entry = CatalogEntry.named_after(root, ECOSYSTEM)
    package = read_package(inspection, required=False)
    block = package.raw.get("openclaw") if package is not None else None
    if not safe_exists(root / PLUGIN_JSON):
        what = f"{PACKAGE_JSON} declares openclaw but " if block is not None else ""
        inspection.add(codes.OPENCLAW_MANIFEST_MISSING(f"{what}{PLUGIN_JSON} is missing"))
        manifest = None
    else:
        manifest = read_plugin_manifest(inspection)
    if manifest is not None:
        entry.id = manifest.id or entry.id
        entry.contributions = manifest.contributions
        entry.config_keys = manifest.config_keys
        entry.secrets = manifest.secrets
        entry.metadata.update(manifest.metadata)
    if package is not None:
        # The npm name (with scope) is the package identity; a nameless package.json
        # falls back to the plugin id rather than the folder name.
        named = isinstance(package.raw.get("name"), str) and package.raw["name"].strip()
        entry.id = package.id if named or manifest is None or not manifest.id else manifest.id
        entry.version = package.version
        entry.description = package.description
        entry.dependencies = npm_dependencies(
            inspection, package.raw, host_packages=frozenset({"openclaw"})
        )
    if manifest is not None:
        entry.name = manifest.name or (package.name if package else entry.id)
        entry.version = entry.version or manifest.version or ""
        entry.description = manifest.description or entry.description
    else:
        entry.name = package.name if package else entry.id
    entry.entries = _entries(inspection, block, entry.metadata)
    peers = package.raw.get("peerDependencies") if package is not None else None
    if isinstance(peers, dict) and isinstance(peers.get("openclaw"), str):
        entry.metadata["openclaw_peer"] = peers["openclaw"]
    _host_rules(inspection, entry.metadata)
    channel = entry.metadata.get("channel")
    if isinstance(channel, dict) and channel.get("id") not in names(entry, "channel"):
        entry.contributions.append(Contribution("channel", channel["id"]))
    if entry.entries:
        entry.runtime = "node-sidecar"
        entry.permissions.append(
            Permission(CONVERSATION_ACCESS, _CONVERSATION_REASON, optional=True)
        )
        inspection.add(
            codes.OPENCLAW_RUNTIME_ONLY(
                f"{PLUGIN_JSON}: commands, hooks, services and routes are registered at "
                "runtime; only declared contracts are listed"
            )
        )
    entry.diagnostics = inspection.finish(entry.id)
    return entry


def _entries(inspection: Inspection, block: object, metadata: dict[str, Any]) -> list[str]:
    if block is None:
        return _default_entry(inspection)
    where = f"{PACKAGE_JSON} openclaw"
    if not isinstance(block, dict):
        inspection.add(codes.OPENCLAW_PACKAGE_INVALID(f"{where} must be an object"))
        return []
    fields = Fields(inspection, codes.OPENCLAW_PACKAGE_INVALID, where, block)
    metadata.update(_setup_entries(fields))
    soft = Fields(inspection, codes.OPENCLAW_VALUE_DROPPED, where, block)
    compat = soft.mapping("compat") or {}
    plugin_api = compat.get("pluginApi")
    if isinstance(plugin_api, str):
        metadata["plugin_api"] = plugin_api
        _check_host_version(inspection, f"{where}.compat.pluginApi", plugin_api)
    min_gateway = compat.get("minGatewayVersion")
    if isinstance(min_gateway, str):
        metadata["min_gateway_version"] = min_gateway
        _check_host_version(
            inspection, f"{where}.compat.minGatewayVersion", floor_range(min_gateway)
        )
    metadata["install"] = _install(inspection, soft)
    metadata["channel"] = _channel(soft)
    if "extensions" not in block:
        return _default_entry(inspection)
    sources = fields.string_list("extensions")
    built = fields.string_list("runtimeExtensions") if "runtimeExtensions" in block else None
    if built is not None and len(built) != len(sources):
        fields.problem(
            "runtimeExtensions",
            f"must pair with extensions ({len(built)} vs {len(sources)})",
            show=False,
        )
        built = None
    entries: list[str] = []
    for index, source in enumerate(sources):
        if built is not None:
            rel = inspection.resolve(built[index], label=f"{where}.runtimeExtensions[{index}]")
        else:
            rel = _source_or_peer(inspection, source, f"{where}.extensions[{index}]")
        if rel is not None and rel not in entries:
            entries.append(rel)
    return entries


def _source_or_peer(inspection: Inspection, source: str, label: str) -> str | None:
    """A built JS peer (dist/, dist/src/, beside the source) if shipped, else the source."""
    rel = normalize_relative(source)
    if rel is None:
        return inspection.resolve(source, label=label)  # reports the escape
    stem, suffix = posixpath.splitext(rel)
    peer = _JS_PEER.get(suffix)
    candidates = [f"dist/{stem}{peer}", f"dist/src/{stem}{peer}", f"{stem}{peer}"] if peer else []
    for candidate in candidates:
        if safe_is_file(inspection.root / candidate):
            return inspection.resolve(candidate, label=label)
    return inspection.resolve(source, label=label)


def _default_entry(inspection: Inspection) -> list[str]:
    for name in DEFAULT_ENTRIES:
        if safe_is_file(inspection.root / name):
            rel = inspection.resolve(name, label="default entry")
            return [rel] if rel else []
    inspection.add(
        codes.OPENCLAW_NO_ENTRY(
            f"{PACKAGE_JSON}: no openclaw.extensions and no {', '.join(DEFAULT_ENTRIES)}"
        )
    )
    return []


def names(entry: CatalogEntry, kind: str) -> list[str]:
    return [c.name for c in entry.contributions if c.kind == kind]


def _check_host_version(inspection: Inspection, where: str, spec: str) -> None:
    """OpenClaw skips a plugin whose range the host does not satisfy; the gateway loads it
    (the lenient behaviour) and says so."""
    ok = satisfies(HOST_VERSION, spec)
    if ok:
        return
    why = "cannot be read as a semver range" if ok is None else "is not satisfied"
    inspection.add(
        codes.OPENCLAW_HOST_VERSION(
            f"{where} {spec!r} {why} by the emulated OpenClaw {HOST_VERSION}; OpenClaw would "
            "skip the plugin, the gateway loads it and reports what fails"
        )
    )


def _host_rules(inspection: Inspection, metadata: dict[str, Any]) -> None:
    """Which OpenClaw's rules the gateway applies: the newer hosts' for a plugin that
    declares OpenClaw >= 2026.10, else today's; and the trusted contracts it cannot honour."""
    metadata["host_rules"] = rules_for(metadata)
    metadata["loader"] = loader_for(metadata)
    if metadata["loader"] != "native":
        declared = ", ".join(f"{where} {spec!r}" for where, spec in declared_ranges(metadata))
        how = {
            "jiti": "OpenClaw 2026.3-2026.4 does: jiti's transform",
            "native-jiti": "OpenClaw 2026.5-2026.7 does: native require, jiti on any error",
        }[metadata["loader"]]
        inspection.add(codes.OPENCLAW_HOST_LOADER(f"{declared}: its entry is loaded as {how}"))
    if metadata["host_rules"] == NEWER:
        declared = ", ".join(f"{where} {spec!r}" for where, spec in declared_ranges(metadata))
        inspection.add(
            codes.OPENCLAW_HOST_RULES(
                f"{declared}: built for OpenClaw >= {NEWER}; the gateway applies those hosts' "
                "rules (a tool outside contracts.tools is refused)"
            )
        )
    trusted = [
        key
        for key in ("agentToolResultMiddleware", "trustedToolPolicies")
        if metadata.get("trusted_contracts", {}).get(key)
    ]
    for key in trusted:
        names = ", ".join(metadata["trusted_contracts"][key])
        inspection.add(
            codes.OPENCLAW_TRUSTED_CONTRACT(
                f"{PLUGIN_JSON} contracts.{key} ({names}): a trusted contract; the gateway "
                "runs no tool-result middleware and no trusted tool policy"
            )
        )


def _install(inspection: Inspection, soft: Fields) -> dict[str, Any] | None:
    install = soft.mapping("install")
    if install is None:
        return None
    nested = Fields(inspection, soft.code, f"{soft.where}.install", install)
    kept: dict[str, Any] = {}
    for key in _INSTALL_STRINGS:
        value = nested.string(key)
        if value is not None:
            kept[key] = value
    if "requiredPlatformPackages" in install:
        kept["requiredPlatformPackages"] = nested.string_list("requiredPlatformPackages")
    if isinstance(install.get("allowInvalidConfigRecovery"), bool):
        kept["allowInvalidConfigRecovery"] = install["allowInvalidConfigRecovery"]
    if "minHostVersion" in kept:
        _check_host_version(
            inspection, f"{soft.where}.install.minHostVersion", kept["minHostVersion"]
        )
    return kept


def _channel(soft: Fields) -> dict[str, Any] | None:
    """The channel catalog entry (a channel plugin's label, docs, setup fields, the env
    that marks it configured): metadata only, a headless gateway runs no channels."""
    channel = soft.mapping("channel")
    if channel is None:
        return None
    nested = Fields(soft.inspection, soft.code, f"{soft.where}.channel", channel)
    if nested.string("id", required=True) is None:
        return None
    kept: dict[str, Any] = jsonable(channel, depth=8, budget=2_000)
    return kept


def _setup_entries(fields: Fields) -> dict[str, Any]:
    setup = fields.string("setupEntry")
    runtime_setup = fields.string("runtimeSetupEntry")
    if runtime_setup is not None and setup is None:
        fields.problem("runtimeSetupEntry", "requires setupEntry", show=False)
    return {"setup_entry": setup, "runtime_setup_entry": runtime_setup}
