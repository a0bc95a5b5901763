"""Reading a Pi package: ``package.json`` with a ``pi`` key, or Pi's convention directories.

Statically a Pi package declares only files: extension modules (code entry points),
skills, prompt templates and themes. Its tools, commands and event handlers exist once
the extension factory runs, so they are not in the catalog (an info diagnostic says so).
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Final

from adapters._fields import Fields
from adapters._files import Inspection, safe_is_dir, type_name
from adapters._markdown import prompt_contribution, skill_contribution
from adapters._npm import PACKAGE_JSON, npm_dependencies, read_package
from adapters.pi import _codes as codes
from adapters.pi._host_versions import check_host_ranges
from adapters.pi._resources import RESOURCE_TYPES, Resources
from gateway.model import CatalogEntry, Contribution

__all__ = ["ECOSYSTEM", "PI_HOST_PACKAGES", "PI_KEYS", "inspect_package", "is_pi_package"]

ECOSYSTEM: Final = "pi"

# Packages pi maps onto its own copies (pi-upstream.md §1.1, §1.3): a package lists them
# as peerDependencies "*" and the sidecar aliases them; bundling them breaks sharing.
PI_HOST_PACKAGES: Final = frozenset(
    {
        *(
            f"{scope}/{name}"
            for scope in ("@earendil-works", "@mariozechner")
            for name in ("pi-ai", "pi-agent-core", "pi-coding-agent", "pi-tui")
        ),
        "typebox",
        "@sinclair/typebox",
    }
)
PI_KEYS: Final = (*RESOURCE_TYPES, "image", "video", "changelogPath")


def is_pi_package(root: Path) -> bool:
    """A ``pi`` key, the ``pi-package`` keyword, or Pi's conventions unclaimed by another
    ecosystem."""
    data = Inspection(root).read_json_object(PACKAGE_JSON, required=False)
    if data is None:
        return False
    keywords = data.get("keywords")
    listed = isinstance(keywords, list) and "pi-package" in keywords
    # Convention-only packages (no `pi` key) are claimed only when no other
    # ecosystem's key is there: a Nu package may have an extensions/ folder too.
    claimed = any(key in data for key in ("nu", "openclaw"))
    return (
        "pi" in data
        or listed
        or (not claimed and (safe_is_dir(root / "extensions") or _peer_of_pi(data)))
    )


def inspect_package(root: Path) -> CatalogEntry:
    """What Pi reads from ``root``, never running it."""
    inspection = Inspection(root)
    entry = CatalogEntry.named_after(root, ECOSYSTEM)
    # pi loads a local directory without package.json through its conventions.
    package = read_package(inspection, required=False)
    raw = package.raw if package is not None else {}
    if package is not None:
        entry.id, entry.name = package.id, package.name
        entry.version, entry.description = package.version, package.description
        entry.dependencies = npm_dependencies(inspection, raw, host_packages=PI_HOST_PACKAGES)
        for dep in entry.dependencies:
            if dep.name in PI_HOST_PACKAGES and not dep.provided_by_host:
                inspection.add(
                    codes.PI_HOST_PACKAGE_BUNDLED(
                        f"{PACKAGE_JSON}: {dep.name}, a Pi host package, is among its "
                        "dependencies: the host's copy is loaded in its place, as Pi does "
                        "(for its author: peerDependencies)"
                    )
                )
        check_host_ranges(inspection, raw)
    files = _resources(inspection, raw)
    entry.entries = files["extensions"]
    entry.contributions = (
        [c for rel in files["skills"] if (c := skill_contribution(inspection, rel))]
        + [c for rel in files["prompts"] if (c := prompt_contribution(inspection, rel))]
        + [_theme(rel) for rel in files["themes"]]
    )
    if entry.entries:
        entry.runtime = "node-sidecar"
        count = len(entry.entries)
        modules = "1 extension module registers" if count == 1 else (
            f"{count} extension modules register")  # fmt: skip
        inspection.add(
            codes.PI_RUNTIME_ONLY(
                f"{PACKAGE_JSON}: {modules} tools, commands and event handlers at runtime"
            )
        )
    elif not entry.contributions:
        inspection.add(
            codes.PI_NO_RESOURCES(f"{root.name}: no extensions, skills, prompts or themes")
        )
    entry.diagnostics = inspection.finish(entry.id)
    return entry


def _resources(inspection: Inspection, raw: dict[str, object]) -> dict[str, list[str]]:
    resources = Resources(inspection)
    found: dict[str, list[str]] = {kind: [] for kind in RESOURCE_TYPES}
    if "pi" not in raw:
        for kind in RESOURCE_TYPES:
            found[kind] = resources.from_convention(kind) or []
        main = raw.get("main")
        if not found["extensions"] and _peer_of_pi(raw) and isinstance(main, str):
            # No manifest and no extensions/ folder, but built against Pi (e.g.
            # @agentuity/pi): pi loads such a package by its main file.
            found["extensions"] = resources.from_manifest("extensions", [main])
        return found
    manifest = raw["pi"]
    if not isinstance(manifest, dict):
        # pi reads a non-object `pi` as a manifest without keys: nothing loads.
        inspection.add(
            codes.PI_MANIFEST_INVALID(
                f"{PACKAGE_JSON}: pi must be an object (got {type_name(manifest)})"
            )
        )
        return found
    fields = Fields(inspection, codes.PI_MANIFEST_INVALID, f"{PACKAGE_JSON} pi", manifest)
    for kind in RESOURCE_TYPES:
        # With a manifest, an absent key means none of that kind (no convention dir).
        if kind in manifest:
            found[kind] = resources.from_manifest(kind, fields.string_list(kind))
    for key in ("image", "video", "changelogPath"):
        fields.string(key, allow_empty=True)
    fields.unknown(PI_KEYS, codes.PI_MANIFEST_UNKNOWN_KEY)
    return found


def _peer_of_pi(data: dict[str, object]) -> bool:
    """Declares a Pi host package (pi-coding-agent, either scope) as a peer dependency."""
    peers = data.get("peerDependencies")
    return isinstance(peers, dict) and any(
        name.endswith("/pi-coding-agent") and name in PI_HOST_PACKAGES for name in peers
    )


def _theme(rel: str) -> Contribution:
    name = posixpath.splitext(posixpath.basename(rel))[0]
    return Contribution(kind="theme", name=name, detail={"path": rel})
