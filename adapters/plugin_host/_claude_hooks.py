"""Claude Code's hook protocol (Codex's too) for ``_command_hooks``: what each event's hook
reads, its environment, how its answer is read and folded into the gateway event's reply.

- PreToolUse → ``tool_call``: exit code 2 (stderr is the reason), ``decision: "block"``,
  ``permissionDecision: "deny"`` or ``"ask"`` (no one to ask), ``continue: false`` block
  the call (``allow: false``, the reasons joined); ``updatedInput`` replaces ``arguments``.
- PostToolUse → ``tool_result``: the tool already ran; what Claude Code feeds back to the
  model (exit 2's stderr, a block's reason, ``additionalContext``) is appended to ``output``.
- UserPromptSubmit → ``input``: a block erases the prompt (``action: "handled"``); plain
  stdout and ``additionalContext`` are appended to the text the agent sees.
- SessionStart → ``session_start``; its context (plain stdout, ``additionalContext``) is
  appended to the system prompt each time the agent runs on a prompt in that session
  (``before_agent_start``, an extended event: the host negotiates ``events.extended``, under
  which ``context`` would mean Pi's chained one).
- SessionEnd → ``session_end``; PreCompact → ``session_before_compact`` (a block stops it);
  ``session_compact`` runs PostCompact, then SessionStart with source ``compact``.

A hook that fails without exit code 2 — another code, a timeout, a crash — is a diagnostic
and the event goes on (fail-open, as in Claude Code).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from adapters.plugin_host import _codes as codes
from adapters.plugin_host._hook_config import EVENT_OF, Hook, exact_names, matcher_test
from adapters.plugin_host._hook_process import HookRun
from adapters.plugin_host._hook_protocol import Answer, HookState, json_object, text_field

__all__ = ["ClaudeProtocol"]

_SOURCES: Final = {"new": "clear", "resume": "resume", "fork": "resume", "compact": "compact"}
_END_REASONS: Final = {"new": "clear", "resume": "other", "quit": "prompt_input_exit"}
_CONTEXT_EVENTS: Final = ("UserPromptSubmit", "SessionStart")
"""Events whose plain stdout (exit 0, not JSON) Claude Code adds to the context."""
_NO_MATCHER: Final = frozenset({"UserPromptSubmit"})
"""Events Claude Code runs every hook of, whatever its matcher says."""
_SUBJECT: Final = {"SessionStart": "source", "PreCompact": "trigger", "PostCompact": "trigger",
                   "SessionEnd": "reason"}  # fmt: skip
"""What a matcher is tested against (the tool name for the others)."""


class ClaudeProtocol:
    event_of: Mapping[str, str] = EVENT_OF
    failed_code: str = codes.CLAUDE_HOOK_FAILED.code
    ignored_code: str = codes.CLAUDE_HOOK_OUTPUT_IGNORED.code
    context_event: str | None = "SessionStart"

    def runs(self, event: str, payload: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        if event == "session_compact":
            # Claude Code runs its PostCompact hooks, then starts the session again (source
            # "compact"), and its SessionStart hooks put their context back.
            if not payload.get("did_compact"):
                return []
            return [("PostCompact", dict(payload)),
                    ("SessionStart", {**payload, "reason": "compact"})]  # fmt: skip
        found = [claude for claude, gateway in EVENT_OF.items() if gateway == event]
        return [(found[0], dict(payload))] if found else []

    def events(self, present: set[str]) -> list[str]:
        names = [gateway for event, gateway in EVENT_OF.items() if event in present]
        if "SessionStart" in present:
            names += ["session_compact", "before_agent_start"]
        return list(dict.fromkeys(names))

    def narrowing(self, matcher: str) -> frozenset[str] | None:
        return exact_names(matcher)

    def matches(self, hook: Hook, event: str, stdin: Mapping[str, Any]) -> bool:
        test = matcher_test("" if event in _NO_MATCHER else hook.matcher)
        return test is not None and test(str(stdin.get(_SUBJECT.get(event, "tool_name"), "")))

    def key(self, hook: Hook) -> str:
        return hook.identity  # the same command (url, tool and input) twice runs once

    def stdin(self, event: str, payload: Mapping[str, Any], state: HookState) -> dict[str, Any]:
        data: dict[str, Any] = {
            "session_id": state.session_id,
            "transcript_path": "",
            "cwd": state.cwd,
            "permission_mode": "default",
            "hook_event_name": event,
        }
        reason = str(payload.get("reason") or "")
        if event in ("PreToolUse", "PostToolUse"):
            state.calls += 1
            data["tool_name"] = str(payload.get("tool", ""))
            data["tool_input"] = payload.get("arguments") or {}
            data["tool_use_id"] = f"toolu_gateway_{state.calls}"
            if event == "PostToolUse":
                data["tool_response"] = payload.get("output", "")
        elif event == "UserPromptSubmit":
            data["prompt"] = str(payload.get("text", ""))
        elif event == "SessionStart":
            data["source"] = _SOURCES.get(reason, "startup")
        elif event == "SessionEnd":
            data["reason"] = _END_REASONS.get(reason, "other")
        elif event == "PostCompact":
            data["trigger"] = "manual"
            data["compact_summary"] = str(payload.get("summary") or "")
        elif event == "PreCompact":
            data["trigger"] = "manual"
            data["custom_instructions"] = str(payload.get("instruction") or "")
        return data

    def env(self, state: HookState) -> dict[str, str]:
        # ${CLAUDE_PLUGIN_ROOT} is left to the shell, from the environment: a folder name
        # never becomes shell syntax. Codex gives plugin hooks both names (its own and
        # Claude's, for compatibility).
        return {
            "CLAUDE_PLUGIN_ROOT": state.root,
            "CLAUDE_PLUGIN_DATA": state.data_dir,
            "CLAUDE_PROJECT_DIR": state.cwd,
            "PLUGIN_ROOT": state.root,
            "PLUGIN_DATA": state.data_dir,
        }

    def read(self, hook: Hook, run: HookRun, report: Callable[[str], None]) -> Answer:
        """A command's exit code and stdout; an http hook's body and an mcp_tool hook's
        text are read as a command's stdout (exit 0)."""
        answer = Answer()
        if run.failure is not None or run.exit_code not in (0, 2):
            why = run.failure or f"exited with {run.exit_code}"
            detail = run.stderr.strip()
            report(
                f"{hook.where} ({hook.shown}) {why}; ignored" + (f": {detail}" if detail else "")
            )
            return answer
        if run.exit_code == 2:
            answer.block = run.stderr.strip() or f"blocked by {hook.event} hook"
            return answer
        text = run.stdout.strip()
        reply = json_object(text)
        if reply is None:
            if text and hook.event in _CONTEXT_EVENTS:
                answer.context.append(text)
            return answer
        _read_reply(reply, answer)
        return answer

    def next_stdin(self, event: str, stdin: dict[str, Any], answer: Answer) -> dict[str, Any]:
        return stdin  # Claude Code runs an event's hooks at once

    def fold(
        self,
        event: str,
        payload: Mapping[str, Any],
        answers: list[Answer],
        state: HookState,
        ignored: Callable[[str], None],
    ) -> dict[str, Any]:
        blocks = [a.block for a in answers if a.block]
        stops = [a.stop for a in answers if a.stop]
        asks = [a.ask for a in answers if a.ask]
        context = [text for a in answers for text in a.context]
        if event == "PreToolUse":
            if stops:
                ignored("continue: false on PreToolUse blocks the call, not the agent")
            if asks:
                ignored("permissionDecision 'ask' blocks the call: no one to ask here")
            reasons = [*blocks, *stops, *(f"needs the user's confirmation: {a}" for a in asks)]
            if reasons:
                return {"allow": False, "reason": "; ".join(reasons)}
            updated = [a.updated_input for a in answers if a.updated_input is not None]
            if context:
                ignored("additionalContext on PreToolUse has no place in tool_call")
            return {"arguments": updated[-1]} if updated else {}
        if event == "PostToolUse":
            if stops:
                ignored("continue: false on PostToolUse cannot stop the agent")
            feedback = [*blocks, *stops, *context]
            output = payload.get("output")
            if feedback and isinstance(output, str):
                return {"output": "\n\n".join([output, *feedback] if output else feedback)}
            return {}
        if event == "UserPromptSubmit":
            if blocks or stops:
                joined = "; ".join([*blocks, *stops])
                ignored(f"the prompt was blocked; the reason is for the user: {joined}")
                return {"action": "handled"}
            text = payload.get("text")
            if context and isinstance(text, str):
                return {"text": "\n\n".join([text, *context]), "action": "transform"}
            return {}
        if event == "SessionStart":
            state.session_context = context
        if event == "PreCompact" and (blocks or stops):
            return {"allow": False, "reason": "; ".join([*blocks, *stops])}
        if blocks or stops:
            said = "; ".join([*blocks, *stops])
            ignored(f"{event} cannot be blocked or stopped; for the user: {said}")
        return {}


def _read_reply(reply: Mapping[str, Any], answer: Answer) -> None:
    """Claude Code's JSON output (a command's stdout, an http hook's body, an mcp_tool
    hook's text): the common fields, ``decision``/``reason``, and the
    event's ``hookSpecificOutput``."""
    reason = text_field(reply.get("reason"))
    if reply.get("continue") is False:
        answer.stop = text_field(reply.get("stopReason")) or "stopped by hook"
    if reply.get("decision") == "block":
        answer.block = reason or "blocked by hook"
    message = text_field(reply.get("systemMessage"))
    if message:
        answer.shown.append(message)
    specific = reply.get("hookSpecificOutput")
    if not isinstance(specific, Mapping):
        return
    decision = specific.get("permissionDecision")
    why = text_field(specific.get("permissionDecisionReason"))
    if decision == "deny":
        answer.block = why or reason or "denied by hook"
    elif decision == "ask":
        answer.ask = why or "a hook asks for confirmation"
    updated = specific.get("updatedInput")
    if isinstance(updated, dict) and decision != "deny":
        answer.updated_input = updated
    context = text_field(specific.get("additionalContext"))
    if context:
        answer.context.append(context)
