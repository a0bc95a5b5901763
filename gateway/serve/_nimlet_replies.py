"""What ``gateway serve --nimlet`` says on the wire: its ``register``, a tool reply in the
host's generation, and one reply folding every package's reply to a lifecycle event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gateway.base import Severity
from gateway.host import Gateway
from gateway.model import NIMLET_EVENTS
from gateway.wire import Compaction

__all__ = ["event_reply", "register_message", "tool_reply"]

_NIMLET = frozenset(NIMLET_EVENTS.names())
_DIAGNOSTICS_CAP = 200
"""At most this many diagnostics ride on ``register`` (a host shows them at start)."""


def register_message(gateway: Gateway, *, diagnostics: bool) -> tuple[dict[str, Any], list[str]]:
    """Every command, tool and nimlet event of the packages behind the gateway; and what
    cannot be listed (events beyond nimlet's), one sentence each."""
    tools = [
        {"name": t.name, "description": t.description, "input_schema": t.input_schema,
         "capabilities": list(t.capabilities)}
        for t in gateway.tools()
    ]  # fmt: skip
    commands = [{"name": c.name, "description": c.description} for c in gateway.registry.commands()]
    events: list[str] = []
    left_out: list[str] = []
    for hook in gateway.registry.hooks():
        if hook.event in _NIMLET:
            if hook.event not in events:
                events.append(hook.event)
        else:
            left_out.append(
                f"{hook.owner} subscribes to {hook.event!r}, which a nimlet host never sends; "
                "it does not fire behind gateway serve --nimlet"
            )
    message: dict[str, Any] = {"type": "register", "commands": commands}
    if tools:
        message["tools"] = tools
    if events:
        message["events"] = events
    if diagnostics:
        # register.diagnostics was offered: the host shows what the packages' loading found.
        found = [
            {"code": d.code, "message": d.message,
             **({"contribution": d.contribution} if d.contribution else {})}
            for d in gateway.diagnostics
            if d.severity is not Severity.INFO
        ][:_DIAGNOSTICS_CAP]  # fmt: skip
        if found:
            message["gateway"] = {"diagnostics": found}
    return message, left_out


def tool_reply(
    generation: str, content: str, is_error: bool, parts: list[dict[str, Any]] | None
) -> dict[str, Any]:
    """Current nimlet takes ``content`` as text and image parts (a string fails the call);
    the older protocol takes a string."""
    if generation == "older":
        return {"content": content, "is_error": is_error}
    items: list[dict[str, Any]] = []
    for part in parts or []:
        if part.get("type") == "text" and isinstance(part.get("text"), str):
            items.append({"type": "text", "text": part["text"]})
        elif part.get("type") == "image" and isinstance(part.get("data"), str):
            items.append({"type": "image", "mimeType": part.get("mime_type"), "data": part["data"]})
        elif part.get("type") == "image" and isinstance(part.get("path"), str):
            items.append({"type": "image", "mimeType": part.get("mime_type"), "path": part["path"]})
    if not any(item["type"] == "text" for item in items):
        items.insert(0, {"type": "text", "text": content})
    return {"content": items, "is_error": is_error}


async def event_reply(
    gateway: Gateway, message: dict[str, Any], not_carried: Callable[[str], None]
) -> dict[str, Any]:
    """Dispatch the host's event to the packages and fold their replies into one, as the
    host would have folded them had they been its own extensions."""
    event, payload = message.get("event"), message.get("payload")
    if not isinstance(payload, dict):
        payload = {}
    if event == "turn_start":
        await gateway.start_turn(payload)
        return {}
    if event == "turn_end":
        await gateway.end_turn(payload=payload)
        return {}
    if event == "session_start":
        await gateway.start_session(payload)
        return {}
    if event == "session_end":
        await gateway.end_session(payload)
        return {}
    if event == "context":
        return await _context(gateway, payload, not_carried)
    if not isinstance(event, str) or event not in _NIMLET:
        return {}  # a name nimlet does not have: nothing subscribed here
    outcome = await gateway.emit(event, payload)
    reply: dict[str, Any] = {}
    if not outcome.allowed:
        reply.update(allow=False, reason=outcome.reason)
    if event == "tool_call" and outcome.payload.get("arguments") != payload.get("arguments"):
        reply["arguments"] = outcome.payload.get("arguments")
    elif event == "tool_result":
        for key in ("output", "is_error"):
            if outcome.payload.get(key) != payload.get(key):
                reply[key] = outcome.payload.get(key)
    elif event == "session_before_compact":
        before, after = payload.get("instruction") or "", outcome.payload.get("instruction") or ""
        if after != before:
            # The host appends ours after its own, with a newline, as the packages' were.
            reply["instruction"] = (
                after[len(before) :].lstrip("\n") if after.startswith(before) else after
            )
        compaction = outcome.replaced.get("compaction")
        if isinstance(compaction, Compaction):
            reply["compaction"] = compaction.model_dump(exclude_none=True)
    return reply


async def _context(
    gateway: Gateway, payload: dict[str, Any], not_carried: Callable[[str], None]
) -> dict[str, Any]:
    """nimlet's ``context`` adds to the request; a runtime behind the gateway that replaced
    the messages (Pi's ``context``) cannot say so through it."""
    system = [s for s in payload.get("system") or [] if isinstance(s, str)]
    messages = [m for m in payload.get("messages") or [] if isinstance(m, dict)]
    result = await gateway.context(system, messages)
    reply: dict[str, Any] = {}
    if result.system[: len(system)] == system and len(result.system) > len(system):
        reply["system"] = result.system[len(system) :]
    if result.messages[: len(messages)] == messages:
        if len(result.messages) > len(messages):
            reply["messages"] = result.messages[len(messages) :]
    else:
        not_carried(
            "a package replaced the request's messages (Pi's context event); a nimlet host "
            "only takes additions, so the replacement was dropped"
        )
    return reply
