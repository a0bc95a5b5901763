"""nanobot hook factories on the gateway's canonical events.

nanobot builds one ``AgentHook`` per turn from each registered factory and calls its points
as the agent runs. The gateway has no agent loop of its own; it has lifecycle events. The
table ``POINTS`` says which point runs on which event (docs/nanobot.md has it with the
payloads); points with no event (streaming, per-iteration, reasoning, ``finalize_content``)
are reported once, at registration, as ``nanobot.hook_point_unmapped`` and never fire.

Which points a factory's hook implements is learnt by calling the factory once while the
package registers (a probe; the hook it returns is dropped), so the sidecar subscribes only
to the events it needs. ``turn_end`` is always subscribed: it ends the turn, and the next
event builds fresh hooks, as nanobot does per turn. Events arriving outside a turn (a
``gateway call`` without a turn, session events) build an implicit turn that lasts until
the next ``turn_start``, ``turn_end`` or ``session_end``.

Beyond nanobot, hooks may decide (the "gate" and "transform" rules of the catalogue):
``before_execute_tool`` may mutate ``params`` in place or return ``{"arguments": …}`` to
rewrite, or ``{"allow": False, "reason": …}`` to block; ``after_execute_tool`` /
``on_execute_tool_error`` may return a string (the new output) or ``{"output", "is_error"}``;
``before_compact`` may return ``{"allow", "reason", "instruction", "compaction"}``.
"""

from __future__ import annotations

import json

from ._channel import log
from ._shim_records import (
    AgentHookContext,
    AgentRunHookContext,
    AgentTurnHookContext,
    ToolCallRequest,
)

# For type checkers only: importing typing would cost the sidecar ≈7 ms at start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["POINTS", "UNMAPPED", "HookRegistration", "HookRunner", "implemented_points"]

POINTS: dict[str, str] = {
    # nanobot's AgentHook points
    "before_run": "turn_start",
    "after_run": "turn_end",
    "on_error": "turn_end",
    "on_finally": "turn_end",
    "before_execute_tool": "tool_call",
    "after_execute_tool": "tool_result",
    "on_execute_tool_error": "tool_result",
    # gateway additions: nanobot has no session or compaction hooks
    "on_session_start": "session_start",
    "on_session_end": "session_end",
    "before_compact": "session_before_compact",
    "after_compact": "session_compact",
}
UNMAPPED: tuple[str, ...] = (
    "wants_streaming",
    "before_iteration",
    "after_iteration",
    "on_stream",
    "on_stream_end",
    "on_provider_tool_event",
    "before_execute_tools",
    "emit_reasoning",
    "emit_reasoning_end",
    "finalize_content",
)
NATIVE_EVENTS = frozenset({"turn_start", "turn_end", "tool_call", "tool_result"})
_BASE_MODULE = "nanobot.agent.hook"


_ALL_POINTS = (*POINTS, *UNMAPPED)
_by_class: dict[type, frozenset[str]] = {}


def implemented_points(hook: Any) -> set[str]:
    """The points ``hook`` defines itself (not inherited from nanobot's no-op base).
    Asked on every event, so the class part is computed once per class."""
    cls = type(hook)
    points = _by_class.get(cls)
    if points is None:
        points = _by_class[cls] = frozenset(p for p in _ALL_POINTS if _defines(cls, p))
    own = getattr(hook, "__dict__", None)
    if own:
        return set(points) | {p for p in _ALL_POINTS if p in own}
    return set(points)


def _defines(cls: type, point: str) -> bool:
    for klass in cls.__mro__:
        if point in klass.__dict__:
            return klass.__module__ != _BASE_MODULE and klass is not object
    return False


class HookRegistration:
    __slots__ = ("events", "factory", "name", "owner")

    def __init__(self, owner: str, name: str, factory: Callable[..., Any], events: frozenset[str]):
        self.owner, self.name, self.factory, self.events = owner, name, factory, events


def turn_context(workspace: str, session_id: str) -> Any:
    return AgentTurnHookContext(
        workspace=workspace, chat_id=session_id, session_key=f"gateway:{session_id}"
    )


class _ToolView:
    """Stands for a tool this sidecar does not own (a built-in, another extension's)."""

    def __init__(self, name: str) -> None:
        self.name, self.description, self.parameters = name, "", {}


class _Turn:
    def __init__(self, hooks: list[tuple[HookRegistration, Any]], session_key: str) -> None:
        self.hooks = hooks
        self.run = AgentRunHookContext()
        self.iteration = AgentHookContext(session_key=session_key)
        self.pending: list[Any] = []
        self.calls = 0


