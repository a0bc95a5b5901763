"""A count and its noun in words that agree: ``1 warning``, ``2 warnings`` — what a person
reads, never ``warning(s)``. Machine output (``--json``, SARIF's fields) keeps numbers."""

from __future__ import annotations

__all__ = ["counted"]


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """``"{count} {noun}"``: ``singular`` for exactly one, otherwise ``plural`` — by default
    ``singular`` + ``s``; an irregular plural is passed (``counted(n, "match", "matches")``).
    ``singular`` may be a phrase whose last word is the noun (``"risk signal"``)."""
    return f"{count} {singular if count == 1 else plural or singular + 's'}"
