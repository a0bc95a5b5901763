"""Current nimlet's command surface: the ``context`` a ``command`` request carries, and a
command reply read in upstream's order — side effects (applied as the reply arrives),
``message``, then a ``session`` action, or ``reload``, or ``prompt``, the first present
winning and the later ones ignored (said with a diagnostic)."""

from __future__ import annotations

from typing import Any

from gateway.host import _codes
from gateway.host._state import GatewayState
from gateway.model import CommandOutcome, SessionActionError, session_action
from gateway.wire import ResponseMessage

__all__ = ["command_context", "command_outcome"]


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
            action = session_action(response.session)
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
