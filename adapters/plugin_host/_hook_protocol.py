"""What differs between the hook protocols the plugin host runs (Claude Code's, which Codex
shares, in ``_claude_hooks``; Gemini CLI's in ``_gemini_hooks``): the shape of what a hook
reads on stdin, its environment, how its exit code and output are read, how the answers of
every hook of an event fold into the gateway event's reply. ``_command_hooks`` runs the
commands, matches and folds through one of these.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from adapters.plugin_host._hook_config import Hook
from adapters.plugin_host._hook_process import HookRun

__all__ = ["Answer", "HookProtocol", "HookState", "json_object", "text_field"]


@dataclass(slots=True)
class Answer:
    """One hook's answer, read by its protocol's rules."""

    block: str | None = None
    ask: str | None = None
    stop: str | None = None
    context: list[str] = field(default_factory=list)
    updated_input: dict[str, Any] | None = None
    shown: list[str] = field(default_factory=list)
    """For the user's eyes only (``systemMessage``): logged."""
    ignored: list[str] = field(default_factory=list)
    """Fields the gateway has no place for, said as a diagnostic."""


@dataclass(slots=True)
class HookState:
    """What every hook of a package sees of the session: kept by ``CommandHooks``."""

    root: str
    data_dir: str
    cwd: str
    session_id: str = ""
    session_context: list[str] = field(default_factory=list)
    """SessionStart's context, added to the system prompt on each ``before_agent_start``."""
    calls: int = 0


class HookProtocol(Protocol):
    """One agent's hook protocol. Event names are the protocol's (``PreToolUse``,
    ``BeforeTool``); ``event_of`` maps those that run onto the gateway's events."""

    event_of: Mapping[str, str]
    failed_code: str
    ignored_code: str
    context_event: str | None
    """The event whose context is kept for the session (SessionStart), if any."""

    def runs(self, event: str, payload: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        """The protocol events one gateway event runs, in order, with their payloads."""
        ...

    def events(self, present: set[str]) -> list[str]:
        """The gateway events to subscribe to, for hooks of the ``present`` events."""
        ...

    def narrowing(self, matcher: str) -> frozenset[str] | None:
        """The exact tool names a tool event's matcher can match; None: any."""
        ...

    def matches(self, hook: Hook, event: str, stdin: Mapping[str, Any]) -> bool: ...

    def key(self, hook: Hook) -> str:
        """Hooks of one event with the same key run once."""
        ...

    def stdin(self, event: str, payload: Mapping[str, Any], state: HookState) -> dict[str, Any]: ...

    def env(self, state: HookState) -> dict[str, str]: ...

    def read(self, hook: Hook, run: HookRun, report: Callable[[str], None]) -> Answer:
        """One run's answer; ``report(message)`` says a failure (``failed_code``)."""
        ...

    def next_stdin(self, event: str, stdin: dict[str, Any], answer: Answer) -> dict[str, Any]:
        """What the next hook of a sequential run reads, after ``answer``."""
        ...

    def fold(
        self,
        event: str,
        payload: Mapping[str, Any],
        answers: list[Answer],
        state: HookState,
        ignored: Callable[[str], None],
    ) -> dict[str, Any]:
        """The reply fields of the gateway event; ``ignored(message)`` says what has no
        place in it (``ignored_code``)."""
        ...


def json_object(text: str) -> dict[str, Any] | None:
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def text_field(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""
