"""Current nimlet's command surface: the ``context`` a ``command`` request carries, and a
command reply read in upstream's order — side effects (applied as the reply arrives),
``message``, then a ``session`` action, or ``reload``, or ``prompt``, the first present
winning and the later ones ignored (said with a diagnostic)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import _codes
from .registry import CommandOutcome

if TYPE_CHECKING:
    from ._state import GatewayState
    from .protocol import ResponseMessage

__all__ = [
    "SESSION_ACTIONS",
    "SESSION_ID",
    "SessionAction",
    "SessionActionError",
    "command_context",
    "command_outcome",
]

SESSION_ACTIONS = ("new", "fork", "switch", "compact")
SESSION_ID = re.compile(r"^[A-Za-z0-9_-]+$")
"""What ``switch`` accepts as a session id (upstream's rule)."""


class SessionActionError(Exception):
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


def _session_action(value: dict[str, Any]) -> SessionAction:
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


def command_outcome(state: GatewayState, owner: str, response: ResponseMessage) -> CommandOutcome:
    """A reply in upstream's precedence: ``session`` stops (``reload`` and ``prompt`` are
    ignored), else ``reload: true`` stops (``prompt`` ignored), else ``prompt``."""
    message, prompt = response.message, response.prompt or None
    ignored: list[str] = []
    if isinstance(response.session, dict):
        if response.reload is True:
            ignored.append("reload")
        if prompt:
            ignored.append("prompt")
        _ignored(state, owner, "a session action", ignored)
        try:
            action = _session_action(response.session)
        except SessionActionError as error:
            return CommandOutcome(message, error=str(error))
        return CommandOutcome(message, session=action)
    if response.session is not None:
        state.diagnostics.add(
            _codes.COMMAND_REPLY_IGNORED(
                f"{owner}: command reply field session is not an object; ignored",
                package=owner,
            )
        )
    if response.reload is True:
        _ignored(state, owner, "reload", ["prompt"] if prompt else [])
        return CommandOutcome(message, reload=True)
    return CommandOutcome(message, prompt)


def _ignored(state: GatewayState, owner: str, winner: str, fields: list[str]) -> None:
    if fields:
        state.diagnostics.add(
            _codes.COMMAND_REPLY_IGNORED(
                f"{owner}: command reply has {winner}, so its {' and '.join(fields)} "
                "was ignored (nimlet's order)",
                package=owner,
            )
        )


def command_context(state: GatewayState) -> dict[str, Any]:
    """What a ``command`` request tells the extension (current nimlet): ``mode`` is
    ``tui`` when the gateway can open an editor for extensions, else ``non_interactive``;
    provider, model and messages come from the embedding agent (``AgentLink``), empty
    when it gave none."""
    link = state.agent
    return {
        "mode": "tui" if link.edit_text is not None else "non_interactive",
        "workspace": str(state.workspace),
        "session_id": state.session.id,
        "provider": link.provider,
        "model": link.model,
        "messages": state.model_messages(),
    }
