"""Reading a Codex plugin strictly, by Codex's own reader and its published field guide
(openai/codex ``codex-rs/core-plugins/src/manifest.rs``, ``loader.rs``; openai/plugins'
``plugin-creator/references/plugin-json-spec.md``; black-box runs of ``@openai/codex@0.171.0``;
no JSON Schema is published for it):

- the manifest: a root ``plugin.json`` naming an agent-plugins.org ``$schema`` (read by the
  Agent Plugins reader, ``adapters.agent_plugins``, as Codex reads it first), else
  ``.codex-plugin/plugin.json``: ``name`` (the skills' namespace; the folder's name when
  empty), ``version``, ``description``, ``interface`` and the component paths ``skills``,
  ``mcpServers``, ``apps``, ``hooks`` — each ``./``-relative inside the plugin, else Codex
  warns and drops that field; defaults ``./skills``, ``./.mcp.json``, ``./.app.json``,
  ``./hooks/hooks.json``;
- ``.mcp.json``: ``{"mcpServers": {name: config}}`` (``_servers``); ``.app.json``: ChatGPT
  app connectors, named and not run; hooks: Claude Code's hook protocol, run by the plugin host;
- a folder holding only ``.agents/plugins/marketplace.json`` is a marketplace, said so with
  its plugins listed.
"""

from __future__ import annotations

import posixpath
from typing import Any, Final

from adapters import _codes as adapters_codes
from adapters._files import Inspection, normalize_relative, safe_is_dir, safe_is_file, type_name
from adapters._markdown import skill_contribution
from adapters.agent_plugins import is_agent_plugin, read_plugin
from adapters.codex import _codes as codes
from adapters.codex._reading import PluginReading
from adapters.codex._servers import read_apps, read_hooks, read_servers
from gateway.base import counted
from gateway.model import Contribution, folder_name

__all__ = ["MANIFEST", "MARKETPLACE", "PluginReading", "is_codex_plugin", "read_codex_plugin"]

MANIFEST: Final = ".codex-plugin/plugin.json"
MARKETPLACE: Final = ".agents/plugins/marketplace.json"
_FIELDS: Final = frozenset({
    "name", "version", "description", "author", "homepage", "repository", "license",
    "keywords", "skills", "hooks", "mcpServers", "apps", "interface", "$schema",
})  # fmt: skip
_DEFAULTS: Final = {"skills": "./skills", "mcpServers": "./.mcp.json", "apps": "./.app.json",
                    "hooks": "./hooks/hooks.json"}  # fmt: skip


def is_codex_plugin(inspection: Inspection) -> bool:
    root = inspection.root
    return safe_is_file(root / MANIFEST) or (
        safe_is_file(root / MARKETPLACE) and not safe_is_file(root / "plugin.json")
    )


def read_codex_plugin(inspection: Inspection) -> PluginReading:
    reading = PluginReading(name=folder_name(inspection.root))
    root = inspection.root
    if not safe_is_file(root / MANIFEST) and safe_is_file(root / MARKETPLACE):
        _marketplace(inspection)
        return reading
    read = inspection.read_json_object(MANIFEST, required=False)
    if is_agent_plugin(inspection):
        return _agent_plugin(inspection, reading, read or {})
    if not safe_is_file(root / MANIFEST):
        inspection.add(codes.CODEX_MANIFEST_INVALID(
            f"missing {MANIFEST} or a valid Agent Plugin manifest"
        ))  # fmt: skip
        return reading
    if read is None:
        return reading  # not JSON, or not an object: said by the reading
    overlay = read
    problems = _manifest_problems(overlay)
    for problem in problems:
        inspection.add(codes.CODEX_MANIFEST_INVALID(f"{MANIFEST}: {problem}"))
    if problems:
        return reading
    reading.manifest = overlay
    reading.name = overlay.get("name") or folder_name(root)
    reading.valid = True
    for key in overlay:
        if key not in _FIELDS:
            inspection.add(codes.CODEX_FIELD_IGNORED(
                f"{MANIFEST}: {key!r} is not a field of Codex's plugin manifest; ignored"
            ))  # fmt: skip
    paths = _component_paths(inspection, overlay)
    for directory in paths["skills"]:
        reading.contributions += _skills(inspection, directory, reading.name)
    mcp = overlay.get("mcpServers")
    read_servers(inspection, reading, mcp if isinstance(mcp, dict) else None, paths["mcpServers"])
    read_apps(inspection, reading, paths["apps"])
    read_hooks(inspection, reading, overlay.get("hooks"), paths["hooks"])
    return reading


def _agent_plugin(
    inspection: Inspection, reading: PluginReading, overlay: dict[str, Any]
) -> PluginReading:
    """A root Agent Plugin (Codex reads it first): its skills and stdio servers as the
    Agent Plugins reader reads them; ``.codex-plugin/plugin.json`` beside it adds Codex's
    ``interface`` and the ``.app.json`` and hooks defaults apply."""
    plugin = read_plugin(inspection)
    reading.agent_plugin = True
    if not plugin.valid:
        return reading
    reading.name, reading.valid = plugin.name, True
    reading.manifest = {**plugin.manifest, "interface": overlay.get("interface", {})}
    for skill in plugin.skills:
        skill.name = f"{plugin.name}:{skill.name}"
        reading.contributions.append(skill)
    for name, server in plugin.stdio.items():
        reading.stdio[name] = {**server, "placeholders": "agent-plugins"}
        reading.contributions.append(Contribution(
            kind="mcp_server", name=name, description=f"stdio MCP server: {server['command']}",
            detail={"transport": "stdio", "path": "mcp.json"},
        ))  # fmt: skip
    for name, remote in plugin.remote.items():
        reading.remote[name] = remote["type"]
        reading.contributions.append(Contribution(
            kind="mcp_server", name=name, description=f"{remote['type']} MCP server",
            detail={"transport": remote["type"], "path": "mcp.json"},
        ))  # fmt: skip
        inspection.add(codes.CODEX_REMOTE_SERVER(
            f"mcp.json: {remote['type']} server {name!r} is listed, not connected",
            contribution=name,
        ))  # fmt: skip
    read_apps(inspection, reading, [_DEFAULTS["apps"][2:]])
    read_hooks(inspection, reading, None, [_DEFAULTS["hooks"][2:]])
    return reading


