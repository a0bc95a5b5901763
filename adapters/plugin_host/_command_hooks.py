"""Claude Code command hooks (a plugin's ``hooks.json``) on the gateway's hook chain.

``CommandHooks.from_config`` reads the hooks; ``events`` names the gateway events to
subscribe to; ``dispatch`` runs every hook that matches an event — all of them, at once, as
Claude Code does (the same command twice runs once) — and folds their answers into the reply
fields of the gateway event (``gateway.model.events``):

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
- SessionEnd → ``session_end``; PreCompact → ``session_before_compact`` (a block stops it).

A hook that fails without exit code 2 — another code, a timeout, a crash — is a diagnostic
and the event goes on (fail-open, as in Claude Code). Hook commands are children of the
plugin host: they run inside the package's sandbox. ``http`` hooks (``_http_hooks``: the
event POSTed, through the package's network grant) and ``mcp_tool`` hooks
(``_mcp_tool_hooks``: a tool of the plugin's own servers) answer the same way, their body or
text read as a command's stdout.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any, Final

import anyio

from adapters.plugin_host import _codes as codes
from adapters.plugin_host._hook_answers import Answer, json_object, read_reply
from adapters.plugin_host._hook_config import (
    EVENT_OF,
    CommandHook,
    Hook,
    HttpHook,
    exact_names,
    matcher_test,
    read_hooks,
)
from adapters.plugin_host._hook_process import HookRun, run_hook_command
from gateway.base import printable

if TYPE_CHECKING:
    from adapters.plugin_host._mcp_tool_hooks import ToolCaller

__all__ = ["CommandHooks"]

_CLAUDE_OF: Final = {gateway: claude for claude, gateway in EVENT_OF.items()}
_SOURCES: Final = {"new": "clear", "resume": "resume", "fork": "resume", "compact": "compact"}
_END_REASONS: Final = {"new": "clear", "resume": "other", "quit": "prompt_input_exit"}
_MESSAGE_LIMIT = 2000
_CONTEXT_EVENTS = ("UserPromptSubmit", "SessionStart")
"""Events whose plain stdout (exit 0, not JSON) Claude Code adds to the context."""


class CommandHooks:
    """A plugin's command hooks, dispatched for gateway events."""

    def __init__(
        self,
        hooks: list[Hook],
        *,
        root: str,
        data_dir: str,
        env: Mapping[str, str],
        diagnostics: list[dict[str, Any]] | None = None,
        package: str = "",
    ) -> None:
        self._hooks = hooks
        self._package = package
        self.call_tool: ToolCaller | None = None
        """How an ``mcp_tool`` hook calls its tool (set once the servers run)."""
        self._root = root
        self._data_dir = data_dir
        self._env = dict(env)
        self._cwd = os.getcwd()
        self._session_id = ""
        self._session_context: list[str] = []
        self._ids = itertools.count(1)
        self.diagnostics: list[dict[str, Any]] = list(diagnostics or [])
        """Nimlet-protocol diagnostics (``{"code", "message"}``): the hooks.json problems
        first, then what happened at run time."""
        self._reported = 0
        self._said: set[tuple[str, str]] = set()

    @classmethod
    def from_config(
        cls,
        hooks: dict[str, Any],
        *,
        root: str,
        data_dir: str,
        env: dict[str, str],
        kinds: Collection[str] = ("command",),
        package: str = "",
    ) -> CommandHooks:
        """``hooks``: the parsed hooks.json object. ``env``: added to the host's own
        environment for every hook command (and what an http hook's headers may name).
        ``kinds``: the hook types the format has (``_hook_config.ALL_KINDS`` for Claude
        Code's). ``package``: the package's id, for the grant an http hook needs."""
        found, problems = read_hooks(hooks, kinds)
        diagnostics = [{"code": p.code, "message": printable(p.message)} for p in problems]
        return cls(
            found, root=root, data_dir=data_dir, env=env, diagnostics=diagnostics,
            package=package,
        )  # fmt: skip

    def new_diagnostics(self) -> list[dict[str, Any]]:
        """The diagnostics added since the last call (the first call: all of them), for a
        host that reports run-time problems as they happen (``update.diagnostics``)."""
        fresh = self.diagnostics[self._reported :]
        self._reported = len(self.diagnostics)
        return fresh

    @property
    def longest_timeout(self) -> float:
        """The longest any one event can take (its hooks run at once): the longest hook
        timeout, 0 without hooks."""
        return max((hook.timeout for hook in self._hooks), default=0.0)

    @property
    def hooks(self) -> list[Hook]:
        return list(self._hooks)

    @property
    def events(self) -> list[str]:
        """The gateway events to subscribe to (``before_agent_start`` carries SessionStart's
        context; ``session_compact`` is SessionStart with source ``compact``)."""
        claude = {hook.event for hook in self._hooks}
        names = [gateway for event, gateway in EVENT_OF.items() if event in claude]
        if "SessionStart" in claude:
            names += ["session_compact", "before_agent_start"]
        return list(dict.fromkeys(names))

    @property
    def hook_tools(self) -> dict[str, list[str]]:
        """``register.hook_tools``: ``tool_call`` / ``tool_result`` → the only tools their
        hooks can run for, when every matcher of that event lists exact names (a regular
        expression, ``*`` or no matcher: the event is left out, every tool may match)."""
        narrowed: dict[str, list[str]] = {}
        for claude in ("PreToolUse", "PostToolUse"):
            matchers = [hook.matcher for hook in self._hooks if hook.event == claude]
            names = [exact_names(matcher) for matcher in matchers]
            if matchers and all(found is not None for found in names):
                narrowed[EVENT_OF[claude]] = sorted(set().union(*filter(None, names)))
        return narrowed

    async def dispatch(
        self, event: str, payload: dict[str, Any], *, trace: Mapping[str, str] | None = None
    ) -> dict[str, Any]:
        """Run the hooks for one gateway event; the reply fields for that event. ``trace``:
        the event's W3C trace context, given to each hook command as ``TRACEPARENT`` /
        ``TRACESTATE``."""
        if event == "before_agent_start":
            system = payload.get("system_prompt")
            if not self._session_context or not isinstance(system, str):
                return {}
            return {
                "system_prompt": "\n\n".join(
                    [system, *self._session_context] if system else self._session_context
                )
            }
        if event == "session_compact":
            # Claude Code runs its PostCompact hooks, then starts the session again (source
            # "compact"), and its SessionStart hooks put their context back.
            if not payload.get("did_compact"):
                return {}
            await self._run_event("PostCompact", payload, trace)
            return await self._run_event("SessionStart", {**payload, "reason": "compact"}, trace)
        claude = _CLAUDE_OF.get(event)
        return {} if claude is None else await self._run_event(claude, payload, trace)

    async def _run_event(
        self, claude: str, payload: dict[str, Any], trace: Mapping[str, str] | None
    ) -> dict[str, Any]:
        self._remember(payload)
        stdin = self._stdin(claude, payload)
        subject = _subject(claude, stdin)
        chosen: dict[str, Hook] = {}
        for hook in self._hooks:
            test = matcher_test("" if claude in _NO_MATCHER else hook.matcher)
            if hook.event == claude and test is not None and test(subject):
                chosen.setdefault(hook.identity, hook)  # identical hooks run once
        if not chosen and claude != "SessionStart":
            return {}
        answers = await self._run_all(list(chosen.values()), stdin, trace or {})
        return self._fold(claude, payload, answers)

    # -- running -----------------------------------------------------------------------

    async def _run_all(
        self, hooks: list[Hook], stdin: dict[str, Any], trace: Mapping[str, str]
    ) -> list[Answer]:
        data = json.dumps(stdin, ensure_ascii=False, default=str).encode("utf-8", "replace")
        runs: list[HookRun | None] = [None] * len(hooks)

        async def one(index: int, hook: Hook) -> None:
            runs[index] = await self._run_one(hook, data, stdin, trace)

        async with anyio.create_task_group() as group:
            for index, hook in enumerate(hooks):
                group.start_soon(one, index, hook)
        return [self._read(hook, run) for hook, run in zip(hooks, runs, strict=True) if run]

    async def _run_one(
        self, hook: Hook, data: bytes, stdin: dict[str, Any], trace: Mapping[str, str]
    ) -> HookRun:
        if isinstance(hook, CommandHook):
            # ${CLAUDE_PLUGIN_ROOT} is left to the shell, from the environment: a folder
            # name never becomes shell syntax.
            return await run_hook_command(
                hook.command, data, seconds=hook.timeout, cwd=self._cwd, env=self._child_env(trace)
            )
        if isinstance(hook, HttpHook):
            from adapters.plugin_host._http_hooks import post_hook

            env = {**os.environ, **self._env}
            return await post_hook(hook, data, env=env, package=self._package)
        from adapters.plugin_host._mcp_tool_hooks import fill_input

        if self.call_tool is None:
            return HookRun(None, "", "", "could not call it: the plugin has no MCP servers")
        return await self.call_tool(hook, fill_input(hook.input, stdin))

    def _child_env(self, trace: Mapping[str, str]) -> dict[str, str]:
        env = {**os.environ, **self._env}
        env.update({key.upper(): value for key, value in trace.items()})
        env["CLAUDE_PLUGIN_ROOT"] = self._root
        env["CLAUDE_PLUGIN_DATA"] = self._data_dir
        env["CLAUDE_PROJECT_DIR"] = self._cwd
        # Codex gives plugin hooks both names (its own and Claude's, for compatibility).
        env["PLUGIN_ROOT"], env["PLUGIN_DATA"] = self._root, self._data_dir
        return env

    def _read(self, hook: Hook, run: HookRun) -> Answer:
        answer = Answer()
        if run.failure is not None or run.exit_code not in (0, 2):
            if run.code in _STANDING and (run.code, hook.identity) in self._said:
                return answer  # it stays so until the host restarts: said once
            self._said.add((run.code or "", hook.identity))
            why = run.failure or f"exited with {run.exit_code}"
            detail = run.stderr.strip()
            self._report(
                run.code or codes.CLAUDE_HOOK_FAILED.code,
                f"{hook.where} ({hook.shown}) {why}; ignored" + (f": {detail}" if detail else ""),
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
        read_reply(reply, answer)
        return answer

    # -- folding -----------------------------------------------------------------------

    def _fold(self, claude: str, payload: dict[str, Any], answers: list[Answer]) -> dict[str, Any]:
        for answer in answers:
            for message in answer.shown:
                self._log(f"{claude} hook says: {message}")
        blocks = [a.block for a in answers if a.block]
        stops = [a.stop for a in answers if a.stop]
        asks = [a.ask for a in answers if a.ask]
        context = [text for a in answers for text in a.context]
        if claude == "PreToolUse":
            if stops:
                self._ignored("continue: false on PreToolUse blocks the call, not the agent")
            if asks:
                self._ignored("permissionDecision 'ask' blocks the call: no one to ask here")
            reasons = [*blocks, *stops, *(f"needs the user's confirmation: {a}" for a in asks)]
            if reasons:
                return {"allow": False, "reason": "; ".join(reasons)}
            updated = [a.updated_input for a in answers if a.updated_input is not None]
            if context:
                self._ignored("additionalContext on PreToolUse has no place in tool_call")
            return {"arguments": updated[-1]} if updated else {}
        if claude == "PostToolUse":
            if stops:
                self._ignored("continue: false on PostToolUse cannot stop the agent")
            feedback = [*blocks, *stops, *context]
            output = payload.get("output")
            if feedback and isinstance(output, str):
                return {"output": "\n\n".join([output, *feedback] if output else feedback)}
            return {}
        if claude == "UserPromptSubmit":
            if blocks or stops:
                joined = "; ".join([*blocks, *stops])
                self._ignored(f"the prompt was blocked; the reason is for the user: {joined}")
                return {"action": "handled"}
            text = payload.get("text")
            if context and isinstance(text, str):
                return {"text": "\n\n".join([text, *context]), "action": "transform"}
            return {}
        if claude == "SessionStart":
            self._session_context = context
        if claude == "PreCompact" and (blocks or stops):
            return {"allow": False, "reason": "; ".join([*blocks, *stops])}
        if blocks or stops:
            said = "; ".join([*blocks, *stops])
            self._ignored(f"{claude} cannot be blocked or stopped; for the user: {said}")
        return {}

    # -- the event Claude Code's way -----------------------------------------------------

    def _remember(self, payload: Mapping[str, Any]) -> None:
        session = payload.get("session_id")
        if isinstance(session, str):
            self._session_id = session
        workspace = payload.get("workspace")
        if isinstance(workspace, str) and workspace and os.path.isabs(workspace):
            self._cwd = workspace

    def _stdin(self, claude: str, payload: Mapping[str, Any]) -> dict[str, Any]:
        data: dict[str, Any] = {
            "session_id": self._session_id,
            "transcript_path": "",
            "cwd": self._cwd,
            "permission_mode": "default",
            "hook_event_name": claude,
        }
        reason = str(payload.get("reason") or "")
        if claude in ("PreToolUse", "PostToolUse"):
            data["tool_name"] = str(payload.get("tool", ""))
            data["tool_input"] = payload.get("arguments") or {}
            data["tool_use_id"] = f"toolu_gateway_{next(self._ids)}"
            if claude == "PostToolUse":
                data["tool_response"] = payload.get("output", "")
        elif claude == "UserPromptSubmit":
            data["prompt"] = str(payload.get("text", ""))
        elif claude == "SessionStart":
            data["source"] = _SOURCES.get(reason, "startup")
        elif claude == "SessionEnd":
            data["reason"] = _END_REASONS.get(reason, "other")
        elif claude == "PostCompact":
            data["trigger"] = "manual"
            data["compact_summary"] = str(payload.get("summary") or "")
        elif claude == "PreCompact":
            data["trigger"] = "manual"
            data["custom_instructions"] = str(payload.get("instruction") or "")
        return data

    # -- diagnostics -------------------------------------------------------------------

    def _ignored(self, message: str) -> None:
        self._report(codes.CLAUDE_HOOK_OUTPUT_IGNORED.code, message)

    def _report(self, code: str, message: str) -> None:
        text = printable(message[:_MESSAGE_LIMIT])
        self.diagnostics.append({"code": code, "message": text})
        self._log(f"{code}: {text}")

    def _log(self, message: str) -> None:
        print(printable(message[:_MESSAGE_LIMIT]), file=sys.stderr, flush=True)


def _subject(claude: str, stdin: Mapping[str, Any]) -> str:
    """What a matcher is tested against (Claude Code: the tool name, or the event's
    source / trigger / reason)."""
    key = {"SessionStart": "source", "PreCompact": "trigger", "PostCompact": "trigger",
           "SessionEnd": "reason"}  # fmt: skip
    return str(stdin.get(key.get(claude, "tool_name"), ""))


_STANDING: Final = frozenset(
    {codes.CLAUDE_HOOK_HTTP_NOT_GRANTED.code, codes.CLAUDE_HOOK_MCP_SERVER_UNKNOWN.code}
)
"""Failures that last as long as the host (its grants, its servers): reported once."""

_NO_MATCHER: Final = frozenset({"UserPromptSubmit"})
"""Events Claude Code runs every hook of, whatever its matcher says."""
