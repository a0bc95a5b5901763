"""``serve --mcp --strict``: a description whose text looks like instructions to the model
(``base._model_text``) is offered as ``[withheld: …]``, and said once on stderr."""

from __future__ import annotations

from gateway.base import Diagnostics, flagged_text, model_text_flags, withheld

__all__ = ["Withholder"]


class Withholder:
    """Remembers what it said, so a client listing again is not warned again."""

    def __init__(self, strict: bool) -> None:
        self.strict = strict
        self._said: set[tuple[str, str]] = set()

    def description(
        self, diagnostics: Diagnostics, kind: str, name: str, owner: str | None, text: str
    ) -> str:
        """``text``, or under ``--strict`` what stands in for it when it is flagged."""
        if not self.strict:
            return text
        flags = model_text_flags(text)
        if not flags:
            return text
        if (kind, name) not in self._said:
            self._said.add((kind, name))
            diagnostics.add(flagged_text(kind, name, owner, flags))
        return withheld(flags)
