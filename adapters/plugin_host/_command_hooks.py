"""Command hooks (a plugin's ``hooks.json``) on the gateway's hook chain, for the hook
protocols the plugin host speaks: Claude Code's (Claude Code and Codex plugins,
``_claude_hooks``) and Gemini CLI's (``_gemini_hooks``).

``CommandHooks.from_config`` reads the hooks; ``events`` names the gateway events to
subscribe to; ``dispatch`` runs every hook that matches an event — at once, or one after
another where the protocol says so (the same hook twice runs once) — and folds their
answers into the reply fields of the gateway event (``gateway.model.events``) by the
protocol's rules. A SessionStart hook's context is appended to the system prompt each time
the agent runs on a prompt in that session (``before_agent_start``, an extended event).

A hook that fails is a diagnostic and the event goes on (fail-open, as in both agents).
Hook commands are children of the plugin host: they run inside the package's sandbox.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import Any, Final

import anyio

from adapters.plugin_host._hook_config import CommandHook, read_hooks
from adapters.plugin_host._hook_process import HookRun, run_hook_command
from adapters.plugin_host._hook_protocol import Answer, HookProtocol, HookState
from gateway.base import printable

__all__ = ["PROTOCOLS", "CommandHooks"]

PROTOCOLS: Final = ("claude", "gemini")
"""The hook protocols (the host configuration's ``hook_protocol``)."""
_MESSAGE_LIMIT = 2000


def protocol_named(name: str) -> HookProtocol:
    if name == "gemini":
        from adapters.plugin_host._gemini_hooks import GeminiProtocol

        return GeminiProtocol()
    from adapters.plugin_host._claude_hooks import ClaudeProtocol

    return ClaudeProtocol()


def read_protocol_hooks(protocol: str, data: Any) -> tuple[list[CommandHook], list[Any]]:
    """The command hooks of a hooks.json object by ``protocol``'s reader, and its problems."""
    if protocol == "gemini":
        from adapters.plugin_host._gemini_hook_config import read_gemini_hooks

        return read_gemini_hooks(data)
    found, problems = read_hooks(data)
    return found, list(problems)


class CommandHooks:
    """A plugin's command hooks, dispatched for gateway events by one hook protocol."""

    def __init__(
        self,
        hooks: list[CommandHook],
        *,
        root: str,
        data_dir: str,
        env: Mapping[str, str],
        diagnostics: list[dict[str, Any]] | None = None,
        protocol: str = "claude",
    ) -> None:
        self._hooks = hooks
        self._protocol = protocol_named(protocol)
        self._env = dict(env)
        self._state = HookState(root=root, data_dir=data_dir, cwd=os.getcwd())
        self.diagnostics: list[dict[str, Any]] = list(diagnostics or [])
        """Nimlet-protocol diagnostics (``{"code", "message"}``): the hooks.json problems
        first, then what happened at run time."""
        self._reported = 0

    @classmethod
    def from_config(
        cls,
        hooks: dict[str, Any],
        *,
        root: str,
        data_dir: str,
        env: dict[str, str],
        protocol: str = "claude",
    ) -> CommandHooks:
        """``hooks``: the parsed hooks.json object; ``protocol``: ``claude`` (Claude Code,
        Codex) or ``gemini`` (Gemini CLI). ``env``: added to the host's own environment for
        every hook command."""
        found, problems = read_protocol_hooks(protocol, hooks)
        diagnostics = [{"code": p.code, "message": printable(p.message)} for p in problems]
        return cls(
            found, root=root, data_dir=data_dir, env=env, diagnostics=diagnostics,
            protocol=protocol,
        )  # fmt: skip

    def new_diagnostics(self) -> list[dict[str, Any]]:
        """The diagnostics added since the last call (the first call: all of them), for a
        host that reports run-time problems as they happen (``update.diagnostics``)."""
        fresh = self.diagnostics[self._reported :]
        self._reported = len(self.diagnostics)
        return fresh

    @property
    def longest_timeout(self) -> float:
        """The longest any one event can take: the longest hook timeout (the sum of them
        where an event's hooks run one after another), 0 without hooks."""
        sequential = sum(hook.timeout for hook in self._hooks if hook.sequential)
        return max([sequential, *(hook.timeout for hook in self._hooks)], default=0.0)

    @property
    def hooks(self) -> list[CommandHook]:
        return list(self._hooks)

    @property
    def events(self) -> list[str]:
        """The gateway events to subscribe to."""
        return self._protocol.events({hook.event for hook in self._hooks})

    @property
    def hook_tools(self) -> dict[str, list[str]]:
        """``register.hook_tools``: ``tool_call`` / ``tool_result`` → the only tools their
        hooks can run for, when every matcher of that event lists exact names (a regular
        expression, ``*`` or no matcher: the event is left out, every tool may match)."""
        narrowed: dict[str, list[str]] = {}
        for event, gateway in self._protocol.event_of.items():
            if gateway not in ("tool_call", "tool_result"):
                continue
            matchers = [hook.matcher for hook in self._hooks if hook.event == event]
            names = [self._protocol.narrowing(matcher) for matcher in matchers]
            if matchers and all(found is not None for found in names):
                narrowed[gateway] = sorted(set().union(*filter(None, names)))
        return narrowed

    async def dispatch(
        self, event: str, payload: dict[str, Any], *, trace: Mapping[str, str] | None = None
    ) -> dict[str, Any]:
        """Run the hooks for one gateway event; the reply fields for that event. ``trace``:
        the event's W3C trace context, given to each hook command as ``TRACEPARENT`` /
        ``TRACESTATE``."""
        if event == "before_agent_start":
            system = payload.get("system_prompt")
            context = self._state.session_context
            if not context or not isinstance(system, str):
                return {}
            return {"system_prompt": "\n\n".join([system, *context] if system else context)}
        reply: dict[str, Any] = {}
        for name, data in self._protocol.runs(event, payload):
            reply = await self._run_event(name, data, trace)
        return reply

    async def _run_event(
        self, name: str, payload: dict[str, Any], trace: Mapping[str, str] | None
    ) -> dict[str, Any]:
        self._remember(payload)
        protocol = self._protocol
        stdin = protocol.stdin(name, payload, self._state)
        chosen: dict[str, CommandHook] = {}
        for hook in self._hooks:
            if hook.event == name and protocol.matches(hook, name, stdin):
                chosen.setdefault(protocol.key(hook), hook)  # identical hooks run once
        if not chosen and name != protocol.context_event:
            return {}
        hooks = list(chosen.values())
        if any(hook.sequential for hook in hooks):
            answers = []
            for hook in hooks:
                answers += await self._run_all([hook], stdin, trace or {})
                if answers:
                    stdin = protocol.next_stdin(name, stdin, answers[-1])
        else:
            answers = await self._run_all(hooks, stdin, trace or {})
        for answer in answers:
            for message in answer.shown:
                self._log(f"{name} hook says: {message}")
            for message in answer.ignored:
                self._ignored(message)
        return protocol.fold(name, payload, answers, self._state, self._ignored)

    async def _run_all(
        self, hooks: list[CommandHook], stdin: dict[str, Any], trace: Mapping[str, str]
    ) -> list[Answer]:
        data = json.dumps(stdin, ensure_ascii=False, default=str).encode("utf-8", "replace")
        runs: list[HookRun | None] = [None] * len(hooks)

        async def one(index: int, hook: CommandHook) -> None:
            runs[index] = await run_hook_command(
                hook.command, data, seconds=hook.timeout, cwd=self._state.cwd,
                env=self._child_env(trace),
            )  # fmt: skip

        async with anyio.create_task_group() as group:
            for index, hook in enumerate(hooks):
                group.start_soon(one, index, hook)
        failed = self._protocol.failed_code
        return [
            self._protocol.read(hook, run, lambda message: self._report(failed, message))
            for hook, run in zip(hooks, runs, strict=True)
            if run
        ]

    def _child_env(self, trace: Mapping[str, str]) -> dict[str, str]:
        env = {**os.environ, **self._env}
        env.update({key.upper(): value for key, value in trace.items()})
        env.update(self._protocol.env(self._state))
        return env

    def _remember(self, payload: Mapping[str, Any]) -> None:
        session = payload.get("session_id")
        if isinstance(session, str):
            self._state.session_id = session
        workspace = payload.get("workspace")
        if isinstance(workspace, str) and workspace and os.path.isabs(workspace):
            self._state.cwd = workspace

    # -- diagnostics -------------------------------------------------------------------

    def _ignored(self, message: str) -> None:
        self._report(self._protocol.ignored_code, message)

    def _report(self, code: str, message: str) -> None:
        text = printable(message[:_MESSAGE_LIMIT])
        self.diagnostics.append({"code": code, "message": text})
        self._log(f"{code}: {text}")

    def _log(self, message: str) -> None:
        print(printable(message[:_MESSAGE_LIMIT]), file=sys.stderr, flush=True)
