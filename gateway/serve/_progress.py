"""The text of a tool's progress item, as both servers pass it on: an MCP progress
notification's message (``_mcp``, ``_input_required``) and a nimlet ``tool_update``
(``_nimlet``). Its own module so that ``gateway serve --nimlet`` imports none of MCP's
types."""

from __future__ import annotations

from typing import Any

__all__ = ["progress_message"]


def progress_message(item: dict[str, Any]) -> str:
    """The text of one progress item: ``tool_update`` text, or a runtime's snapshot."""
    text = item.get("text")
    if isinstance(text, str) and text:
        return text
    parts = item.get("content")
    if isinstance(parts, list):
        texts = [p.get("text") for p in parts if isinstance(p, dict)]
        return "\n".join(t for t in texts if isinstance(t, str))
    return ""
