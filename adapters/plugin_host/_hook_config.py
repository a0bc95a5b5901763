"""A Claude Code plugin's ``hooks.json``, read into the command hooks the gateway can run.

The format (Claude Code's hooks reference): ``{"hooks": {Event: [{"matcher": "...",
"hooks": [{"type": "command", "command": "...", "timeout": 30}]}]}}``. Every entry that
cannot run is a diagnostic and the others still load: a malformed entry
(``claude.hooks_invalid``), an event a headless host has no counterpart for
(``claude.hook_event_unsupported``), a hook that is not a shell command
(``claude.hook_type_unsupported``).

Matchers follow Claude Code: absent, ``""`` or ``"*"`` match everything; a matcher of only
letters, digits, ``_`` and ``|`` is a list of exact names; anything else is a regular
expression searched in the name (``mcp__.*``, ``Notebook.*``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from adapters import _codes as adapters_codes
from adapters.plugin_host import _codes as codes

__all__ = [
    "DEFAULT_TIMEOUT",
    "EVENT_OF",
    "UNSUPPORTED_EVENTS",
    "CommandHook",
    "HookProblem",
    "exact_names",
    "matcher_test",
    "read_hooks",
]

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


def read_hooks(data: Any) -> tuple[list[CommandHook], list[HookProblem]]:
    """The command hooks of a hooks.json object, in file order, and what could not load."""
    hooks: list[CommandHook] = []
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
            hooks += _group(name, index, group, problem)
    return hooks, problems


def _group(
    event: str, index: int, group: Any, problem: Callable[[str, str], None]
) -> list[CommandHook]:
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
    found: list[CommandHook] = []
    for position, entry in enumerate(entries):
        label = f"{where}.hooks[{position}]"
        if not isinstance(entry, Mapping):
            problem(invalid, f"{label} is not an object")
            continue
        kind = entry.get("type", "command")
        if kind != "command":
            problem(
                codes.CLAUDE_HOOK_TYPE_UNSUPPORTED.code,
                f"{label} is a {kind!r} hook; the gateway runs command hooks only",
            )
            continue
        command = entry.get("command")
        if not isinstance(command, str) or not command.strip() or "\x00" in command:
            problem(invalid, f"{label}.command is not a non-empty string")
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
        found.append(CommandHook(event, matcher, command, float(timeout), label))
    return found
