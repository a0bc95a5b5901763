"""A Claude Code hook's answer read by Claude Code's rules: its JSON output's common fields,
``decision`` / ``reason``, and the event's ``hookSpecificOutput`` (the same for a command's
stdout, an http hook's body and an mcp_tool hook's text)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Answer", "json_object", "read_reply"]


@dataclass(slots=True)
class Answer:
    """One hook's answer, read by Claude Code's rules."""

    block: str | None = None
    ask: str | None = None
    stop: str | None = None
    context: list[str] = field(default_factory=list)
    updated_input: dict[str, Any] | None = None
    shown: list[str] = field(default_factory=list)
    """For the user's eyes only (``systemMessage``): logged."""


def json_object(text: str) -> dict[str, Any] | None:
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def read_reply(reply: Mapping[str, Any], answer: Answer) -> None:
    """Claude Code's JSON output: the common fields, ``decision``/``reason``, and the
    event's ``hookSpecificOutput``."""
    reason = _text(reply.get("reason"))
    if reply.get("continue") is False:
        answer.stop = _text(reply.get("stopReason")) or "stopped by hook"
    if reply.get("decision") == "block":
        answer.block = reason or "blocked by hook"
    message = _text(reply.get("systemMessage"))
    if message:
        answer.shown.append(message)
    specific = reply.get("hookSpecificOutput")
    if not isinstance(specific, Mapping):
        return
    decision = specific.get("permissionDecision")
    why = _text(specific.get("permissionDecisionReason"))
    if decision == "deny":
        answer.block = why or reason or "denied by hook"
    elif decision == "ask":
        answer.ask = why or "a hook asks for confirmation"
    updated = specific.get("updatedInput")
    if isinstance(updated, dict) and decision != "deny":
        answer.updated_input = updated
    context = _text(specific.get("additionalContext"))
    if context:
        answer.context.append(context)


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""
