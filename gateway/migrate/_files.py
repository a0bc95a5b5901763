"""Files a migration writes: JSON documents, and the package's skills and prompt templates
copied where the target finds them."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from gateway.migrate._model import Migration

__all__ = ["SKILL_NAME", "copy_prompts", "copy_skills", "write_json", "write_text"]

SKILL_NAME = re.compile(r"^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")
"""The Agent Skills name rule (1-64 of a-z 0-9 -, no leading, trailing or double hyphen),
which also names the skill's folder."""
_SKIPPED = shutil.ignore_patterns("node_modules", ".git", "__pycache__")


def write_json(migration: Migration, relative: str, data: Any) -> Path:
    return write_text(migration, relative, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def write_text(migration: Migration, relative: str, text: str) -> Path:
    path = migration.out / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    migration.files.append(path)
    return path


def _package_file(migration: Migration, relative: object) -> Path | None:
    """A file the package names, if it is inside the package."""
    if not isinstance(relative, str):
        return None
    root = migration.package.root.resolve()
    path = (root / relative).resolve()
    return path if root in path.parents and path.is_file() else None


def copy_skills(migration: Migration, into: str, *, strict_names: bool, how: str) -> list[str]:
    """Each skill of the package as ``<into>/<name>/SKILL.md`` with the files beside it; with
    ``strict_names`` a skill whose name breaks the Agent Skills rule is left out (returned)."""
    from gateway.migrate._codes import MIGRATE_NOT_CARRIED

    refused = []
    for contribution in migration.package.entry.contributions:
        if contribution.kind != "skill":
            continue
        source = _package_file(migration, contribution.detail.get("path"))
        if source is None:
            continue
        if strict_names and not SKILL_NAME.match(contribution.name):
            refused.append(contribution.name)
            migration.note(
                MIGRATE_NOT_CARRIED,
                f"skill {contribution.name!r}: its name breaks the Agent Skills rule (a-z, 0-9, "
                "-, at most 64), which the target requires of a skill folder",
                contribution.name,
            )
            continue
        target = migration.out / into / contribution.name
        if source.name == "SKILL.md" and source.parent != migration.package.root.resolve():
            shutil.copytree(source.parent, target, ignore=_SKIPPED, dirs_exist_ok=True)
        else:  # a loose skill file (or SKILL.md at the package root): the file alone
            target.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target / "SKILL.md")
        migration.files.append(target / "SKILL.md")
        migration.carry("skill", contribution.name, how)
    return refused


def copy_prompts(migration: Migration, into: str, how: str) -> None:
    for contribution in migration.package.entry.contributions:
        if contribution.kind != "prompt":
            continue
        source = _package_file(migration, contribution.detail.get("path"))
        if source is None:
            continue
        target = migration.out / into / f"{contribution.name}.md"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        migration.files.append(target)
        migration.carry("prompt", contribution.name, how)
