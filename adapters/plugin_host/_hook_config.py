"""A Claude Code plugin's ``hooks.json``, read into the command hooks the gateway can run.

The format (Claude Code's hooks reference): ``{"hooks": {Event: [{"matcher": "...",
"hooks": [{"type": "command", "command": "...", "timeout": 30}]}]}}``. Every entry that
cannot run is a diagnostic and the others still load: a malformed entry
(``claude.hooks_invalid``), an event a headless host has no counterpart for
(``claude.hook_event_unsupported``), a hook of a type the format's host does not run here
(``claude.hook_type_unsupported``: ``prompt`` and ``agent`` hooks need a model; ``http`` and
``mcp_tool`` hooks run only where the format has them, ``kinds``).

Three types run: ``command`` (``sh -c``), ``http`` (the event POSTed to ``url``, its
``headers`` filling ``$VAR`` / ``${VAR}`` only for the names ``allowedEnvVars`` lists) and
``mcp_tool`` (a tool of one of the plugin's own MCP servers, ``server`` / ``tool`` /
``input``).

Matchers follow Claude Code: absent, ``""`` or ``"*"`` match everything; a matcher of only
letters, digits, ``_`` and ``|`` is a list of exact names; anything else is a regular
expression searched in the name (``mcp__.*``, ``Notebook.*``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from adapters import _codes as adapters_codes
from adapters.plugin_host import _codes as codes
from adapters.plugin_host._remote_spec import url_problem

__all__ = [
    "DEFAULT_TIMEOUT",
    "EVENT_OF",
    "HOOK_KINDS",
    "UNSUPPORTED_EVENTS",
    "CommandHook",
    "Hook",
    "HookProblem",
    "HttpHook",
    "McpToolHook",
    "exact_names",
    "matcher_test",
    "read_hooks",
]

HOOK_KINDS: Final = ("command", "http", "mcp_tool")
"""The hook types the plugin host runs (Claude Code's; a format whose hooks are command
hooks only reads ``("command",)``)."""

DEFAULT_TIMEOUT: Final = 60.0
"""Seconds a hook command may run when it names no ``timeout``: Claude Code's first default
(its current one is 600 s; docs/claude-plugins.md says why the gateway keeps 60)."""

EVENT_OF: Final = {
    "PreToolUse": "tool_call",
    "PostToolUse": "tool_result",
    "UserPromptSubmit": "input",
    "SessionStart": "session_start",
    "SessionEnd": "session_end",
    "PreCompact": "session_before_compact",
    "PostCompact": "session_compact",
}
"""Claude Code's events that have a gateway event (``gateway.model.events``)."""

UNSUPPORTED_EVENTS: Final = {
    "Stop": "a headless host has no 'agent wants to stop' point to keep it going",
    "SubagentStop": "the gateway runs no subagents",
    "SubagentStart": "the gateway runs no subagents",
    "Notification": "a headless host sends no user notifications",
    "PermissionRequest": "the gateway's permission prompts are its own",
    "PostToolUseFailure": "the gateway has no separate event for a failed tool call",
    "Setup": "install runs no package code, and the gateway has no init or maintenance run",
    "ConfigChange": "the gateway has no event for a settings file changing mid-session",
    "InstructionsLoaded": "the gateway loads no CLAUDE.md or rules files",
    "StopFailure": "the gateway has no event for a turn ended by a model API error",
    "PermissionDenied": "the gateway's permission decisions are its own, with no auto-mode "
    "classifier to deny a call",
    "PostToolBatch": "the gateway has no event for the end of a batch of parallel tool calls",
    "UserPromptExpansion": "the gateway has no event for a slash command expanding",
    "CwdChanged": "a gateway session's working folder (its workspace) does not change",
    "FileChanged": "the gateway watches no files",
}
"""Claude Code's events with no gateway counterpart, and why."""

_SIMPLE = re.compile(r"[A-Za-z0-9_|]*")
_MATCHER_LIMIT = 1000


