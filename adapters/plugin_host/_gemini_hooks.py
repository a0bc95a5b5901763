"""Gemini CLI's hook protocol for ``_command_hooks``, as ``@google/gemini-cli@0.61.0`` runs an
extension's command hooks (core ``HookRunner``, ``HookPlanner``, ``HookAggregator``,
``executeToolWithHooks``; docs/hooks/reference.md of its package):

- stdin: ``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name``, ``timestamp``
  and the event's fields; the command runs in the workspace with ``GEMINI_PROJECT_DIR``,
  ``GEMINI_CWD``, ``GEMINI_SESSION_ID``, ``CLAUDE_PROJECT_DIR`` (and ``GEMINI_PLANS_DIR``:
  here the package's data folder) in its environment.
- the answer: stdout (or, when it is empty, stderr) as JSON; text that is not JSON is a
  message for the user after exit 0 or 1 and a denial with that text as its reason after
  any other exit code (so exit 2 with a reason on stderr blocks). A timeout, a crash or
  exit 1 is ``gemini.hook_failed`` and the event goes on.
- matchers: for BeforeTool/AfterTool a regular expression searched in the tool's name (an
  invalid one: the exact name); for SessionStart/SessionEnd/PreCompress the exact
  source/reason/trigger; ``""`` and ``"*"`` match everything.
- an event's hooks run at once, or one after another when a definition says
  ``sequential: true`` (each then reads the tool input / prompt the previous one made).

Folding (Gemini CLI's OR of decisions): BeforeTool → ``tool_call``: ``decision`` ``deny`` /
``block`` (or exit 2) blocks the call with its reason, ``hookSpecificOutput.tool_input`` is
merged over the arguments. AfterTool → ``tool_result``: a denial replaces the output with
``Tool result blocked: REASON`` (an error), ``additionalContext`` is appended in
``<hook_context>``. BeforeAgent → ``input``: a denial (or ``continue: false``) drops the
prompt, ``additionalContext`` is appended to it. SessionStart → ``session_start``: its
``additionalContext`` joins the system prompt of each prompt of the session. SessionEnd,
PreCompress: advisory, as in Gemini CLI.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from adapters.plugin_host import _codes as codes
from adapters.plugin_host._gemini_hook_config import GEMINI_EVENT_OF
from adapters.plugin_host._hook_config import CommandHook, Hook
from adapters.plugin_host._hook_process import HookRun
from adapters.plugin_host._hook_protocol import Answer, HookState, text_field

__all__ = ["GeminiProtocol"]

_SOURCES: Final = {"new": "clear", "resume": "resume", "fork": "resume"}
_END_REASONS: Final = {"new": "clear", "quit": "exit"}
_TRIGGER_OF: Final = {"SessionStart": "source", "SessionEnd": "reason", "PreCompress": "trigger"}
_ADVISORY: Final = frozenset({"SessionStart", "SessionEnd", "PreCompress"})


class GeminiProtocol:
    event_of: Mapping[str, str] = GEMINI_EVENT_OF
    failed_code: str = codes.GEMINI_HOOK_FAILED.code
    ignored_code: str = codes.GEMINI_HOOK_OUTPUT_IGNORED.code
    context_event: str | None = "SessionStart"

    def runs(self, event: str, payload: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        found = [name for name, gateway in GEMINI_EVENT_OF.items() if gateway == event]
        return [(found[0], dict(payload))] if found else []

    def events(self, present: set[str]) -> list[str]:
        names = [gateway for event, gateway in GEMINI_EVENT_OF.items() if event in present]
        if "SessionStart" in present:
            names.append("before_agent_start")
        return names

    def narrowing(self, matcher: str) -> frozenset[str] | None:
        return None  # a regular expression searched in the name: any tool may match

    def matches(self, hook: Hook, event: str, stdin: Mapping[str, Any]) -> bool:
        matcher = hook.matcher.strip()
        if matcher in ("", "*"):
            return True
        if event in ("BeforeTool", "AfterTool"):
            name = str(stdin.get("tool_name", ""))
            try:
                return re.search(matcher, name) is not None
            except re.error:
                return matcher == name
        subject = _TRIGGER_OF.get(event)
        return subject is None or matcher == stdin.get(subject)

    def key(self, hook: Hook) -> str:
        # Gemini CLI's hooks are command hooks (``read_gemini_hooks``).
        return f"{hook.name}:{hook.command}" if isinstance(hook, CommandHook) else hook.identity

    def stdin(self, event: str, payload: Mapping[str, Any], state: HookState) -> dict[str, Any]:
        now = datetime.datetime.now(datetime.UTC)
        data: dict[str, Any] = {
            "session_id": state.session_id,
            "transcript_path": "",
            "cwd": state.cwd,
            "hook_event_name": event,
            "timestamp": now.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        }
        reason = str(payload.get("reason") or "")
        if event in ("BeforeTool", "AfterTool"):
            data["tool_name"] = str(payload.get("tool", ""))
            arguments = payload.get("arguments")
            data["tool_input"] = arguments if isinstance(arguments, dict) else {}
            if event == "AfterTool":
                output = payload.get("output", "")
                response: dict[str, Any] = {"llmContent": output, "returnDisplay": output}
                if payload.get("is_error") is True:
                    response["error"] = {"message": output}
                data["tool_response"] = response
        elif event == "BeforeAgent":
            data["prompt"] = str(payload.get("text", ""))
        elif event == "SessionStart":
            data["source"] = _SOURCES.get(reason, "startup")
        elif event == "SessionEnd":
            data["reason"] = _END_REASONS.get(reason, "other")
        elif event == "PreCompress":
            data["trigger"] = "manual"
        return data

    def env(self, state: HookState) -> dict[str, str]:
        return {
            "GEMINI_PROJECT_DIR": state.cwd,
            "GEMINI_CWD": state.cwd,
            "GEMINI_SESSION_ID": state.session_id,
            "GEMINI_PLANS_DIR": state.data_dir,
            "CLAUDE_PROJECT_DIR": state.cwd,
        }

    def read(self, hook: Hook, run: HookRun, report: Callable[[str], None]) -> Answer:
        answer = Answer()
        name = hook.name if isinstance(hook, CommandHook) else ""
        label = f"{hook.where} ({name or hook.shown})"
        if run.failure is not None:
            report(f"{label} {run.failure}; ignored")
            return answer
        code = run.exit_code or 0
        text = run.stdout.strip() or run.stderr.strip()
        if code not in (0, 2):
            report(f"{label} exited with {code}" + (f": {text}" if text else ""))
        if not text:
            return answer
        output = _json_output(text)
        if output is _NOT_JSON:  # not JSON: Gemini CLI's convertPlainTextToHookOutput
            if code == 0:
                answer.shown.append(text)
            elif code == 1:
                answer.shown.append(f"Warning: {text}")
            else:
                answer.block = text
            return answer
        if isinstance(output, dict):
            _read_output(output, answer)
        return answer

    def next_stdin(self, event: str, stdin: dict[str, Any], answer: Answer) -> dict[str, Any]:
        if event == "BeforeTool" and answer.updated_input:
            return {**stdin, "tool_input": {**stdin.get("tool_input", {}), **answer.updated_input}}
        if event == "BeforeAgent" and answer.context:
            return {**stdin, "prompt": "\n\n".join([stdin.get("prompt", ""), *answer.context])}
        return stdin

    def fold(
        self,
        event: str,
        payload: Mapping[str, Any],
        answers: list[Answer],
        state: HookState,
        ignored: Callable[[str], None],
    ) -> dict[str, Any]:
        stops = [a.stop for a in answers if a.stop]
        blocks = [a.block for a in answers if a.block]
        asks = [a.ask for a in answers if a.ask]
        context = "\n".join(text for a in answers for text in a.context)
        reason = "\n".join(stops) or "\n".join(blocks)
        if event in _ADVISORY:
            if event == "SessionStart":
                state.session_context = [context] if context else []
            if stops or blocks or asks:
                ignored(f"{event} hooks are advisory in Gemini CLI; for the user: {reason}")
            return {}
        if stops:
            ignored(f"continue: false on {event} stops Gemini CLI's agent loop; the gateway "
                    f"stops only this {'call' if event == 'BeforeTool' else 'step'}")  # fmt: skip
        if event == "BeforeTool":
            return _before_tool(payload, answers, reason, asks, context, ignored)
        if event == "AfterTool":
            output = payload.get("output")
            if reason:
                stopped = "Agent execution stopped by hook" if stops else "Tool result blocked"
                return {"output": f"{stopped}: {reason}", "is_error": True}
            if asks:
                ignored("decision 'ask' on AfterTool has no effect in Gemini CLI")
            if context and isinstance(output, str):
                return {"output": f"{output}\n\n<hook_context>{context}</hook_context>"}
            return {}
        # BeforeAgent
        if reason:
            ignored(f"the prompt was blocked; the reason is for the user: {reason}")
            return {"action": "handled"}
        text = payload.get("text")
        if context and isinstance(text, str):
            return {"text": f"{text}\n\n{context}", "action": "transform"}
        return {}


def _before_tool(
    payload: Mapping[str, Any],
    answers: list[Answer],
    reason: str,
    asks: list[str],
    context: str,
    ignored: Callable[[str], None],
) -> dict[str, Any]:
    if reason:
        return {"allow": False, "reason": reason}
    if asks:
        ignored("decision 'ask' blocks the call: no one to confirm it here")
        return {"allow": False, "reason": "needs the user's confirmation: " + "; ".join(asks)}
    if context:
        ignored("additionalContext on BeforeTool has no place in tool_call")
    updates = [a.updated_input for a in answers if a.updated_input]
    if not updates:
        return {}
    arguments = payload.get("arguments")
    merged = dict(arguments) if isinstance(arguments, dict) else {}
    for update in updates:
        merged.update(update)
    return {"arguments": merged}


_NOT_JSON: Final = object()


def _json_output(text: str) -> object:
    """Gemini CLI's parse: JSON, a JSON string holding JSON read once more; ``_NOT_JSON``
    when it is not JSON."""
    try:
        value = json.loads(text)
        if isinstance(value, str):
            value = json.loads(value)
    except ValueError:
        return _NOT_JSON
    return value


def _read_output(output: Mapping[str, Any], answer: Answer) -> None:
    reason = text_field(output.get("stopReason")) or text_field(output.get("reason"))
    if output.get("continue") is False:
        answer.stop = reason or "No reason provided"
    decision = output.get("decision")
    if decision in ("block", "deny"):
        answer.block = reason or "No reason provided"
    elif decision == "ask":
        answer.ask = reason or "a hook asks for confirmation"
    message = text_field(output.get("systemMessage"))
    if message:
        answer.shown.append(message)
    specific = output.get("hookSpecificOutput")
    if not isinstance(specific, Mapping):
        return
    tool_input = specific.get("tool_input")
    if isinstance(tool_input, dict):
        answer.updated_input = tool_input
    context = specific.get("additionalContext")
    if isinstance(context, str) and context:
        answer.context.append(context.replace("<", "&lt;").replace(">", "&gt;"))
    if "tailToolCallRequest" in specific:
        answer.ignored.append("tailToolCallRequest: the gateway runs no tail tool calls")
    if specific.get("clearContext") is True:
        answer.ignored.append("clearContext: a hook cannot clear the gateway's history")
