"""SKILL.md skills and ``*.md`` prompt templates as contributions: their name and
description, read with the gateway's front-matter parser (``gateway.model.frontmatter``).

Shared by every ecosystem that ships the portable ``.agents/skills`` convention (nimlet,
Pi, OpenClaw and Nu skills are all SKILL.md folders).
"""

from __future__ import annotations

import posixpath

from adapters import _codes as codes
from adapters._files import Inspection, safe_is_file
from gateway.model import SKILL_SCAN_LINES, Contribution, parse_front_matter

__all__ = ["prompt_contribution", "skill_contribution", "skill_files"]


def skill_contribution(inspection: Inspection, skill_md: str) -> Contribution | None:
    """A skill from ``<dir>/SKILL.md`` (or a loose ``.md`` skill file), named by its
    frontmatter, else by its folder (or file stem)."""
    text = inspection.read_text(skill_md)
    if text is None:
        return None
    front = parse_front_matter(text, SKILL_SCAN_LINES)
    if posixpath.basename(skill_md) == "SKILL.md":
        default = posixpath.basename(posixpath.dirname(skill_md)) or "skill"
    else:
        default = posixpath.splitext(posixpath.basename(skill_md))[0]
    if front.problem:
        inspection.add(codes.SKILL_INVALID(f"{skill_md}: {front.problem}"))
    elif not front.description:
        inspection.add(codes.SKILL_INVALID(f"{skill_md}: no description"))
    return Contribution(
        kind="skill",
        name=front.text("name") or default,
        description=front.description,
        detail={"path": skill_md},
    )


def prompt_contribution(inspection: Inspection, prompt_md: str) -> Contribution | None:
    """A prompt template: the file stem becomes a slash command."""
    text = inspection.read_text(prompt_md)
    if text is None:
        return None
    front = parse_front_matter(text)
    if front.problem:
        inspection.add(codes.SKILL_INVALID(f"{prompt_md}: {front.problem}"))
    return Contribution(
        kind="prompt",
        name=posixpath.splitext(posixpath.basename(prompt_md))[0],
        description=front.description,
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
