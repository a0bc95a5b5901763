"""OpenClaw plugins: ``openclaw.plugin.json`` plus ``package.json`` ``openclaw`` entries.

The manifest gives identity and declared contracts (tools, channels, providers, skills,
command aliases, CLI commands); package.json says which modules to load. Entry order
follows OpenClaw's loader: a declared ``runtimeExtensions`` artifact wins (no fallback to
source), else a built JS peer under ``dist/`` or beside the source, else the source
itself; without ``openclaw.extensions``, the first ``index.*``.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Any, Final

from adapters import _codes as codes
from adapters._fields import Fields
from adapters._files import Inspection, normalize_relative, safe_exists, safe_is_file
from adapters._npm import PACKAGE_JSON, has_key, npm_dependencies, read_package
from adapters.openclaw._manifest import PLUGIN_JSON, read_plugin_manifest
from gateway.catalog import CatalogEntry, DiscoveredLaunch, LaunchRefusal

__all__ = ["OpenClawAdapter"]

DEFAULT_ENTRIES: Final = ("index.ts", "index.js", "index.mjs", "index.cjs")
_JS_PEER: Final = {".ts": ".js", ".tsx": ".js", ".mts": ".mjs", ".cts": ".cjs"}


class OpenClawAdapter:
    ecosystem = "openclaw"

    def detect(self, root: Path) -> bool:
        return safe_is_file(root / PLUGIN_JSON) or has_key(root, "openclaw")

    def inspect(self, root: Path) -> CatalogEntry:
        inspection = Inspection(root)
        entry = CatalogEntry.named_after(root, self.ecosystem)
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
        if entry.entries:
            entry.runtime = "node-sidecar"
            inspection.add(
                codes.OPENCLAW_RUNTIME_ONLY(
                    f"{PLUGIN_JSON}: commands, hooks, services and routes are registered at "
                    "runtime; only declared contracts are listed"
                )
            )
        entry.diagnostics = inspection.finish(entry.id)
        return entry

    def plan_launch(self, entry: CatalogEntry, home: Path) -> LaunchRefusal:
        return LaunchRefusal("runtime not available yet: the Node sidecar for OpenClaw packages")

    def discover(
        self, workspace: Path, user_home: Path, trusted: bool, home: Path
    ) -> list[DiscoveredLaunch]:
        return []  # no OpenClaw runtime yet, so nothing of its discovery directories runs


def _entries(inspection: Inspection, block: object, metadata: dict[str, Any]) -> list[str]:
    if block is None:
        return _default_entry(inspection)
    where = f"{PACKAGE_JSON} openclaw"
    if not isinstance(block, dict):
        inspection.add(codes.OPENCLAW_PACKAGE_INVALID(f"{where} must be an object"))
        return []
    fields = Fields(inspection, codes.OPENCLAW_PACKAGE_INVALID, where, block)
    metadata.update(_setup_entries(fields))
    compat = block.get("compat")
    if isinstance(compat, dict) and isinstance(compat.get("pluginApi"), str):
        metadata["plugin_api"] = compat["pluginApi"]
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


def _setup_entries(fields: Fields) -> dict[str, Any]:
    setup = fields.string("setupEntry")
    runtime_setup = fields.string("runtimeSetupEntry")
    if runtime_setup is not None and setup is None:
        fields.problem("runtimeSetupEntry", "requires setupEntry", show=False)
    return {"setup_entry": setup, "runtime_setup_entry": runtime_setup}
