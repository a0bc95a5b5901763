"""SKILL.md skills and ``*.md`` prompt templates as contributions: their name and
description, read with the gateway's front-matter parser (``gateway.model.frontmatter``).

Shared by every ecosystem that ships the portable ``.agents/skills`` convention (nimlet,
Pi, OpenClaw and Nu skills are all SKILL.md folders). What a skill requires of its
environment is kept in its ``detail["requires"]`` (``env``, ``bins``), read where skills
declare it: OpenClaw's (and ClawHub's) ``metadata.openclaw.requires`` (legacy key
``clawdbot``; ``metadata`` a mapping or a JSON string, as OpenClaw reads it) and a
top-level ``requires``.
"""

from __future__ import annotations

import json
import posixpath
import re
from typing import Any

from adapters import _codes as codes
from adapters._files import Inspection, safe_is_file
from gateway.model import SKILL_SCAN_LINES, Contribution, parse_front_matter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gateway.model.frontmatter import FrontMatter

__all__ = ["prompt_contribution", "skill_contribution", "skill_files"]

_MANIFEST_KEYS = ("openclaw", "clawdbot")  # OpenClaw's MANIFEST_KEY, then its legacy one
_REQUIREMENTS = ("env", "bins")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_BIN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")


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
    detail: dict[str, Any] = {"path": skill_md}
    requires = _requirements(inspection, skill_md, front)
    if requires:
        detail["requires"] = requires
    return Contribution(
        kind="skill",
        name=front.text("name") or default,
        description=front.description,
        detail=detail,
    )


def _requirements(
    inspection: Inspection, skill_md: str, front: FrontMatter
) -> dict[str, list[str]]:
    """The variables (``env``) and executables (``bins``) the skill says it needs."""
    blocks = [front.data.get("requires"), *(
        block.get("requires") for block in [_manifest_block(front.data.get("metadata"))] if block
    )]  # fmt: skip
    found: dict[str, list[str]] = {}
    for block in blocks:
        if not isinstance(block, dict):
            continue
        for kind in _REQUIREMENTS:
            values = block.get(kind)
            values = [values] if isinstance(values, str) else values
            if not isinstance(values, list):
                continue
            valid = _ENV_NAME if kind == "env" else _BIN_NAME
            for value in values:
                name = value.strip() if isinstance(value, str) else ""
                if not valid.match(name):
                    inspection.add(
                        codes.SKILL_INVALID(f"{skill_md}: requires.{kind} {value!r} is not a name")
                    )
                elif name not in found.setdefault(kind, []):
                    found[kind].append(name)
    return {kind: names for kind, names in found.items() if names}


def _manifest_block(metadata: object) -> dict[str, Any] | None:
    """OpenClaw's block of a skill's ``metadata`` (a mapping, or JSON text)."""
    if isinstance(metadata, str):
        try:
            metadata = json.loads(metadata)
        except ValueError:
            return None
    if not isinstance(metadata, dict):
        return None
    for key in _MANIFEST_KEYS:
        block = metadata.get(key)
        if isinstance(block, dict):
            return block
    return None


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
