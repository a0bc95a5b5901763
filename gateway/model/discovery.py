"""Finding extensions, tool.json tools, skills and prompt templates in their roots.

Root order follows nimlet's table. Extensions are never overridden by name (every one
starts); for tools, skills and prompts a later root replaces an earlier one by name.
Project roots are read only when the workspace is trusted. Nothing here runs any code.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from gateway.base import Diagnostic
from gateway.model import _codes
from gateway.model.frontmatter import SKILL_SCAN_LINES, parse_front_matter
from gateway.model.manifest import (
    ExtensionManifest,
    ToolManifest,
    load_extension_manifest,
    load_tool_manifest,
)

__all__ = [
    "DiscoveredExtension",
    "DiscoveredTool",
    "Discovery",
    "PromptTemplate",
    "Skill",
    "discover",
    "discover_package",
    "expand_prompt",
]

_EXTENSION_ROOTS = ((True, ".agents/extensions"), (True, ".nimlet/extensions"),
                    (False, ".agents/extensions"), (False, ".nimlet/extensions"))  # fmt: skip
_TOOL_ROOTS = ((True, ".nimlet/tools"), (False, ".agent/tools"), (False, ".nimlet/tools"))
_SKILL_ROOTS = ((True, ".agents/skills"), (True, ".nimlet/skills"), (False, ".agent/skills"),
                (False, ".agents/skills"), (False, ".nimlet/skills"))  # fmt: skip
_PROMPT_ROOTS = ((True, ".agents/prompts"), (True, ".nimlet/prompts"), (False, ".agent/prompts"),
                 (False, ".agents/prompts"), (False, ".nimlet/prompts"))  # fmt: skip
# (user-global?, relative path): user roots live under the home folder, project roots
# under the workspace.


@dataclass(frozen=True, slots=True)
class DiscoveredExtension:
    manifest: ExtensionManifest
    folder: Path
    scope: str  # "user" | "project"


@dataclass(frozen=True, slots=True)
class DiscoveredTool:
    manifest: ToolManifest
    folder: Path
    scope: str


@dataclass(frozen=True, slots=True)
class Skill:
    name: str
    description: str
    path: Path
    scope: str


@dataclass(frozen=True, slots=True)
class PromptTemplate:
    name: str
    description: str
    body: str
    path: Path
    scope: str
    owner: str | None = None
    """The package that ships it; None for one found in the workspace or user folders."""
    expand: Callable[[str, str], str] | None = None
    """``(body, arguments) → prompt`` by its ecosystem's rules (e.g. Pi's positional
    ``$1``, ``${@:2}``); None: nimlet's ``$ARGUMENTS`` / ``$@`` (``expand_prompt``)."""


@dataclass(slots=True)
class Discovery:
    extensions: list[DiscoveredExtension] = field(default_factory=list)
    tools: list[DiscoveredTool] = field(default_factory=list)
    skills: list[Skill] = field(default_factory=list)
    prompts: list[PromptTemplate] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def extend(self, other: Discovery) -> None:
        """Add what ``other`` found (its diagnostics are the caller's to report)."""
        self.extensions += other.extensions
        self.tools += other.tools
        self.skills += other.skills
        self.prompts += other.prompts


def _roots(
    table: tuple[tuple[bool, str], ...], home: Path, workspace: Path, trusted: bool
) -> list[tuple[Path, str]]:
    return [
        (home / rel, "user") if user else (workspace / rel, "project")
        for user, rel in table
        if user or trusted
    ]


def _children(root: Path) -> list[Path]:
    try:
        return sorted(child for child in root.iterdir() if child.is_dir())
    except OSError:
        return []


def discover(workspace: Path, home: Path, trusted: bool) -> Discovery:
    """Everything the roots hold, with a diagnostic for each skipped item."""
    found = Discovery()
    for root, scope in _roots(_EXTENSION_ROOTS, home, workspace, trusted):
        for folder in _children(root):
            path = folder / "extension.json"
            if not path.is_file():
                continue
            manifest, problem = load_extension_manifest(path)
            if manifest is None:
                assert problem is not None
                found.diagnostics.append(problem)
            else:
                found.extensions.append(DiscoveredExtension(manifest, folder, scope))
    found.tools = _by_name(
        _discover_tools(_roots(_TOOL_ROOTS, home, workspace, trusted), found.diagnostics),
        "tool.json tool",
        found.diagnostics,
    )
    found.skills = _by_name(
        _discover_skills(_roots(_SKILL_ROOTS, home, workspace, trusted), found.diagnostics),
        "skill",
        found.diagnostics,
    )
    found.prompts = _by_name(
        _discover_prompts(_roots(_PROMPT_ROOTS, home, workspace, trusted), found.diagnostics),
        "prompt template",
        found.diagnostics,
    )
    if not trusted and _has_project_resources(workspace):
        found.diagnostics.append(
            _codes.WORKSPACE_UNTRUSTED(
                f"workspace {workspace} is not trusted: its extensions, tools, skills and "
                "prompts were not loaded",
                hint=f"gateway trust {workspace}",
            )
        )
    return found


