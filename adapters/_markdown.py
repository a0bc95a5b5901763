"""SKILL.md skills and ``*.md`` prompt templates: their name and description.

Shared by every ecosystem that ships the portable ``.agents/skills`` convention (nimlet,
Pi, OpenClaw and Nu skills are all SKILL.md folders). Like nimlet, only the first 64
lines are read for frontmatter; the body is loaded lazily by whoever uses the skill.
"""

from __future__ import annotations

import posixpath
from typing import Any, Final

import yaml

from adapters import _codes as codes
from adapters._base import Contribution
from adapters._files import Inspection, safe_is_file

__all__ = ["parse_frontmatter", "prompt_contribution", "skill_contribution", "skill_files"]

SCANNED_LINES: Final = 64


def parse_frontmatter(text: str) -> tuple[dict[str, str], str | None]:
    """(string fields of the frontmatter + fallback description, problem or None)."""
    lines = text.splitlines()[:SCANNED_LINES]
    fields: dict[str, str] = {}
    problem: str | None = None
    body_start = 0
    if lines and lines[0].strip() == "---":
        closing = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if closing is None:
            problem = f"frontmatter is not closed within {SCANNED_LINES} lines"
        else:
            body_start = closing + 1
            loaded, problem = _load_block("\n".join(lines[1:closing]))
            for key, value in loaded.items():
                if isinstance(key, str) and isinstance(value, str):
                    fields[key] = value.strip()
    if not fields.get("description"):
        # nimlet's rule: without a description, the first non-heading line describes it.
        for line in lines[body_start:]:
            stripped = line.strip()
            if stripped and not stripped.startswith("#") and stripped != "---":
                fields["description"] = stripped
                break
    return fields, problem


def _load_block(block: str) -> tuple[dict[Any, Any], str | None]:
    try:
        loaded = yaml.safe_load(block)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError, OverflowError) as error:
        return {}, f"frontmatter is not valid YAML ({type(error).__name__})"
    if loaded is None:
        return {}, None
    if not isinstance(loaded, dict):
        return {}, "frontmatter is not a mapping"
    return loaded, None


def skill_contribution(inspection: Inspection, skill_md: str) -> Contribution | None:
    """A skill from ``<dir>/SKILL.md`` (or a loose ``.md`` skill file), named by its
    frontmatter, else by its folder (or file stem)."""
    text = inspection.read_text(skill_md)
    if text is None:
        return None
    fields, problem = parse_frontmatter(text)
    if posixpath.basename(skill_md) == "SKILL.md":
        default = posixpath.basename(posixpath.dirname(skill_md)) or "skill"
    else:
        default = posixpath.splitext(posixpath.basename(skill_md))[0]
    if problem:
        inspection.add(codes.SKILL_INVALID(f"{skill_md}: {problem}"))
    elif not fields.get("description"):
        inspection.add(codes.SKILL_INVALID(f"{skill_md}: no description"))
    return Contribution(
        kind="skill",
        name=fields.get("name") or default,
        description=fields.get("description", ""),
        detail={"path": skill_md},
    )


def prompt_contribution(inspection: Inspection, prompt_md: str) -> Contribution | None:
    """A prompt template: the file stem becomes a slash command."""
    text = inspection.read_text(prompt_md)
    if text is None:
        return None
    fields, problem = parse_frontmatter(text)
    if problem:
        inspection.add(codes.SKILL_INVALID(f"{prompt_md}: {problem}"))
    return Contribution(
        kind="prompt",
        name=posixpath.splitext(posixpath.basename(prompt_md))[0],
        description=fields.get("description", ""),
        detail={"path": prompt_md},
    )


def skill_files(inspection: Inspection, directory: str) -> list[str]:
    """The SKILL.md files a declared skill directory holds: its own, else its children's."""
    own = posixpath.join(directory, "SKILL.md")
    if safe_is_file(inspection.root / own):
        return [own]
    return [
        posixpath.join(child, "SKILL.md")
        for child, is_dir in inspection.walk(directory, recursive=False)
        if is_dir and safe_is_file(inspection.root / child / "SKILL.md")
    ]
