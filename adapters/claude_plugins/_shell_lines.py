"""A slash command's ``!`` shell lines (`` !`cmd` ``, and ```` ```! ```` blocks) checked
against its ``allowed-tools`` as Claude Code checks them: a line runs only when a
``Bash(...)`` rule allows it. ``Bash`` (or ``Bash(*)``) allows any; ``Bash(cmd:*)`` a
command that starts with ``cmd``; ``Bash(git diff *)`` one matching the pattern (``*``: any
text); ``Bash(cmd)`` exactly ``cmd``. A line joining commands (``;``, ``&&``, ``|``,
redirections, substitutions) is allowed only by an unrestricted ``Bash``: each part would
need a rule of its own. An inline line is one only where ``!`` starts a line or follows
whitespace (``KEY=!`cmd``` is text), as Claude Code recognises them. Reads text only; runs
nothing (``_shell_render`` runs them, in the plugin host)."""

from __future__ import annotations

import contextlib
import re
import shlex
from typing import Any, Final

from adapters._files import Inspection
from adapters.claude_plugins import _codes as codes

__all__ = ["bash_rules", "is_allowed", "shell_line_issues", "shell_lines", "shell_spans"]

_INLINE = re.compile(r"(?<!\S)!`([^`\n]+)`")
_BLOCK = re.compile(r"^```!\n(.*?)^```", re.MULTILINE | re.DOTALL)
_RULE = re.compile(r"Bash(?:\((.*)\))?")
_JOINED = re.compile(r"[;&|<>`\n]|\$\(")
_SHOWN: Final = 200


def shell_spans(body: str) -> list[tuple[int, int, str]]:
    """``(start, end, command)`` of each of the body's ``!`` lines, in order; an inline
    one inside a block is part of the block."""
    blocks = [(m.start(), m.end(), m.group(1).strip()) for m in _BLOCK.finditer(body)]
    inline = [
        (m.start(), m.end(), m.group(1))
        for m in _INLINE.finditer(body)
        if not any(start <= m.start() < end for start, end, _ in blocks)
    ]
    return sorted(blocks + inline)


def shell_lines(body: str) -> list[str]:
    """The commands of the body's ``!`` lines, in order."""
    return [command for _, _, command in shell_spans(body)]


def bash_rules(allowed_tools: Any) -> list[str | None]:
    """The ``Bash`` rules of ``allowed-tools`` (a list, or a comma/space separated string);
    None stands for an unrestricted ``Bash``."""
    if isinstance(allowed_tools, str):
        items = re.findall(r"[A-Za-z_]\w*(?:\([^)]*\))?", allowed_tools)
    elif isinstance(allowed_tools, list):
        items = [item.strip() for item in allowed_tools if isinstance(item, str)]
    else:
        return []
    rules: list[str | None] = []
    for item in items:
        match = _RULE.fullmatch(item)
        if match is not None:
            inner = match.group(1)
            rules.append(None if inner in (None, "", "*") else inner.strip())
    return rules


def is_allowed(rules: list[str | None], command: str) -> bool:
    """Whether a rule allows ``command``, as written or with its quotes removed (Claude Code
    matches the parsed command: ``"${CLAUDE_PLUGIN_ROOT}/x.sh" $ARGUMENTS`` is allowed by
    ``Bash(${CLAUDE_PLUGIN_ROOT}/x.sh:*)``). A joining character anywhere in the line as
    written, even quoted, needs an unrestricted ``Bash``."""
    command = command.strip()
    if None in rules:
        return True
    if _JOINED.search(command):
        return False
    forms = [command]
    with contextlib.suppress(ValueError):  # an unclosed quote: only the line as written
        forms.append(" ".join(shlex.split(command)))
    return any(_matches(rule, form) for rule in rules if rule is not None for form in forms)


def _matches(rule: str, command: str) -> bool:
    if rule.endswith(":*"):
        prefix = rule[:-2].strip()
        return command == prefix or command.startswith(prefix + " ")
    pattern = ".*".join(re.escape(part) for part in rule.split("*"))
    return re.fullmatch(pattern, command, re.DOTALL) is not None


def shell_line_issues(inspection: Inspection, rel: str, front_data: Any, body: str) -> bool:
    """Report each ``!`` line (refused by ``allowed-tools``, or allowed: it runs in the
    plugin host each time the command is used); whether the body has any."""
    lines = shell_lines(body)
    rules = bash_rules(front_data.get("allowed-tools") if isinstance(front_data, dict) else None)
    for command in lines:
        shown = repr(command[:_SHOWN])
        if is_allowed(rules, command):
            inspection.add(
                codes.COMMAND_SHELL_LINE_RUNS(
                    f"{rel}: `!` line {shown} is allowed by allowed-tools: it runs in the "
                    "plugin's sandbox each time the command is used"
                )
            )
        else:
            inspection.add(
                codes.COMMAND_SHELL_LINE_REFUSED(
                    f"{rel}: `!` line {shown} is not allowed by allowed-tools (no Bash rule "
                    "matches it); not run"
                )
            )
    return bool(lines)