class HookRunner:
    def __init__(self, lookup_tool: Callable[[str], Any]) -> None:
        self.registrations: list[HookRegistration] = []
        self.lookup_tool = lookup_tool
        self.workspace, self.session_id = "", ""
        self._turn: _Turn | None = None

    def events(self) -> set[str]:
        return {event for r in self.registrations for event in r.events}

    def remove_owner(self, owner: str) -> None:
        self.registrations = [r for r in self.registrations if r.owner != owner]

    # ------------------------------------------------------------------ turns

    def _open(self) -> _Turn:
        if self._turn is None:
            context = turn_context(self.workspace, self.session_id)
            hooks = []
            for registration in self.registrations:
                try:
                    hook = registration.factory(context)
                except Exception as error:
                    log(f"hook factory of {registration.owner} raised {error!r}; skipped")
                    continue
                if hook is not None:
                    hooks.append((registration, hook))
            self._turn = _Turn(hooks, context.session_key)
        return self._turn

    async def _call_one(
        self, registration: HookRegistration, hook: Any, event: str, point: str, *args: Any
    ) -> tuple[Any, Exception | None] | None:
        """Call one hook's point; None when it does not take part. An exception is logged
        and swallowed (nanobot's CompositeHook does the same) unless the hook was built
        with ``reraise=True``: then it is returned, and a gate event is blocked by it."""
        if event not in registration.events or point not in implemented_points(hook):
            return None
        try:
            result = getattr(hook, point)(*args)
            if hasattr(result, "__await__"):
                result = await result
        except Exception as error:
            log(f"{registration.owner}: {point} raised {error!r}")
            return (None, error) if getattr(hook, "_reraise", False) else (None, None)
        return result, None

    async def _call(
        self, turn: _Turn, event: str, point: str, *args: Any
    ) -> list[tuple[Any, Exception | None]]:
        """Call ``point`` on every hook of the turn that implements it, in order."""
        results = []
        for registration, hook in turn.hooks:
            outcome = await self._call_one(registration, hook, event, point, *args)
            if outcome is not None:
                results.append(outcome)
        return results

    # ------------------------------------------------------------------ events

    async def handle(self, event: str, payload: dict[str, Any]) -> dict[str, Any]:
        """The reply fields for one event (``{}`` acknowledges)."""
        self.session_id = str(payload.get("session_id") or self.session_id)
        self.workspace = str(payload.get("workspace") or self.workspace)
        if event == "turn_start":
            self._turn = None
            started = self._open()
            await self._call(started, event, "before_run", started.run)
            return {}
        turn = self._open()
        if event == "tool_call":
            return await self._tool_call(turn, payload)
        if event == "tool_result":
            return await self._tool_result(turn, payload)
        if event == "turn_end":
            turn.run.stop_reason = "interrupted" if payload.get("interrupted") else "completed"
            if payload.get("interrupted"):
                turn.run.error = "interrupted"
                await self._call(turn, event, "on_error", turn.run)
            else:
                await self._call(turn, event, "after_run", turn.run)
            await self._call(turn, event, "on_finally", turn.run)
            self._turn = None
            return {}
        point = next(p for p, e in POINTS.items() if e == event)
        results = await self._call(turn, event, point, dict(payload))
        if event == "session_end":
            self._turn = None
        return _compaction_reply(results) if event == "session_before_compact" else {}

    async def _tool_call(self, turn: _Turn, payload: dict[str, Any]) -> dict[str, Any]:
        name = str(payload.get("tool", ""))
        original = payload.get("arguments") or {}
        params = json.loads(json.dumps(original))  # a private copy for in-place edits
        turn.calls += 1
        call = ToolCallRequest(f"call_{turn.calls}", name, params)
        turn.pending.append(call)
        turn.iteration.tool_calls.append(call)
        tool = self.lookup_tool(name) or _ToolView(name)
        reasons = []
        for registration, hook in turn.hooks:
            outcome = await self._call_one(
                registration, hook, "tool_call", "before_execute_tool",
                turn.iteration, call, tool, params,
            )  # fmt: skip
            if outcome is None:
                continue
            result, error = outcome
            if error is not None:
                reasons.append(f"{registration.owner}: {error}")
            elif isinstance(result, dict):
                if isinstance(result.get("arguments"), dict):
                    params.clear()
                    params.update(result["arguments"])
                if result.get("allow") is False:
                    reasons.append(str(result.get("reason") or "blocked by extension"))
        reply: dict[str, Any] = {}
        if reasons:
            reply.update(allow=False, reason="; ".join(reasons))
        if params != original:
            reply["arguments"] = params
        return reply

    async def _tool_result(self, turn: _Turn, payload: dict[str, Any]) -> dict[str, Any]:
        name = str(payload.get("tool", ""))
        params = payload.get("arguments") or {}
        call = next((c for c in turn.pending if c.name == name), None)
        if call is not None:
            turn.pending.remove(call)
        else:
            turn.calls += 1
            call = ToolCallRequest(f"call_{turn.calls}", name, params)
        output, is_error = str(payload.get("output", "")), bool(payload.get("is_error"))
        first_output, first_error = output, is_error
        tool = self.lookup_tool(name) or _ToolView(name)
        for registration, hook in turn.hooks:
            if is_error:
                outcome = await self._call_one(
                    registration, hook, "tool_result", "on_execute_tool_error",
                    turn.iteration, call, tool, params, RuntimeError(output),
                )  # fmt: skip
            else:
                outcome = await self._call_one(
                    registration, hook, "tool_result", "after_execute_tool",
                    turn.iteration, call, tool, params, output,
                )  # fmt: skip
            result = outcome[0] if outcome is not None else None
            if isinstance(result, str):
                output = result
            elif isinstance(result, dict):
                output = str(result.get("output", output))
                is_error = bool(result.get("is_error", is_error))
        turn.run.tools_used.append(name)
        turn.iteration.tool_results.append(output)
        reply: dict[str, Any] = {}
        if output != first_output:
            reply["output"] = output
        if is_error != first_error:
            reply["is_error"] = is_error
        return reply


def _compaction_reply(results: list[tuple[Any, Exception | None]]) -> dict[str, Any]:
    """Gate (any ``allow: False`` blocks), instructions appended, the last compaction wins."""
    reply: dict[str, Any] = {}
    reasons, instructions = [], []
    for result, error in results:
        if error is not None:
            reasons.append(str(error))
            continue
        if not isinstance(result, dict):
            continue
        if result.get("allow") is False:
            reasons.append(str(result.get("reason") or "blocked by extension"))
        if isinstance(result.get("instruction"), str) and result["instruction"]:
            instructions.append(result["instruction"])
        if isinstance(result.get("compaction"), dict):
            reply["compaction"] = result["compaction"]
    if reasons:
        reply.update(allow=False, reason="; ".join(reasons))
    if instructions:
        reply["instruction"] = "\n".join(instructions)
    return reply
