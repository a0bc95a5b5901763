"""The skills an installed package declares, as the gateway lists and serves them."""

from __future__ import annotations

from pathlib import Path

from gateway.model import CatalogEntry, Skill

__all__ = ["package_skill", "package_skills"]


def package_skill(entry: CatalogEntry, name: str, description: str, rel: str) -> Skill:
    """One skill of the installed package ``entry``: its ``SKILL.md`` at ``rel``."""
    return Skill(name, description, Path(entry.root) / rel, "package")


def package_skills(entry: CatalogEntry) -> list[Skill]:
    """Every ``skill`` contribution of ``entry`` (the files ``inspect`` resolved)."""
    return [
        package_skill(entry, c.name, c.description, str(c.detail.get("path", "")))
        for c in entry.contributions
        if c.kind == "skill"
    ]