@dataclass(frozen=True, slots=True)
class CommandHook:
    """One ``type: command`` hook: its Claude event, the matcher it sits under, the shell
    command as written and its timeout in seconds."""

    event: str
    matcher: str
    command: str
    timeout: float
    where: str
    """Where it is in hooks.json (``PreToolUse[0].hooks[1]``), for diagnostics."""
    name: str = ""
    """Gemini CLI's ``name`` (part of what makes two hooks the same there)."""
    sequential: bool = False
    """Gemini CLI's group ``sequential``: the event's hooks run one after another."""

    @property
    def identity(self) -> str:
        """Identical hooks of one event run once (Claude Code: by command string)."""
        return f"command {self.command}"

    @property
    def shown(self) -> str:
        return self.command


@dataclass(frozen=True, slots=True)
class HttpHook:
    """One ``type: http`` hook: the event POSTed to ``url``."""

    event: str
    matcher: str
    url: str
    headers: dict[str, str]
    allowed_env: tuple[str, ...]
    timeout: float
    where: str

    @property
    def identity(self) -> str:
        return f"http {self.url}"  # Claude Code runs identical URLs once

    @property
    def sequential(self) -> bool:
        return False  # Claude Code runs an event's hooks at once

    @property
    def shown(self) -> str:
        return f"POST {self.url}"


@dataclass(frozen=True, slots=True)
class McpToolHook:
    """One ``type: mcp_tool`` hook: ``tool`` of the plugin's MCP server ``server``, called
    with ``input`` (its strings' ``${path}`` filled from the event's JSON)."""

    event: str
    matcher: str
    server: str
    tool: str
    input: dict[str, Any] = field(default_factory=dict)
    timeout: float = 60.0
    where: str = ""

    @property
    def identity(self) -> str:
        return f"mcp_tool {self.server} {self.tool} {json.dumps(self.input, sort_keys=True)}"

    @property
    def sequential(self) -> bool:
        return False

    @property
    def shown(self) -> str:
        return f"MCP tool {self.tool!r} of server {self.server!r}"


Hook = CommandHook | HttpHook | McpToolHook


@dataclass(frozen=True, slots=True)
class HookProblem:
    code: str
    message: str


def matcher_test(matcher: str) -> Callable[[str], bool] | None:
    """Claude Code's rule for ``matcher``; None when it is not a valid expression."""
    if matcher in ("", "*"):
        return lambda _name: True
    if _SIMPLE.fullmatch(matcher):
        names = frozenset(matcher.split("|"))
        return lambda name: name in names
    try:
        pattern = re.compile(matcher)
    except re.error:
        return None
    return lambda name: pattern.search(name) is not None


def exact_names(matcher: str) -> frozenset[str] | None:
    """The names ``matcher`` matches when it is a list of exact names (``matcher_test``'s
    second rule); None when it matches more (everything, or a regular expression)."""
    if matcher in ("", "*") or not _SIMPLE.fullmatch(matcher):
        return None
    return frozenset(matcher.split("|"))


def read_hooks(
    data: Any, kinds: Collection[str] = ("command",)
) -> tuple[list[Hook], list[HookProblem]]:
    """The hooks of a hooks.json object that run (of the types ``kinds``), in file order,
    and what could not load."""
    hooks: list[Hook] = []
    problems: list[HookProblem] = []

    def problem(code: str, message: str) -> None:
        problems.append(HookProblem(code, f"hooks.json: {message}"))

    if not isinstance(data, Mapping):
        problem(adapters_codes.CLAUDE_HOOKS_INVALID.code, "the top level is not an object")
        return hooks, problems
    events = data.get("hooks")
    if events is None and any(key in EVENT_OF or key in UNSUPPORTED_EVENTS for key in data):
        events = data  # the settings form, without the plugin's `hooks` wrapper
    if not isinstance(events, Mapping):
        problem(adapters_codes.CLAUDE_HOOKS_INVALID.code, "`hooks` is not an object of events")
        return hooks, problems
    for event, groups in events.items():
        name = str(event)
        if name not in EVENT_OF:
            why = UNSUPPORTED_EVENTS.get(name, "not a Claude Code event the gateway knows")
            problem(
                adapters_codes.CLAUDE_HOOK_EVENT_UNSUPPORTED.code,
                f"{name!r} hooks never run in the gateway ({why})",
            )
            continue
        if not isinstance(groups, list):
            problem(
                adapters_codes.CLAUDE_HOOKS_INVALID.code, f"{name} is not a list of matcher groups"
            )
            continue
        for index, group in enumerate(groups):
            hooks += _group(name, index, group, problem, kinds)
    return hooks, problems


