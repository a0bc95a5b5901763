"""Command hooks (a plugin's ``hooks.json``) on the gateway's hook chain, for the hook
protocols the plugin host speaks: Claude Code's (Claude Code and Codex plugins,
``_claude_hooks``) and Gemini CLI's (``_gemini_hooks``).

``CommandHooks.from_config`` reads the hooks; ``events`` names the gateway events to
subscribe to; ``dispatch`` runs every hook that matches an event — at once, or one after
another where the protocol says so (the same hook twice runs once) — and folds their
answers into the reply fields of the gateway event (``gateway.model.events``) by the
protocol's rules. A SessionStart hook's context is appended to the system prompt each time
the agent runs on a prompt in that session (``before_agent_start``, an extended event).

How a hook is run is the runner's (``_run_one``): a ``command`` hook is a child of the
plugin host, inside the package's sandbox; Claude Code's ``http`` hooks (``_http_hooks``:
the event POSTed, through the package's network grant) and ``mcp_tool`` hooks
(``_mcp_tool_hooks``: a tool of the plugin's own servers) answer the same way, their body or
text read by the protocol as a command's stdout. What an answer means is the protocol's.

A hook that fails is a diagnostic and the event goes on (fail-open, as in both agents); a
failure that lasts as long as the host (no grant for an http hook's URL, a server that is
not the plugin's) is said once per hook.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any, Final

import anyio

from adapters.plugin_host import _codes as codes
from adapters.plugin_host._hook_config import CommandHook, Hook, HttpHook, read_hooks
from adapters.plugin_host._hook_process import HookRun, run_hook_command
from adapters.plugin_host._hook_protocol import Answer, HookProtocol, HookState
from gateway.base import printable

if TYPE_CHECKING:
    from adapters.plugin_host._mcp_tool_hooks import ToolCaller

__all__ = ["PROTOCOLS", "CommandHooks"]

PROTOCOLS: Final = ("claude", "gemini")
"""The hook protocols (the host configuration's ``hook_protocol``)."""
_MESSAGE_LIMIT = 2000
_STANDING: Final = frozenset(
    {codes.CLAUDE_HOOK_HTTP_NOT_GRANTED.code, codes.CLAUDE_HOOK_MCP_SERVER_UNKNOWN.code}
)
"""Failures that last as long as the host (its grants, its servers): reported once."""


def protocol_named(name: str) -> HookProtocol:
    if name == "gemini":
        from adapters.plugin_host._gemini_hooks import GeminiProtocol

        return GeminiProtocol()
    from adapters.plugin_host._claude_hooks import ClaudeProtocol

    return ClaudeProtocol()


def read_protocol_hooks(
    protocol: str, data: Any, kinds: Collection[str] = ("command",)
) -> tuple[list[Hook], list[Any]]:
    """The hooks of a hooks.json object by ``protocol``'s reader (of the types ``kinds``,
    Claude Code's; Gemini CLI's hooks are command hooks), and its problems."""
    if protocol == "gemini":
        from adapters.plugin_host._gemini_hook_config import read_gemini_hooks

        commands, trouble = read_gemini_hooks(data)
        return list(commands), list(trouble)
    found, problems = read_hooks(data, kinds)
    return found, list(problems)


class CommandHooks:
    """A plugin's hooks, dispatched for gateway events by one hook protocol."""

    def __init__(
        self,
        hooks: list[Hook],
        *,
        root: str,
        data_dir: str,
        env: Mapping[str, str],
        diagnostics: list[dict[str, Any]] | None = None,
        protocol: str = "claude",
        package: str = "",
    ) -> None:
        self._hooks = hooks
        self._package = package
        self.call_tool: ToolCaller | None = None
        """How an ``mcp_tool`` hook calls its tool (set once the servers run)."""
        self._protocol = protocol_named(protocol)
        self._env = dict(env)
        self._state = HookState(root=root, data_dir=data_dir, cwd=os.getcwd())
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
        protocol: str = "claude",
        kinds: Collection[str] = ("command",),
        package: str = "",
    ) -> CommandHooks:
        """``hooks``: the parsed hooks.json object; ``protocol``: ``claude`` (Claude Code,
        Codex) or ``gemini`` (Gemini CLI). ``env``: added to the host's own environment for
        every hook command (and what an http hook's headers may name). ``kinds``: the hook
        types the format has (``_hook_config.HOOK_KINDS`` for Claude Code's). ``package``:
        the package's id, for the grant an http hook needs."""
        found, problems = read_protocol_hooks(protocol, hooks, kinds)
        diagnostics = [{"code": p.code, "message": printable(p.message)} for p in problems]
        return cls(
            found, root=root, data_dir=data_dir, env=env, diagnostics=diagnostics,
            protocol=protocol, package=package,
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
    def hooks(self) -> list[Hook]:
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
        chosen: dict[str, Hook] = {}
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
            return await run_hook_command(
                hook.command, data, seconds=hook.timeout, cwd=self._state.cwd,
                env=self._child_env(trace),
            )  # fmt: skip
        if isinstance(hook, HttpHook):
            from adapters.plugin_host._http_hooks import post_hook

            env = {**os.environ, **self._env}
            return await post_hook(hook, data, env=env, package=self._package)
        from adapters.plugin_host._mcp_tool_hooks import fill_input

        if self.call_tool is None:
            return HookRun(None, "", "", "could not call it: the plugin has no MCP servers")
        return await self.call_tool(hook, fill_input(hook.input, stdin))

    def _read(self, hook: Hook, run: HookRun) -> Answer:
        """The protocol's reading of one run; a failure is said with the run's own code
        (``claude.hook_failed`` by default), a standing one once per hook."""
        code = run.code or self._protocol.failed_code

        def report(message: str) -> None:
            if code in _STANDING:
                if (code, hook.identity) in self._said:
                    return  # it stays so until the host restarts: said once
                self._said.add((code, hook.identity))
            self._report(code, message)

        return self._protocol.read(hook, run, report)

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
