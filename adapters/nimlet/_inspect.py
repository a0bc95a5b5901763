"""Reading a nimlet package: an ``extension.json`` extension, ``tool.json`` tools, SKILL.md
skills and ``prompts/*.md`` templates, the folders nimlet's discovery roots would hold (an
extension folder, a tool folder, a skill folder, or a bundle with ``tools/``, ``skills/``
and ``prompts/``). An extension's tools, commands and hooks are not in its manifest: they
arrive at runtime in ``register``, which an info diagnostic says. Reads files only."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

from adapters._files import Inspection, safe_exists, safe_is_file
from adapters._markdown import prompt_contribution, skill_contribution
from adapters.nimlet import _codes as codes
from adapters.nimlet._manifest import check_extension, check_tool, command_entries
from gateway.model import CatalogEntry, Contribution, Dependency

__all__ = ["ECOSYSTEM", "inspect_nimlet", "is_nimlet_package"]

ECOSYSTEM: Final = "nimlet"
EXTENSION_JSON: Final = "extension.json"
TOOL_JSON: Final = "tool.json"
SKILL_MD: Final = "SKILL.md"
PACKAGE_JSON: Final = "package.json"


def is_nimlet_package(root: Path) -> bool:
    return (
        safe_exists(root / EXTENSION_JSON)
        or safe_is_file(root / TOOL_JSON)
        or safe_is_file(root / SKILL_MD)
        or bool(_subfolder_files(root, "tools", TOOL_JSON))
        or bool(_subfolder_files(root, "skills", SKILL_MD))
        or bool(_prompt_files(root))
    )


def inspect_nimlet(root: Path) -> CatalogEntry:
    inspection = Inspection(root)
    entry = CatalogEntry.named_after(root, ECOSYSTEM)
    has_extension = safe_exists(root / EXTENSION_JSON)
    if has_extension or not is_nimlet_package(root):
        # Without any nimlet file the extension manifest is what is missing.
        _read_extension(inspection, entry)
    tools = _read_tools(inspection)
    skills = _read_skills(inspection)
    prompts = [
        contribution
        for rel in _prompt_files(root)
        if (contribution := prompt_contribution(inspection, rel)) is not None
    ]
    entry.contributions.extend(tools + skills + prompts)
    if not has_extension:
        _name_from_single_item(inspection, entry, tools, skills)
        entry.runtime = "nimlet-tool" if tools else "declarative"
        for tool in tools:
            entry.entries.extend(e for e in tool.detail["entries"] if e not in entry.entries)
    entry.diagnostics = inspection.finish(entry.id)
    return entry


def _read_extension(inspection: Inspection, entry: CatalogEntry) -> None:
    data = inspection.read_json_object(EXTENSION_JSON)
    entry.runtime = "nimlet-process"
    if data is None:
        return
    manifest = check_extension(inspection, data, EXTENSION_JSON)
    if manifest.name:
        entry.id = entry.name = manifest.name
    entry.entries = command_entries(inspection, manifest.command, "", EXTENSION_JSON)
    entry.metadata = {
        "command": manifest.command,
        "response_timeout_seconds": manifest.response_timeout_seconds,
        "valid": manifest.valid,
    }
    inspection.add(
        codes.NIMLET_RUNTIME_ONLY(
            f"{EXTENSION_JSON}: tools, commands and hooks are declared at runtime in "
            "`register`, not in the manifest"
        )
    )


def _read_tools(inspection: Inspection) -> list[Contribution]:
    tools: list[Contribution] = []
    paths = [TOOL_JSON] if safe_is_file(inspection.root / TOOL_JSON) else []
    for rel in paths + _subfolder_files(inspection.root, "tools", TOOL_JSON):
        data = inspection.read_json_object(rel)
        if data is not None and (tool := check_tool(inspection, data, rel)) is not None:
            tools.append(tool)
    return tools


def _read_skills(inspection: Inspection) -> list[Contribution]:
    paths = [SKILL_MD] if safe_is_file(inspection.root / SKILL_MD) else []
    paths += _subfolder_files(inspection.root, "skills", SKILL_MD)
    return [c for rel in paths if (c := skill_contribution(inspection, rel)) is not None]


def _name_from_single_item(
    inspection: Inspection,
    entry: CatalogEntry,
    tools: list[Contribution],
    skills: list[Contribution],
) -> None:
    # A tool folder or a skill folder is named by the one thing it holds; a skill
    # published on npm (a package.json beside it) by its npm name and version, and what
    # the skill requires (variables, executables) are the package's dependencies.
    root = inspection.root
    single = None
    if safe_is_file(root / TOOL_JSON) and tools and tools[0].detail["path"] == TOOL_JSON:
        single = tools[0]
    elif safe_is_file(root / SKILL_MD) and skills and skills[0].detail["path"] == SKILL_MD:
        single = skills[0]
        requires = single.detail.get("requires", {})
        entry.dependencies += [Dependency("environment", n) for n in requires.get("env", [])]
        entry.dependencies += [Dependency("executable", n) for n in requires.get("bins", [])]
    if single is None:
        return
    entry.id = entry.name = single.name
    entry.description = single.description
    if single.kind == "skill" and safe_is_file(root / PACKAGE_JSON):
        npm = inspection.read_json_object(PACKAGE_JSON, required=False) or {}
        name, version = npm.get("name"), npm.get("version")
        if isinstance(name, str) and name.strip():
            entry.id = entry.name = name.strip()
            entry.version = version.strip() if isinstance(version, str) else ""


def _subfolder_files(root: Path, folder: str, filename: str) -> list[str]:
    """``<folder>/<child>/<filename>`` paths relative to root, sorted."""
    return [
        f"{folder}/{child}/{filename}"
        for child in _children(root / folder, dirs=True)
        if safe_is_file(root / folder / child / filename)
    ]


def _prompt_files(root: Path) -> list[str]:
    return [
        f"prompts/{name}"
        for name in _children(root / "prompts", dirs=False)
        if name.endswith(".md") and safe_is_file(root / "prompts" / name)
    ]


def _children(directory: Path, *, dirs: bool) -> list[str]:
    try:
        with os.scandir(directory) as iterator:
            names = [
                entry.name
                for entry in iterator
                if not entry.name.startswith(".") and entry.is_dir() == dirs
            ]
    except (OSError, ValueError):
        return []
    return sorted(names)
