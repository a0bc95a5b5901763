"""How deeply a JSON value nests, and whether it holds a string that is not text, each
found without recursion.

Arguments and documents from outside (a model, a command line, a package) may nest
thousands of levels deep; validating, copying or serialising them recursively would raise
``RecursionError`` somewhere far from the input. They are measured once, up front, and
refused past a limit no real tool call needs.

JSON's ``\\ud800`` escape (and YAML's) decodes to a lone surrogate: a Python string no UTF-8
file, database or terminal can take, which fails far from the manifest that held it (a
``UnicodeEncodeError`` while an install is recorded). A reader of outside documents asks
``lone_surrogate`` once, after parsing, and refuses the document with its own code.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["MAX_ARGUMENT_DEPTH", "json_depth", "lone_surrogate"]

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


_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(value: Any) -> str | None:
    """The first string (a key or a value) of ``value`` that holds a lone surrogate, with
    the surrogate shown as its escape (``name\\ud800x``), or None when every string is text."""
    stack: list[Any] = [value]
    # YAML aliases share one object many times over (an alias bomb expands to billions of
    # paths): each container is read once, which also ends cycles.
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return item.encode("utf-8", "backslashreplace").decode("utf-8")[:80]
        elif isinstance(item, dict | list | tuple):
            if id(item) in seen:
                continue
            seen.add(id(item))
            if isinstance(item, dict):
                stack.extend(item.keys())
                stack.extend(item.values())
            else:
                stack.extend(item)
    return None