def _group(
    event: str,
    index: int,
    group: Any,
    problem: Callable[[str, str], None],
    kinds: Collection[str],
) -> list[Hook]:
    where = f"{event}[{index}]"
    invalid = adapters_codes.CLAUDE_HOOKS_INVALID.code
    if not isinstance(group, Mapping):
        problem(invalid, f"{where} is not an object")
        return []
    matcher = group.get("matcher", "")
    if matcher is None:
        matcher = ""
    if not isinstance(matcher, str) or len(matcher) > _MATCHER_LIMIT:
        problem(invalid, f"{where}.matcher is not a string (of at most {_MATCHER_LIMIT})")
        return []
    if matcher_test(matcher) is None:
        problem(invalid, f"{where}.matcher {matcher!r} is not a valid regular expression")
        return []
    entries = group.get("hooks")
    if not isinstance(entries, list):
        problem(invalid, f"{where}.hooks is not a list")
        return []
    found: list[Hook] = []
    for position, entry in enumerate(entries):
        label = f"{where}.hooks[{position}]"
        if not isinstance(entry, Mapping):
            problem(invalid, f"{label} is not an object")
            continue
        kind = entry.get("type", "command")
        if kind not in kinds:
            why = (
                "it needs a model to answer, and the gateway runs none for a hook"
                if kind in ("prompt", "agent")
                else "this format's hooks are command hooks"
                if kind in HOOK_KINDS
                else "not a hook type the gateway knows"
            )
            problem(
                codes.CLAUDE_HOOK_TYPE_UNSUPPORTED.code,
                f"{label} is a {kind!r} hook; it never runs in the gateway ({why})",
            )
            continue
        timeout = entry.get("timeout", DEFAULT_TIMEOUT)
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, int | float)
            or not math.isfinite(timeout)
            or timeout <= 0
        ):
            problem(invalid, f"{label}.timeout is not a positive number of seconds")
            continue
        made = _hook(event, matcher, entry, float(timeout), label)
        if isinstance(made, str):
            problem(invalid, f"{label}{made}")
        else:
            found.append(made)
    return found


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _hook(
    event: str, matcher: str, entry: Mapping[str, Any], timeout: float, label: str
) -> Hook | str:
    """The hook, or what is wrong with it (appended to its label)."""
    kind = entry.get("type", "command")
    if kind == "http":
        url, headers = entry.get("url"), entry.get("headers", {})
        allowed = entry.get("allowedEnvVars", [])
        if not isinstance(url, str) or not url:
            return ".url is not a non-empty string"
        if not isinstance(headers, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
        ):
            return ".headers is not an object of strings"
        if not isinstance(allowed, list) or not all(
            isinstance(n, str) and _NAME.fullmatch(n) for n in allowed
        ):
            return ".allowedEnvVars is not a list of variable names"
        wrong = url_problem(url, headers)
        if wrong is not None:
            return f": {wrong}"
        return HttpHook(event, matcher, url, dict(headers), tuple(allowed), timeout, label)
    if kind == "mcp_tool":
        server, tool, arguments = entry.get("server"), entry.get("tool"), entry.get("input", {})
        if not isinstance(server, str) or not server:
            return ".server is not a non-empty string"
        if not isinstance(tool, str) or not tool:
            return ".tool is not a non-empty string"
        if not isinstance(arguments, Mapping):
            return ".input is not an object"
        return McpToolHook(event, matcher, server, tool, dict(arguments), timeout, label)
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip() or "\x00" in command:
        return ".command is not a non-empty string"
    return CommandHook(event, matcher, command, timeout, label)
