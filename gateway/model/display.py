"""How a client shows a tool's calls, when the tool's package says (Nu's ``client.tools``):
an ``icon``, a ``title`` with ``{argument}`` placeholders, and a ``body`` naming an
argument to show as code in its ``language`` (which may be a placeholder too). The
registry keeps it on each tool (``ToolEntry.display``); ``gateway shell`` and ``gateway
call`` show it when the tool runs; an embedding agent renders it as it likes."""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["fill_placeholders", "render_call"]

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][\w-]*)\}")
_SHOWN = 200
"""Characters of one argument shown in a title."""


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def fill_placeholders(template: str, arguments: dict[str, Any]) -> str:
    """``{name}`` replaced by the argument (text as it is, other values as JSON); a
    missing argument shows as ``…``. One line, cut to a readable length."""

    def value(match: re.Match[str]) -> str:
        name = match[1]
        return " ".join(_text(arguments[name]).split())[:_SHOWN] if name in arguments else "…"

    return _PLACEHOLDER.sub(value, template)


def render_call(display: dict[str, Any] | None, arguments: dict[str, Any]) -> list[str]:
    """The lines a terminal shows for one call (empty when the tool has no display)."""
    if not display:
        return []
    icon = str(display.get("icon") or "")
    title = fill_placeholders(str(display.get("title") or ""), arguments)
    lines = [f"{icon} {title}".strip()] if icon or title else []
    body = display.get("body")
    if isinstance(body, dict) and isinstance(body.get("argument"), str):
        code = arguments.get(body["argument"])
        if code is not None:
            language = fill_placeholders(str(body.get("language") or ""), arguments)
            lines += [f"```{language}", *_text(code).splitlines(), "```"]
    return lines