def _manifest_problems(data: dict[str, Any]) -> list[str]:
    found = []
    name = data.get("name")
    if name is not None and not isinstance(name, str):
        found.append(f"name is {type_name(name)}, not a string")
    elif isinstance(name, str) and (
        "/" in name or ":" in name or any(ord(c) < 32 for c in name)
    ):  # fmt: skip
        found.append(f"name {name!r} cannot be a component namespace")
    version = data.get("version")
    if version is not None and not isinstance(version, str):
        found.append(f"invalid plugin version: expected string, found {type_name(version)}")
    elif isinstance(version, str) and version and not version.strip():
        found.append("invalid plugin version: must not be blank")
    for key, kind in (("description", str), ("interface", dict), ("keywords", list)):
        if key in data and not isinstance(data[key], kind):
            found.append(f"{key} is {type_name(data[key])}, not {kind.__name__}")
    return found


def _component_paths(inspection: Inspection, manifest: dict[str, Any]) -> dict[str, list[str]]:
    """Each component's paths inside the plugin (the default when the field is absent);
    a path Codex refuses is reported and its field dropped."""
    found: dict[str, list[str]] = {}
    for key, default in _DEFAULTS.items():
        raw = manifest.get(key, default)
        if key in ("mcpServers", "hooks") and isinstance(raw, dict):
            found[key] = []  # inline
            continue
        items = raw if isinstance(raw, list) and key in ("skills", "hooks") else [raw]
        found[key] = []
        for item in items:
            if key == "hooks" and isinstance(item, dict):
                continue  # an inline hooks object among paths
            rel = _path(item)
            if rel is None:
                inspection.add(codes.CODEX_FIELD_IGNORED(
                    f"{MANIFEST}: ignoring {key}: path must start with `./` relative to plugin "
                    f"root ({item!r})"
                ))  # fmt: skip
                continue
            if key == "skills" or key not in manifest or safe_is_file(inspection.root / rel):
                found[key].append(rel)
            else:
                inspection.add(
                    adapters_codes.ENTRY_NOT_FOUND(
                        f"{MANIFEST}: {key}: {item!r} does not exist in the plugin"
                    )
                )
    return found


def _path(raw: object) -> str | None:
    if not isinstance(raw, str) or not raw.startswith("./") or raw.rstrip("/") == ".":
        return None
    if ".." in raw.split("/"):
        return None
    return normalize_relative(raw[2:])


def _skills(inspection: Inspection, directory: str, plugin: str) -> list[Contribution]:
    if not safe_is_dir(inspection.root / directory):
        return []
    found = []
    # Codex finds a SKILL.md at any depth (openai/plugins' moody-s: skills/shared/citations).
    for skill_md, is_dir in inspection.walk(directory):
        if is_dir or posixpath.basename(skill_md) != "SKILL.md" or skill_md.count("/") < 2:
            continue
        before = len(inspection.diagnostics)
        skill = skill_contribution(inspection, skill_md)
        if skill is None or len(inspection.diagnostics) > before:
            inspection.add(adapters_codes.SKILL_INVALID(f"{skill_md}: skipped (see above)"))
            continue
        skill.name = f"{plugin}:{skill.name}"
        if not _implicit(inspection, posixpath.dirname(skill_md)):
            skill.detail["implicit"] = False
        found.append(skill)
    return found


def _implicit(inspection: Inspection, folder: str) -> bool:
    """``agents/openai.yaml``'s ``policy.allow_implicit_invocation``: false keeps the skill
    out of the list Codex shows its model (it is still invoked by name)."""
    rel = posixpath.join(folder, "agents", "openai.yaml")
    if not safe_is_file(inspection.root / rel):
        return True
    data = inspection.read_yaml(rel)
    policy = data.get("policy") if isinstance(data, dict) else None
    return not (isinstance(policy, dict) and policy.get("allow_implicit_invocation") is False)


def _marketplace(inspection: Inspection) -> None:
    data = inspection.read_json_object(MARKETPLACE)
    plugins = data.get("plugins") if data is not None else None
    if not isinstance(plugins, list):
        if data is not None:
            inspection.add(codes.CODEX_MARKETPLACE(f"{MARKETPLACE}: plugins is not a list"))
        return
    listed = []
    for item in plugins:
        if not isinstance(item, dict):
            continue
        source = item.get("source")
        where = source if isinstance(source, str) else (
            source.get("path") or source.get("url") or source.get("package")
            if isinstance(source, dict) else None
        )  # fmt: skip
        listed.append(f"{item.get('name')!s} ({where!s})")
    inspection.add(codes.CODEX_MARKETPLACE(
        f"{MARKETPLACE}: a marketplace of {counted(len(listed), 'plugin')}, not one plugin: "
        + "; ".join(listed),
        hint="gateway install DIR#PLUGIN",
    ))  # fmt: skip
