"""YAML front matter of ``SKILL.md`` skills and ``*.md`` prompt templates: the one parser
the gateway's discovery and every adapter use.

``---`` on the first line opens it and the next ``---`` line closes it. Skills are read
like nimlet reads them: only the first 64 lines, and a block that does not close within
them still gives its top-level ``name:`` and ``description:`` lines. Without a description,
the first line of the body that is not a heading describes the file. Nothing here raises:
a block that is not YAML, or not a mapping, is a ``problem``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from gateway.base import lone_surrogate

__all__ = ["SKILL_SCAN_LINES", "FrontMatter", "parse_front_matter"]

SKILL_SCAN_LINES: Final = 64
_TEXT_FIELDS: Final = ("name", "description")


@dataclass(frozen=True, slots=True)
class FrontMatter:
    data: dict[str, object] = field(default_factory=dict)
    body: str = ""
    problem: str | None = None

    def text(self, key: str) -> str | None:
        """A top-level value that is text (numbers read as text), stripped; else None."""
        value = self.data.get(key)
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            return None
        return str(value).strip() or None

    @property
    def description(self) -> str:
        described = self.text("description")
        if described:
            return described
        for line in self.body.splitlines():
            stripped = line.strip()
            if stripped and not stripped.startswith("#") and stripped != "---":
                return stripped
        return ""


def parse_front_matter(text: str, max_lines: int | None = None) -> FrontMatter:
    """The front matter and body of ``text`` (of its first ``max_lines`` lines, if given)."""
    lines = text.splitlines()
    if max_lines is not None:
        lines = lines[:max_lines]
    if not lines or lines[0].strip() != "---":
        return FrontMatter(body="\n".join(lines))
    closing = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if closing is None:
        return FrontMatter(data=_top_level_lines(lines[1:]))
    body = "\n".join(lines[closing + 1 :])
    import yaml  # here: only a skill or prompt with front matter pays for PyYAML

    try:
        loaded = yaml.load("\n".join(lines[1:closing]), Loader=_safe_loader())
    except (yaml.YAMLError, ValueError, TypeError, RecursionError, OverflowError) as error:
        return FrontMatter(
            body=body, problem=f"front matter is not valid YAML ({type(error).__name__})"
        )
    if loaded is None:
        return FrontMatter(body=body)
    if not isinstance(loaded, dict):
        return FrontMatter(body=body, problem="front matter is not a mapping")
    if lone_surrogate(loaded) is not None:
        return FrontMatter(body=body, problem="front matter holds a string that is not text")
    data = {str(key): value for key, value in loaded.items()}
    for key in _TEXT_FIELDS:
        value = data.get(key)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, str | int | float)
        ):
            return FrontMatter(body=body, problem=f"front matter field {key!r} must be text")
    return FrontMatter(data, body)


def _safe_loader() -> type:
    """PyYAML's safe loader on libyaml's parser where the wheel has it: the same safe
    constructor, a parse several times faster — a home's plugins hold dozens of commands,
    agents and skills, each read at every load."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _top_level_lines(lines: list[str]) -> dict[str, object]:
    """``name:`` and ``description:`` of a block that never closes (nimlet scans lines)."""
    found: dict[str, object] = {}
    for line in lines:
        key, separator, value = line.partition(":")
        if separator and key in ("name", "description") and key not in found:
            found[key] = value.strip().strip("'\"")
    return found