_Named = TypeVar("_Named", DiscoveredTool, Skill, PromptTemplate)


def discover_package(root: Path) -> Discovery:
    """What an installed nimlet package holds: an ``extension.json`` at its root, tool.json
    tools (at the root or under ``tools/``), skills and prompt templates."""
    found = Discovery()
    scope = "package"
    manifest_path = root / "extension.json"
    if manifest_path.is_file():
        manifest, problem = load_extension_manifest(manifest_path)
        if manifest is None:
            assert problem is not None
            found.diagnostics.append(problem)
        else:
            found.extensions.append(DiscoveredExtension(manifest, root, scope))
    top_tool = _tool_in(root, scope, found.diagnostics)
    found.tools = [top_tool] if top_tool else []
    found.tools += _discover_tools([(root / "tools", scope)], found.diagnostics)
    top_skill = _skill_in(root, scope, found.diagnostics)
    found.skills = [top_skill] if top_skill else []
    found.skills += _discover_skills([(root / "skills", scope)], found.diagnostics)
    found.prompts = _discover_prompts([(root / "prompts", scope)], found.diagnostics)
    return found


def _has_project_resources(workspace: Path) -> bool:
    tables = (_EXTENSION_ROOTS, _TOOL_ROOTS, _SKILL_ROOTS, _PROMPT_ROOTS)
    return any(
        _children(workspace / rel) or any((workspace / rel).glob("*.md"))
        for table in tables
        for user, rel in table
        if not user
    )


def _by_name(items: list[_Named], kind: str, diagnostics: list[Diagnostic]) -> list[_Named]:
    chosen: dict[str, _Named] = {}
    for item in items:
        name = item.manifest.name if isinstance(item, DiscoveredTool) else item.name
        earlier = chosen.pop(name, None)
        if earlier is not None:
            diagnostics.append(
                _codes.RESOURCE_OVERRIDDEN(
                    f"{kind} {name!r} from {_where(item)} replaces the one from {_where(earlier)}"
                )
            )
        chosen[name] = item
    return list(chosen.values())


def _where(item: DiscoveredTool | Skill | PromptTemplate) -> Path:
    return item.folder if isinstance(item, DiscoveredTool) else item.path


def _discover_tools(
    roots: list[tuple[Path, str]], diagnostics: list[Diagnostic]
) -> list[DiscoveredTool]:
    found = (
        _tool_in(folder, scope, diagnostics) for root, scope in roots for folder in _children(root)
    )
    return [tool for tool in found if tool is not None]


def _tool_in(folder: Path, scope: str, diagnostics: list[Diagnostic]) -> DiscoveredTool | None:
    path = folder / "tool.json"
    if not path.is_file():
        return None
    manifest, problem = load_tool_manifest(path)
    if manifest is None:
        assert problem is not None
        diagnostics.append(problem)
        return None
    return DiscoveredTool(manifest, folder, scope)


_PLACEHOLDER = re.compile(r"\$ARGUMENTS|\$@")


def _discover_skills(roots: list[tuple[Path, str]], diagnostics: list[Diagnostic]) -> list[Skill]:
    found = (
        _skill_in(folder, scope, diagnostics) for root, scope in roots for folder in _children(root)
    )
    return [skill for skill in found if skill is not None]


def _skill_in(folder: Path, scope: str, diagnostics: list[Diagnostic]) -> Skill | None:
    path = folder / "SKILL.md"
    if not path.is_file():
        return None
    try:
        with path.open(encoding="utf-8") as handle:
            head = "".join(line for _, line in zip(range(SKILL_SCAN_LINES), handle, strict=False))
    except (OSError, UnicodeDecodeError) as error:
        diagnostics.append(_codes.SKILL_INVALID(f"skipping {path}: {error}"))
        return None
    front = parse_front_matter(head, SKILL_SCAN_LINES)
    if front.problem is not None:
        diagnostics.append(_codes.SKILL_INVALID(f"skipping {path}: {front.problem}"))
        return None
    return Skill(front.text("name") or folder.name, front.description, path, scope)


def _discover_prompts(
    roots: list[tuple[Path, str]], diagnostics: list[Diagnostic]
) -> list[PromptTemplate]:
    prompts = []
    for root, scope in roots:
        try:
            files = sorted(path for path in root.glob("*.md") if path.is_file())
        except OSError:
            continue
        for path in files:
            try:
                front = parse_front_matter(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError) as error:
                diagnostics.append(_codes.PROMPT_INVALID(f"skipping {path}: {error}"))
                continue
            if front.problem is not None:
                diagnostics.append(_codes.PROMPT_INVALID(f"skipping {path}: {front.problem}"))
                continue
            body = front.body.strip("\n")
            prompts.append(PromptTemplate(path.stem, front.description, body, path, scope))
    return prompts


def expand_prompt(body: str, arguments: str) -> str:
    """``$ARGUMENTS`` and ``$@`` become the text typed after the command (in one pass, so
    a ``$@`` inside the arguments stays as typed)."""
    return _PLACEHOLDER.sub(lambda _: arguments, body)
