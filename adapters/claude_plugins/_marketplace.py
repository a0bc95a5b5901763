"""Claude Code marketplaces (``.claude-plugin/marketplace.json``): the plugins a folder
offers, and the folder of the one ``gateway install MARKETPLACE#PLUGIN`` names.

Per Claude Code's plugin marketplaces reference: ``plugins`` is a list of entries with a
kebab-case ``name`` and a ``source``; a string source is a path relative to the
marketplace root (``metadata.pluginRoot`` prefixes bare names); object sources (``github``,
``url``, ``npm``) name another place to fetch (``_marketplace_sources``). Reads files only; runs
nothing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Final

from adapters._files import Inspection, normalize_relative, safe_is_dir, safe_is_file
from adapters._marketplaces import choose
from adapters.claude_plugins import _codes as codes
from adapters.claude_plugins._marketplace_sources import remote_source
from gateway.base import Diagnostic
from gateway.model import OfferedSource

__all__ = ["MARKETPLACE", "is_marketplace", "offered_plugins", "select_plugin"]

MARKETPLACE: Final = ".claude-plugin/marketplace.json"
_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def is_marketplace(root: Path) -> bool:
    return safe_is_file(root / MARKETPLACE)


def offered_plugins(root: Path) -> list[str] | list[Diagnostic]:
    """The plugin names the marketplace at ``root`` offers, in its order; diagnostics when
    its marketplace.json is malformed."""
    inspection = Inspection(root)
    plugins = _plugins(inspection)
    if plugins is None:
        return inspection.diagnostics
    return [name for name, _ in plugins]


def select_plugin(root: Path, name: str | None) -> Path | OfferedSource | list[Diagnostic] | None:
    """The folder (inside ``root``) of the plugin ``name`` offers; None when ``root`` is
    no marketplace; diagnostics (coded) when the plugin cannot be had from it. ``name``
    None: the diagnostic lists what it offers."""
    if not is_marketplace(root):
        return None
    inspection = Inspection(root)
    plugins = _plugins(inspection)
    if plugins is None:
        return inspection.diagnostics
    entry = choose(
        plugins, name,
        required=lambda offered: codes.MARKETPLACE_PLUGIN_REQUIRED(
            f"a Claude Code marketplace offering {offered}; install one as MARKETPLACE#PLUGIN"
        ),
        unknown=lambda offered: codes.MARKETPLACE_PLUGIN_UNKNOWN(
            f"the marketplace offers no plugin {name!r}; it offers {offered}"
        ),
    )  # fmt: skip
    if isinstance(entry, list):
        return entry
    assert name is not None
    return _plugin_root(inspection, name, entry)


def _plugins(inspection: Inspection) -> list[tuple[str, dict[str, Any]]] | None:
    data = inspection.read_json_object(MARKETPLACE)
    if data is None:
        return None
    raw = data.get("plugins")
    if not isinstance(raw, list):
        inspection.add(codes.MARKETPLACE_INVALID(f"{MARKETPLACE}: `plugins` is not a list"))
        return None
    plugins: list[tuple[str, dict[str, Any]]] = []
    for index, item in enumerate(raw):
        where = f"{MARKETPLACE} plugins[{index}]"
        if not isinstance(item, dict):
            inspection.add(codes.MARKETPLACE_INVALID(f"{where}: not an object"))
            return None
        name = item.get("name")
        if not isinstance(name, str) or not _NAME.match(name):
            inspection.add(codes.MARKETPLACE_INVALID(f"{where}: `name` {name!r} is not kebab-case"))
            return None
        if "source" not in item:
            inspection.add(codes.MARKETPLACE_INVALID(f"{where} ({name}): no `source`"))
            return None
        plugins.append((name, item))
    return plugins


def _plugin_root(
    inspection: Inspection, name: str, entry: dict[str, Any]
) -> Path | OfferedSource | list[Diagnostic]:
    source = entry["source"]
    if isinstance(source, dict):
        return remote_source(name, source)
    if not isinstance(source, str) or not source.strip():
        return [codes.MARKETPLACE_INVALID(f"plugin {name!r}: `source` {source!r} is not a path")]
    raw = source
    if not raw.startswith(("./", "../")) and normalize_relative(raw) is not None:
        raw = f"{_plugin_root_prefix(inspection)}{raw}"
    rel = normalize_relative(raw)
    path = inspection.root / rel if rel is not None else None
    if path is None or not inspection.inside(path):
        return [
            codes.MARKETPLACE_INVALID(
                f"plugin {name!r}: source {source!r} is absolute or leaves the marketplace"
            )
        ]
    if not safe_is_dir(path):
        return [codes.MARKETPLACE_INVALID(f"plugin {name!r}: source {source!r} is no folder")]
    return path


def _plugin_root_prefix(inspection: Inspection) -> str:
    """``metadata.pluginRoot``: the folder bare plugin sources are under."""
    data = inspection.read_json_object(MARKETPLACE) or {}
    metadata = data.get("metadata")
    prefix = metadata.get("pluginRoot") if isinstance(metadata, dict) else None
    if not isinstance(prefix, str) or normalize_relative(prefix) is None:
        return ""
    return prefix.rstrip("/") + "/"
