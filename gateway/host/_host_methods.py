"""Current nimlet's ``host_request`` methods, answered as upstream answers them:
``model.complete``, ``ui.editor``, ``session.info``, ``session.name``, ``context.usage``.
What the gateway itself cannot do (a completion, an editor) comes from the embedding agent
(``AgentLink``); without it, the answer is nimlet's when the interface has none."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from gateway.host._state import GatewayState
from gateway.host.editor import UNAVAILABLE
from gateway.model import CompletionRequest, EditRequest
from gateway.wire import HostRequest, HostResponse

__all__ = ["UPSTREAM_METHODS", "HostMethods", "estimate_tokens"]

NO_MODEL = "no model is available: the embedding agent gave the gateway no completion handler"


def estimate_tokens(messages: list[dict[str, Any]]) -> int:
    """About four characters a token, over the JSON of the messages."""
    characters = sum(len(json.dumps(message, ensure_ascii=False)) for message in messages)
    return (characters + 3) // 4


class HostMethods:
    def __init__(self, state: GatewayState) -> None:
        self._state = state
        self._methods: dict[str, Callable[[str, dict[str, Any]], Awaitable[HostResponse]]] = {
            "model.complete": self._complete,
            "ui.editor": self._editor,
            "session.info": self._session_info,
            "session.name": self._session_name,
            "context.usage": self._context_usage,
        }

    def __contains__(self, method: object) -> bool:
        return method in self._methods

    async def answer(self, owner: str, request: HostRequest) -> HostResponse:
        arguments = {**request.arguments(), "owner": owner}
        return await self._methods[request.method](request.id, arguments)

    async def _complete(self, rid: str, arguments: dict[str, Any]) -> HostResponse:
        prompt = arguments.get("prompt")
        if not isinstance(prompt, str) or not prompt:
            return HostResponse(id=rid, error="prompt is required")
        complete = self._state.agent.complete
        if complete is None:
            return HostResponse(id=rid, error=NO_MODEL)
        system = arguments.get("system_prompt")
        limit = arguments.get("max_tokens")
        if not (isinstance(limit, int) and not isinstance(limit, bool) and limit > 0):
            limit = self._state.agent.max_tokens
        try:
            done = await complete(
                CompletionRequest(
                    prompt=prompt,
                    system_prompt=system if isinstance(system, str) else "",
                    max_tokens=limit,
                    owner=str(arguments["owner"]),
                )
            )
        except Exception as error:  # the provider's message goes back, as nimlet does
            return HostResponse(id=rid, error=str(error) or type(error).__name__)
        return HostResponse(
            id=rid,
            result={"text": done.text, "model": done.model, "finish_reason": done.finish_reason},
        )

    async def _editor(self, rid: str, arguments: dict[str, Any]) -> HostResponse:
        title, text = arguments.get("title"), arguments.get("text")
        edit = self._state.agent.edit_text
        if edit is None:
            return HostResponse(id=rid, result={"cancelled": True, "error": UNAVAILABLE})
        async with self._state.dialog:
            done = await edit(
                EditRequest(
                    title if isinstance(title, str) else "", text if isinstance(text, str) else ""
                )
            )
        if done.text is None:
            return HostResponse(id=rid, result={"cancelled": True, "error": done.error})
        return HostResponse(id=rid, result={"text": done.text})

    async def _session_info(self, rid: str, arguments: dict[str, Any]) -> HostResponse:
        session = self._state.session
        return HostResponse(
            id=rid,
            result={
                "id": session.id,
                "name": session.name,
                "path": str(session.path),
                "workspace": str(session.workspace),
                "event_count": session.entry_count,
            },
        )

    async def _session_name(self, rid: str, arguments: dict[str, Any]) -> HostResponse:
        session = self._state.session
        if "name" in arguments:
            name = arguments["name"]
            session.set_name(name if isinstance(name, str) else "")
        return HostResponse(id=rid, result={"name": session.name})

    async def _context_usage(self, rid: str, arguments: dict[str, Any]) -> HostResponse:
        tokens = estimate_tokens(self._state.model_messages())
        limit = max(0, self._state.agent.context_window)
        percent = min(100, tokens * 100 // limit) if limit else 0
        return HostResponse(id=rid, result={"tokens": tokens, "limit": limit, "percent": percent})


UPSTREAM_METHODS = frozenset(
    {"model.complete", "ui.editor", "session.info", "session.name", "context.usage"}
)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
