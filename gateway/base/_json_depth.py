"""How deeply a JSON value nests, measured without recursion.

Arguments and documents from outside (a model, a command line, a package) may nest
thousands of levels deep; validating, copying or serialising them recursively would raise
``RecursionError`` somewhere far from the input. They are measured once, up front, and
refused past a limit no real tool call needs.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MAX_ARGUMENT_DEPTH", "json_depth"]

MAX_ARGUMENT_DEPTH = 64


def json_depth(value: Any, *, stop_at: int | None = None) -> int:
    """Levels of arrays and objects in ``value`` (a scalar is 0); stops counting once
    ``stop_at`` is passed."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        if stop_at is not None and deepest > stop_at:
            return deepest
        stack.extend((child, depth) for child in children)
    return deepest
