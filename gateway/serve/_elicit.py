"""An extension's question (nimlet ``ui_request``) asked of an MCP client as an
elicitation form, and the answer turned back into the extension's ``ui_response``."""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPError, NoBackChannelError

from gateway.base import Diagnostics, Severity
from gateway.host import UI_UNANSWERED
from gateway.wire import ExtensionProcess, UiAnswer, UiRequest

__all__ = [
    "NO_ELICITATION",
    "answer_from_elicitation",
    "ask_client",
    "elicitation_schema",
    "unanswered",
]

NO_ELICITATION = "the MCP client cannot answer questions (no elicitation capability)"
NO_BACK_CHANNEL = (
    "it was asked during a 2026-07-28 request of no call waiting on it, which has no channel "
    "for a server's question"
)


async def ask_client(
    session: ServerSession | None,
    process: ExtensionProcess,
    request: UiRequest,
    diagnostics: Diagnostics | None,
    nobody: str = NO_ELICITATION,
) -> UiAnswer:
    """Ask ``session``'s client; cancelled when there is none (``nobody`` says why), it
    cannot answer forms, or the question is one a form must not carry. ``diagnostics``:
    where ``ui.unanswered`` goes (None while the gateway is still opening). A 2026-07-28
    client is asked through its call's result instead (``_input_required``)."""
    schema = elicitation_schema(request)
    capable = session is not None and session.check_client_capability(
        types.ClientCapabilities(elicitation=types.ElicitationCapability())
    )
    if session is None or schema is None or not capable:
        return unanswered(
            process, request, diagnostics, nobody if session is None else NO_ELICITATION
        )
    try:
        result = await session.elicit_form(request.prompt or "Answer", schema)
    except NoBackChannelError:  # a 2026-07-28 request over HTTP: no server-initiated requests
        return unanswered(process, request, diagnostics, NO_BACK_CHANNEL)
    except MCPError:
        return UiAnswer(cancelled=True)
    return answer_from_elicitation(request, result)


def unanswered(
    process: ExtensionProcess, request: UiRequest, diagnostics: Diagnostics | None, why: str
) -> UiAnswer:
    """Cancelled, and said (``ui.unanswered``) with ``why`` no one was asked."""
    if request.method == "password":
        why = "MCP forbids asking for a password through elicitation"
    if diagnostics is not None:
        diagnostics.add(
            UI_UNANSWERED(
                f"{process.name} asked {request.prompt!r} ({request.method}); {why}, so it was "
                "answered cancelled",
                package=process.name,
                severity=Severity.INFO,
            )
        )
    return UiAnswer(cancelled=True)


def elicitation_schema(request: UiRequest) -> dict[str, Any] | None:
    """A nimlet question as an MCP form; None for what a form must not carry (a password:
    MCP forbids asking for secrets through elicitation) or an unknown method."""
    prompt = request.prompt or "Answer"
    if request.method == "question":
        field: dict[str, Any] = {"type": "string", "title": prompt, "enum": list(request.options)}
    elif request.method == "confirm":
        field = {"type": "boolean", "title": prompt}
    elif request.method == "input":
        field = {"type": "string", "title": prompt}
    else:
        return None
    return {"type": "object", "properties": {"answer": field}, "required": ["answer"]}


def answer_from_elicitation(request: UiRequest, result: types.ElicitResult) -> UiAnswer:
    if result.action != "accept" or not result.content:
        return UiAnswer(cancelled=True)
    value = result.content.get("answer")
    if request.method == "confirm":
        return UiAnswer(confirmed=bool(value), cancelled=False)
    if not isinstance(value, str) or not value:
        return UiAnswer(cancelled=True)
    return UiAnswer(answer=value)
