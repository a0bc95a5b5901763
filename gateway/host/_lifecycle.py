"""The lifecycle events an agent drives through the gateway, each folded by its rule in
the event catalogue: a user message (``input``), the start of an agent run
(``before_agent_start``), each model request (``context``) and compaction."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gateway.base import counted
from gateway.host._rewrites import RewriteGate
from gateway.host._state import GatewayState
from gateway.model import (
    HOOK_FAILED,
    PLAN_EVENTS,
    AgentStartResult,
    CompactionReason,
    CompactionResult,
    EventOutcome,
    InputResult,
    ModelContext,
    Summarizer,
    ToolEntry,
    dispatch,
)

__all__ = ["Lifecycle"]


class Lifecycle:
    def __init__(self, state: GatewayState) -> None:
        self._state = state
        self.rewrites = RewriteGate(state)
        """Whether a hook may change a tool's call or result (``hooks.rewrite``)."""

    async def emit(
        self, event: str, payload: dict[str, Any], tool: ToolEntry | None = None
    ) -> EventOutcome:
        """Dispatch one lifecycle event to its subscribers (in plan mode only ``context``).
        ``tool``: the tool a ``tool_call`` / ``tool_result`` is about (else the registry's
        tool of the payload's name): only its own package's hooks change it freely."""
        state = self._state
        subscribers = state.registry.hooks(event)
        name = payload.get("tool")
        if isinstance(name, str) and any(hook.tools is not None for hook in subscribers):
            # Hooks whose runtime said they cannot apply to this tool are not asked (nor
            # their dormant process started): their answer would be "no change".
            subscribers = [h for h in subscribers if h.tools is None or name in h.tools]
        if (state.plan and event not in PLAN_EVENTS) or not subscribers:
            return EventOutcome(event, payload)
        spec = state.catalogue[event]
        check = self.rewrites.check(event, payload, tool) if spec.acts_on_tool else None
        return await dispatch(spec, payload, subscribers, state.diagnostics, check)

    async def submit_input(self, text: str, source: str) -> InputResult:
        outcome = await self.emit("input", {"text": text, "source": source})
        final = outcome.payload.get("text")
        final = final if isinstance(final, str) else text
        if outcome.stopped:
            action = "handled"
        elif final != text or "transform" in outcome.collected.get("action", ()):
            action = "transform"
        else:
            action = "continue"
        return InputResult(action, final, source, outcome.stopped_by)

    async def before_agent_start(self, prompt: str, system_prompt: str) -> AgentStartResult:
        outcome = await self.emit(
            "before_agent_start", {"prompt": prompt, "system_prompt": system_prompt}
        )
        final = outcome.payload.get("system_prompt")
        messages = self._message_list(outcome.collected.get("messages", []), "before_agent_start")
        rewritten = outcome.payload.get("prompt")
        return AgentStartResult(
            final if isinstance(final, str) else system_prompt,
            messages,
            rewritten if isinstance(rewritten, str) and rewritten != prompt else None,
        )

    async def context(self, system: list[str], messages: list[dict[str, Any]]) -> ModelContext:
        """One model request: runtimes that replace the messages (Pi's ``context``,
        chained) go first; then nimlet's ``context``: each subscriber sees the same payload,
        and what they add (system blocks, messages) is appended for this request only."""
        system, messages = list(system), list(messages)
        replaced = await self.emit("context_transform", {"system": system, "messages": messages})
        final = replaced.payload.get("messages")
        if isinstance(final, list) and final is not messages:
            messages = self._message_list(final, "context")
        added = await self.emit("context", {"system": list(system), "messages": list(messages)})
        extra_system = self._strings(added.collected.get("system", []))
        extra_messages = [
            message
            for message in added.collected.get("messages", [])
            if self._context_message(message)
        ]
        return ModelContext([*system, *extra_system], [*messages, *extra_messages])

    def _strings(self, items: list[Any]) -> list[str]:
        kept = [item for item in items if isinstance(item, str)]
        if len(kept) != len(items):
            ignored = counted(len(items) - len(kept), "non-text system addition")
            self._state.diagnostics.add(HOOK_FAILED(f"context: ignored {ignored}"))
        return kept

    def _context_message(self, message: Any) -> bool:
        """nimlet reads an added message by its ``type`` (a user or assistant message with
        content parts); anything else is ignored, with nimlet's warning."""
        if (
            isinstance(message, dict)
            and message.get("type") in ("user", "assistant")
            and isinstance(message.get("content"), list)
        ):
            return True
        self._state.diagnostics.add(
            HOOK_FAILED(f"extension context message ignored: {message!r:.120}")
        )
        return False

    def _message_list(self, items: Iterable[Any], event: str) -> list[dict[str, Any]]:
        listed = list(items)
        kept = [item for item in listed if isinstance(item, dict)]
        if len(kept) != len(listed):
            self._state.diagnostics.add(
                HOOK_FAILED(
                    f"{event}: dropped {counted(len(listed) - len(kept), 'non-object message')}"
                )
            )
        return kept

    async def compact(
        self,
        instruction: str,
        tokens_before: int,
        summarizer: Summarizer | None,
        *,
        reason: CompactionReason = "manual",
        will_retry: bool = False,
    ) -> CompactionResult:
        state = self._state
        session = state.session
        # Why it compacts, only when not a plain manual compaction (payloads stay as before).
        why: dict[str, Any] = {}
        if reason != "manual" or will_retry:
            why = {"reason": reason, "will_retry": will_retry}
        before = await self.emit(
            "session_before_compact",
            {**state.base_payload(), "instruction": instruction, "tokens_before": tokens_before,
             "entries": session.history(), **why},
        )  # fmt: skip
        final_instruction = before.payload.get("instruction") or ""
        if not before.allowed:
            result = CompactionResult(False, "", 0, before.reason, final_instruction, False)
        elif "compaction" in before.replaced:
            custom = before.replaced["compaction"]
            result = CompactionResult(
                True, custom.summary, custom.first_kept_index, "Compacted by extension",
                final_instruction, True,
            )  # fmt: skip
            session.append(
                {"type": "compaction", "summary": custom.summary,
                 "first_kept_index": custom.first_kept_index, "tokens_before": tokens_before,
                 "details": custom.details}
            )  # fmt: skip
        elif summarizer is not None:
            summary, kept = _summary(await summarizer(final_instruction, session.history()))
            result = CompactionResult(
                True, summary, kept, "Compacted context", final_instruction, False
            )
            session.append(
                {"type": "compaction", "summary": summary, "first_kept_index": kept,
                 "tokens_before": tokens_before}
            )  # fmt: skip
        else:
            result = CompactionResult(False, "", 0, "Nothing to compact", final_instruction, False)
        await self.emit(
            "session_compact",
            {**state.base_payload(), "did_compact": result.did_compact, "summary": result.summary,
             "first_kept_index": result.first_kept_index, "tokens_before": tokens_before,
             "message": result.message, **why},
        )  # fmt: skip
        return result


def _summary(returned: object) -> tuple[str, int]:
    """What a summarizer returned, checked: an embedder's mistake is named, not a failed
    unpacking deep inside the lifecycle."""
    if (
        isinstance(returned, tuple)
        and len(returned) == 2
        and isinstance(returned[0], str)
        and isinstance(returned[1], int)
        and not isinstance(returned[1], bool)
    ):
        return returned[0], returned[1]
    raise TypeError(
        "a summarizer returns (summary: str, first_kept_index: int), "
        f"got {type(returned).__name__}: {returned!r:.80}"
    )
