"""A slash command's ``!`` shell lines (`` !`cmd` ``, and ```` ```! ```` blocks) checked
against its ``allowed-tools`` as Claude Code checks them: a line runs only when a
``Bash(...)`` rule allows it. ``Bash`` (or ``Bash(*)``) allows any; ``Bash(cmd:*)`` a
command that starts with ``cmd``; ``Bash(git diff *)`` one matching the pattern (``*``: any
text); ``Bash(cmd)`` exactly ``cmd``. A line joining commands (``;``, ``&&``, ``|``,
redirections, substitutions) is allowed only by an unrestricted ``Bash``: each part would
need a rule of its own. Reads text only; runs nothing."""

from __future__ import annotations

import re
from typing import Any, Final

from adapters._files import Inspection
from adapters.claude_plugins import _codes as codes

__all__ = ["bash_rules", "is_allowed", "shell_line_issues", "shell_lines"]

_INLINE = re.compile(r"!`([^`\n]+)`")
_BLOCK = re.compile(r"^```!\n(.*?)^```", re.MULTILINE | re.DOTALL)
_RULE = re.compile(r"Bash(?:\((.*)\))?")
_JOINED = re.compile(r"[;&|<>`\n]|\$\(")
_SHOWN: Final = 200


def shell_lines(body: str) -> list[str]:
    """The commands of the body's ``!`` lines, in order."""
    found = [(m.start(), m.group(1)) for m in _INLINE.finditer(body)]
    found += [(m.start(), m.group(1).strip()) for m in _BLOCK.finditer(body)]
    return [command for _, command in sorted(found)]


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
    command = command.strip()
    if None in rules:
        return True
    if _JOINED.search(command):
        return False
    return any(_matches(rule, command) for rule in rules if rule is not None)


def _matches(rule: str, command: str) -> bool:
    if rule.endswith(":*"):
        prefix = rule[:-2].strip()
        return command == prefix or command.startswith(prefix + " ")
    pattern = ".*".join(re.escape(part) for part in rule.split("*"))
    return re.fullmatch(pattern, command, re.DOTALL) is not None


def shell_line_issues(inspection: Inspection, rel: str, front_data: Any, body: str) -> bool:
    """Report each ``!`` line (refused by ``allowed-tools``, or allowed but not run);
    whether the body has any."""
    lines = shell_lines(body)
    rules = bash_rules(front_data.get("allowed-tools") if isinstance(front_data, dict) else None)
    for command in lines:
        shown = repr(command[:_SHOWN])
        if is_allowed(rules, command):
            inspection.add(
                codes.COMMAND_SHELL_LINE_NOT_RUN(
                    f"{rel}: `!` line {shown} is allowed by allowed-tools but not run (kept "
                    "as text)"
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
