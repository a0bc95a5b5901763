"""Text with injection signals held back from the model (``base.held_flags``): every tool,
command and prompt template an installed package registers passes here on its way into the
registry (and every skill it ships on its way into the discovery), and one whose text the
model would read carries such a signal is held back —
``package.model_text_held``, quoting it — until the user accepts exactly that text
(``gateway trust ID --accept-text``, ``packages.AcceptedText``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from gateway.base import held_flags, model_text_flags, read_model_text, schema_text
from gateway.host._codes import MODEL_TEXT_HELD
from gateway.host._state import GatewayState
from gateway.model import CommandEntry, PromptTemplate, Skill, ToolEntry
from gateway.packages import AcceptedText, text_digest

__all__ = ["TextGate"]

T = TypeVar("T")


class TextGate:
    def __init__(self, state: GatewayState) -> None:
        self._state = state
        self._accepted: dict[str, AcceptedText] = {}
        self._said: set[tuple[str, str, str]] = set()

    def forget(self) -> None:
        """Acceptances are read again (``trust --accept-text`` may have added some)."""
        self._accepted.clear()

    def tools(self, owner: str, tools: list[ToolEntry]) -> list[ToolEntry]:
        return self._admit(
            owner, tools, "tool",
            lambda t: (t.name, t.description + "\n" + schema_text(t.input_schema)),
        )  # fmt: skip

    def commands(self, owner: str, commands: list[CommandEntry]) -> list[CommandEntry]:
        return self._admit(owner, commands, "command", lambda c: (c.name, c.description))

    def prompts(self, owner: str, prompts: Sequence[PromptTemplate]) -> list[PromptTemplate]:
        return self._admit(
            owner, list(prompts), "prompt", lambda p: (p.name, p.description + "\n" + p.body)
        )

    def skills(self, owner: str, skills: Sequence[Skill]) -> list[Skill]:
        return self._admit(
            owner, list(skills), "skill",
            lambda s: (s.name, s.description + "\n" + read_model_text(s.path)),
        )  # fmt: skip

    def _admit(
        self, owner: str, items: list[T], kind: str, text_of: Callable[[T], tuple[str, str]]
    ) -> list[T]:
        state = self._state
        package = state.package_of(owner)
        if not items or package not in {status.id for status in state.packages}:
            return items
        admitted = []
        for item in items:
            name, text = text_of(item)
            flags = held_flags(model_text_flags(text))
            if not flags:
                admitted.append(item)
                continue
            accepted = self._accepted.get(package)
            if accepted is None:
                accepted = self._accepted[package] = AcceptedText(state.config.home, package)
            digest = text_digest(kind, name, text)
            if accepted.admits(kind, name, digest):
                admitted.append(item)
                continue
            accepted.hold(kind, name, digest)
            if (package, name, digest) not in self._said:
                self._said.add((package, name, digest))
                found = "; ".join(f"{flag.what}: \u201c{flag.excerpt}\u201d" for flag in flags)
                state.diagnostics.add(
                    MODEL_TEXT_HELD(
                        f"{package}: {kind} {name!r} held back from the model — {found}",
                        package=package,
                        contribution=name,
                        hint=f"read it, then: gateway trust {package} --accept-text",
                    )
                )
        return admitted
