"""Reading a nanobot package: the strict ``nanobot.extension.json`` (``_manifest``) into a
catalog entry, or a published nanobot channel plugin (entry points, no manifest:
``_published``), recognised to say what it is. Reads files only."""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Final

from adapters import _codes as adapters_codes
from adapters._files import Inspection, safe_is_file
from adapters.nanobot._manifest import MANIFEST_FILE, NanobotManifest, load_manifest
from adapters.nanobot._published import inspect_channel_plugin, is_channel_plugin
from gateway.model import CatalogEntry, Contribution, Dependency, Permission

__all__ = ["ECOSYSTEM", "RUNTIME_OF", "inspect_nanobot", "is_nanobot_package"]

ECOSYSTEM: Final = "nanobot"
RUNTIME_OF: Final = {
    "python": "python-sidecar",
    "pi": "node-sidecar",
    "openclaw": "node-sidecar",
    "declarative": "declarative",
}


def is_nanobot_package(root: Path) -> bool:
    # A published plugin (entry points, no manifest) is recognised to say what it is.
    return safe_is_file(root / MANIFEST_FILE) or is_channel_plugin(root)


def inspect_nanobot(root: Path) -> CatalogEntry:
    inspection = Inspection(root)
    entry = CatalogEntry.named_after(root, ECOSYSTEM)
    if not safe_is_file(root / MANIFEST_FILE) and is_channel_plugin(root):
        inspect_channel_plugin(root, entry)
        return entry
    data = inspection.read_json_object(MANIFEST_FILE)
    if data is not None:
        manifest, diagnostics = load_manifest(data)
        inspection.diagnostics.extend(diagnostics)
        if manifest is not None:
            _fill(inspection, entry, manifest)
        else:
            # Keep what identity there is, so the diagnostics name the package.
            for key in ("id", "name", "version"):
                if isinstance(data.get(key), str) and data[key].strip():
                    setattr(entry, key, data[key])
    entry.diagnostics = inspection.finish(entry.id)
    return entry


def _fill(inspection: Inspection, entry: CatalogEntry, manifest: NanobotManifest) -> None:
    entry.id, entry.name, entry.version = manifest.id, manifest.name, manifest.version
    entry.description = manifest.description
    entry.runtime = RUNTIME_OF[manifest.runtime]
    entry.enforce_declared = True  # the manifest is the complete list of contributions
    entry.contributions = [
        Contribution(
            kind=c.kind,
            name=c.name,
            description=c.description,
            target=c.target,
            replaces=list(c.replaces),
        )
        for c in manifest.contributions
    ]
    entry.dependencies = [
        Dependency(kind=d.kind, name=d.name, specifier=d.specifier, optional=d.optional)
        for d in manifest.dependencies
    ]
    entry.permissions = [Permission(p.name, p.reason) for p in manifest.permissions]
    # An environment dependency is a variable the extension reads: the process needs it
    # passed through, like a declared secret (the document says keys never go in here).
    entry.secrets = [d.name for d in manifest.dependencies if d.kind == "environment"]
    entry.metadata = {
        "nanobot_runtime": manifest.runtime,
        "api_version": manifest.api_version,
        "homepage": manifest.homepage,
        "license": manifest.license,
    }
    if manifest.runtime == "python":
        entry.metadata["python_entry"] = manifest.activation_entries[0]
        entry.entries = _python_module_file(inspection, manifest.activation_entries[0])
    else:
        entry.entries = [
            rel
            for index, raw in enumerate(manifest.activation_entries)
            if (rel := inspection.resolve(raw, label=f"{MANIFEST_FILE} entries[{index}]"))
        ]


def _python_module_file(inspection: Inspection, spec: str) -> list[str]:
    """``pkg.mod:register`` -> ``pkg/mod.py`` or ``pkg/mod/__init__.py``, if shipped."""
    module_path = spec.partition(":")[0].replace(".", "/")
    for candidate in (f"{module_path}.py", posixpath.join(module_path, "__init__.py")):
        if safe_is_file(inspection.root / candidate):
            rel = inspection.resolve(candidate, label=f"{MANIFEST_FILE} entry")
            return [rel] if rel else []
    inspection.add(
        adapters_codes.ENTRY_NOT_FOUND(
            f"{MANIFEST_FILE}: entry module {spec!r} is not in the package"
        )
    )
    return []
