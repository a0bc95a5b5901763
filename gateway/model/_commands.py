"""Current nimlet's session actions: the ``session`` object a command reply may carry, read
into a ``SessionAction`` for the embedding agent (``gateway.host._command_replies`` reads
the rest of the reply)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gateway.base import GatewayError

__all__ = [
    "SESSION_ACTIONS",
    "SESSION_ID",
    "SessionAction",
    "SessionActionError",
    "session_action",
]

SESSION_ACTIONS = ("new", "fork", "switch", "compact")
SESSION_ID = re.compile(r"^[A-Za-z0-9_-]+$")
"""What ``switch`` accepts as a session id (upstream's rule)."""


class SessionActionError(GatewayError):
    """A session action that cannot be carried out; ``str()`` is upstream's wording."""


@dataclass(frozen=True, slots=True)
class SessionAction:
    """``session`` of a command reply, for the embedding agent to carry out (or
    ``Gateway.apply_session_action``)."""

    action: str
    """``new``, ``fork``, ``switch`` or ``compact``."""
    message: int | None = None
    """``fork``: the 1-based ordinal of a user message of the current session; the new
    session holds everything before it."""
    id: str | None = None
    """``switch``: the session to load."""
    instruction: str = ""
    """``compact``: an instruction for the summarizer."""
    editor_text: str = ""
    """After ``new`` / ``fork`` / ``switch``: text to put in the composer, unsubmitted."""

    def to_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {"action": self.action}
        if self.message is not None:
            found["message"] = self.message
        if self.id is not None:
            found["id"] = self.id
        if self.instruction:
            found["instruction"] = self.instruction
        if self.editor_text:
            found["editor_text"] = self.editor_text
        return found


def session_action(value: dict[str, Any]) -> SessionAction:
    action = value.get("action")
    if action not in SESSION_ACTIONS:
        raise SessionActionError(f"unknown session action: {action if action else ''}")
    message = value.get("message")
    ident = value.get("id")
    instruction = value.get("instruction")
    editor_text = value.get("editor_text")
    return SessionAction(
        str(action),
        message=message if isinstance(message, int) and not isinstance(message, bool) else None,
        id=ident if isinstance(ident, str) else None,
        instruction=instruction if isinstance(instruction, str) else "",
        editor_text=editor_text if isinstance(editor_text, str) else "",
    )
