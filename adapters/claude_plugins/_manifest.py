"""``.claude-plugin/plugin.json`` by Claude Code's plugin reference: ``name`` required and
kebab-case; metadata fields of the right type; component paths (``commands``, ``agents``,
``skills``, ``hooks``, ``mcpServers``) relative to the plugin root, which supplement the
default folders; ``userConfig`` kept for ``_user_config``; ``dependencies`` read by
``_dependencies``. Unknown fields are ignored, as Claude Code does, and named
(``claude.manifest_field_unknown``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final

from adapters._files import Inspection, type_name
from adapters.claude_plugins import _codes as codes
from adapters.claude_plugins._dependencies import PluginDependency, read_dependencies

__all__ = ["MANIFEST", "Manifest", "read_manifest"]

MANIFEST: Final = ".claude-plugin/plugin.json"
_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_TEXT_FIELDS: Final = ("version", "description", "homepage", "repository", "license")
_PATH_FIELDS: Final = ("commands", "agents", "skills")
_INLINE_FIELDS: Final = ("hooks", "mcpServers")
_UNSUPPORTED_FIELDS: Final = ("outputStyles", "lspServers", "statusLine", "monitors", "channels")
_OTHER_FIELDS: Final = ("author", "keywords", "userConfig", "dependencies", "$schema")
KNOWN_FIELDS: Final = frozenset(
    ("name", *_TEXT_FIELDS, *_PATH_FIELDS, *_INLINE_FIELDS, *_UNSUPPORTED_FIELDS, *_OTHER_FIELDS)
)


@dataclass(slots=True)
class Manifest:
    name: str
    version: str = ""
    description: str = ""
    license: str = ""
    homepage: str = ""
    paths: dict[str, list[str]] = field(default_factory=dict)
    """Extra ``commands``/``agents``/``skills`` paths (files or folders), checked."""
    hooks: list[Any] = field(default_factory=list)
    """Hook sources beside hooks/hooks.json: relative paths, or inline hooks objects."""
    mcp: list[Any] = field(default_factory=list)
    """MCP server sources beside .mcp.json: relative paths, or inline server objects."""
    user_config: Any = None
    """``userConfig`` as written (``_user_config`` reads it)."""
    dependencies: list[PluginDependency] = field(default_factory=list)
    """``dependencies``: the plugins it needs (``_dependencies``), the valid entries."""


def read_manifest(inspection: Inspection, fallback_name: str) -> Manifest:
    """The manifest, or one named after the folder when there is none (Claude Code loads a
    plugin without a manifest from its default layout)."""
    data = inspection.read_json_object(MANIFEST, required=False)
    if data is None:
        return Manifest(fallback_name)
    invalid = codes.CLAUDE_MANIFEST_INVALID
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        inspection.add(invalid(f"{MANIFEST}: `name` is required"))
        name = fallback_name
    elif not _NAME.match(name):
        inspection.add(invalid(f"{MANIFEST}: name {name!r} is not kebab-case (a-z, 0-9, -)"))
    manifest = Manifest(name)
    for key in _TEXT_FIELDS:
        value = data.get(key)
        if value is None:
            continue
        if isinstance(value, dict) and key == "repository" and isinstance(value.get("url"), str):
            value = value["url"]
        if not isinstance(value, str):
            inspection.add(invalid(f"{MANIFEST}: `{key}` is {type_name(value)}, not text"))
            continue
        if key != "repository":
            setattr(manifest, key, value)
    author = data.get("author")
    if author is not None and not (
        isinstance(author, dict) and isinstance(author.get("name"), str)
    ):
        inspection.add(invalid(f"{MANIFEST}: `author` is not an object with a `name`"))
    keywords = data.get("keywords")
    if keywords is not None and not (
        isinstance(keywords, list) and all(isinstance(k, str) for k in keywords)
    ):
        inspection.add(invalid(f"{MANIFEST}: `keywords` is not a list of strings"))
    for key in _PATH_FIELDS:
        manifest.paths[key] = _paths(inspection, data, key)
    manifest.hooks = _sources(inspection, data, "hooks")
    manifest.mcp = _sources(inspection, data, "mcpServers")
    manifest.user_config = data.get("userConfig")
    manifest.dependencies = read_dependencies(inspection, data.get("dependencies"), name)
    for key in _UNSUPPORTED_FIELDS:
        if key in data:
            inspection.add(
                codes.CLAUDE_COMPONENT_UNSUPPORTED(
                    f"{MANIFEST}: `{key}` is listed, never run: a headless host has no {key}"
                )
            )
    for key in data:
        if key not in KNOWN_FIELDS:
            inspection.add(
                codes.CLAUDE_MANIFEST_FIELD_UNKNOWN(f"{MANIFEST}: unknown field {key!r} ignored")
            )
    return manifest


def _paths(inspection: Inspection, data: dict[str, Any], key: str) -> list[str]:
    raw = data.get(key)
    if raw is None:
        return []
    items = [raw] if isinstance(raw, str) else raw
    if not isinstance(items, list):
        inspection.add(
            codes.CLAUDE_MANIFEST_INVALID(f"{MANIFEST}: `{key}` is not a path or list of paths")
        )
        return []
    found = []
    for index, item in enumerate(items):
        rel = inspection.resolve(item, label=f"{MANIFEST} {key}[{index}]")
        if rel is not None:
            found.append(rel)
    return found


def _sources(inspection: Inspection, data: dict[str, Any], key: str) -> list[Any]:
    """Paths (checked, relative) and inline objects, in order."""
    raw = data.get(key)
    if raw is None:
        return []
    items = raw if isinstance(raw, list) else [raw]
    found: list[Any] = []
    for index, item in enumerate(items):
        if isinstance(item, dict):
            found.append(item)
        elif isinstance(item, str):
            rel = inspection.resolve(item, label=f"{MANIFEST} {key}[{index}]")
            if rel is not None:
                found.append(rel)
        else:
            inspection.add(
                codes.CLAUDE_MANIFEST_INVALID(
                    f"{MANIFEST}: `{key}` entry {index} is {type_name(item)}, not a path or object"
                )
            )
    return found
