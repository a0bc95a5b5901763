"""A Gemini CLI extension's ``hooks/hooks.json``, read into the command hooks the gateway can
run, by Gemini CLI's own rules (``@google/gemini-cli@0.61.0``: ``loadExtensionHooks`` in
the extension manager, ``HookRegistry.processHooksConfiguration`` and ``validateHookConfig``
in core; docs/hooks/reference.md of its package).

``{"hooks": {Event: [{"matcher": "...", "sequential": false, "hooks": [{"type": "command",
"command": "...", "name": "...", "timeout": 60000}]}]}}``: ``timeout`` in milliseconds
(default 60000). What Gemini CLI skips with a warning is ``gemini.hooks_invalid`` and
skipped here; an event with no gateway counterpart is ``gemini.hooks_not_run``, naming it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Final

from adapters import _codes as codes
from adapters.plugin_host import _codes as host_codes
from adapters.plugin_host._hook_config import CommandHook, HookProblem

__all__ = [
    "GEMINI_EVENTS",
    "GEMINI_EVENT_OF",
    "GEMINI_UNSUPPORTED_EVENTS",
    "read_gemini_hooks",
]

GEMINI_EVENT_OF: Final = {
    "BeforeTool": "tool_call",
    "AfterTool": "tool_result",
    "BeforeAgent": "input",
    "SessionStart": "session_start",
    "SessionEnd": "session_end",
    "PreCompress": "session_before_compact",
}
"""Gemini CLI's events that have a gateway event (``gateway.model.events``)."""

GEMINI_UNSUPPORTED_EVENTS: Final = {
    "AfterAgent": "the gateway cannot reject a finished turn and make the agent retry it",
    "BeforeModel": "the gateway's model request is its own; no hook rewrites or mocks it",
    "AfterModel": "the gateway does not hand model response chunks to hooks",
    "BeforeToolSelection": "the gateway's tool choice configuration is its own",
    "Notification": "a headless host sends no user notifications",
}
"""Gemini CLI's events with no gateway counterpart, and why."""

GEMINI_EVENTS: Final = frozenset(GEMINI_EVENT_OF) | frozenset(GEMINI_UNSUPPORTED_EVENTS)
_CONFIG_FIELDS: Final = frozenset({"enabled", "disabled", "notifications"})
"""Keys of a settings ``hooks`` object that are not events (Gemini CLI skips them)."""
DEFAULT_TIMEOUT_MS: Final = 60000
_MATCHER_LIMIT = 1000
_NAME_SHOWN = 100


def read_gemini_hooks(data: Any) -> tuple[list[CommandHook], list[HookProblem]]:
    """The command hooks of a Gemini hooks.json object, in file order (timeouts in
    seconds), and what could not load."""
    hooks: list[CommandHook] = []
    problems: list[HookProblem] = []

    def problem(code: str, message: str) -> None:
        problems.append(HookProblem(code, f"hooks/hooks.json: {message}"))

    invalid = host_codes.GEMINI_HOOKS_INVALID.code
    events = data.get("hooks") if isinstance(data, Mapping) else None
    if not isinstance(events, Mapping):
        problem(invalid, '"hooks" property must be an object; no hook runs')
        return hooks, problems
    for event, groups in events.items():
        name = str(event)
        if name in _CONFIG_FIELDS:
            continue
        if name not in GEMINI_EVENTS:
            problem(invalid, f"invalid hook event name {name[:_NAME_SHOWN]!r}; skipped")
            continue
        if name in GEMINI_UNSUPPORTED_EVENTS:
            problem(
                codes.GEMINI_HOOKS_NOT_RUN.code,
                f"{name!r} hooks never run in the gateway ({GEMINI_UNSUPPORTED_EVENTS[name]})",
            )
            continue
        if not isinstance(groups, list):
            problem(invalid, f"{name} is not an array of hook definitions; skipped")
            continue
        for index, group in enumerate(groups):
            hooks += _definition(name, index, group, lambda message: problem(invalid, message))
    return hooks, problems


def _definition(
    event: str, index: int, group: Any, problem: Callable[[str], None]
) -> list[CommandHook]:
    where = f"{event}[{index}]"
    if not isinstance(group, Mapping) or not isinstance(group.get("hooks"), list):
        problem(f"{where} is not a hook definition (an object with a `hooks` array); skipped")
        return []
    matcher = group.get("matcher")
    if matcher is None:
        matcher = ""
    if not isinstance(matcher, str) or len(matcher) > _MATCHER_LIMIT:
        problem(f"{where}.matcher is not a string (of at most {_MATCHER_LIMIT}); skipped")
        return []
    sequential = group.get("sequential") is True
    found: list[CommandHook] = []
    for position, entry in enumerate(group["hooks"]):
        label = f"{where}.hooks[{position}]"
        hook = _hook(event, matcher, sequential, label, entry, problem)
        if hook is not None:
            found.append(hook)
    return found


def _hook(
    event: str,
    matcher: str,
    sequential: bool,
    label: str,
    entry: Any,
    problem: Callable[[str], None],
) -> CommandHook | None:
    if not isinstance(entry, Mapping):
        problem(f"{label} is not an object; skipped")
        return None
    kind = entry.get("type")
    if kind != "command":
        what = "has no `type`" if kind is None else f"is of type {kind!r}"
        problem(f"{label} {what}; an extension's hooks run as `command` hooks only; skipped")
        return None
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip() or "\x00" in command:
        problem(f"{label} has no `command` (a non-empty string); skipped")
        return None
    timeout = entry.get("timeout", DEFAULT_TIMEOUT_MS)
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not math.isfinite(timeout)
        or timeout <= 0
    ):
        problem(f"{label}.timeout is not a positive number of milliseconds; skipped")
        return None
    name = entry.get("name")
    return CommandHook(
        event, matcher, command, float(timeout) / 1000, label,
        name=name if isinstance(name, str) else "", sequential=sequential,
    )  # fmt: skip
