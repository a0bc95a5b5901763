"""Minimatch-style globs over package-relative POSIX paths.

Pi resolves manifest globs with Node's ``fs.globSync`` and filters with ``minimatch``;
Nu's ``tools`` are globs too. Python 3.11 has no ``**``-aware matcher for plain strings,
so this is a small translator: ``**`` spans directories, ``*`` and ``?`` stay inside one
segment, ``[...]`` is a class, ``{a,b}`` expands. A pattern that cannot be translated
matches nothing (callers report that as "matches nothing") instead of raising.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

__all__ = ["expand_braces", "has_magic", "match"]

MAX_EXPANSIONS: Final = 64
_BRACE = re.compile(r"\{([^{}]*,[^{}]*)\}")


def has_magic(pattern: str) -> bool:
    """Does ``pattern`` contain glob syntax (as opposed to being a plain path)?"""
    return any(char in pattern for char in "*?[{")


def expand_braces(pattern: str) -> list[str]:
    """``a/{b,c}/*.ts`` -> ``["a/b/*.ts", "a/c/*.ts"]``, capped at MAX_EXPANSIONS."""
    results: list[str] = []
    pending = [pattern]
    while pending and len(results) < MAX_EXPANSIONS:
        current = pending.pop(0)
        found = _BRACE.search(current)
        if found is None:
            results.append(current)
            continue
        head, tail = current[: found.start()], current[found.end() :]
        for option in found.group(1).split(","):
            if len(pending) + len(results) >= MAX_EXPANSIONS:
                break
            pending.append(head + option + tail)
    return results


def match(pattern: str, path: str) -> bool:
    """Does the POSIX relative ``path`` match ``pattern``?"""
    return any(
        compiled.match(path) is not None
        for option in expand_braces(pattern)
        if (compiled := _compile(option)) is not None
    )


@lru_cache(maxsize=512)
def _compile(pattern: str) -> re.Pattern[str] | None:
    if pattern.startswith("./"):
        pattern = pattern[2:]
    segments = [segment for segment in pattern.split("/") if segment not in ("", ".")]
    if not segments:
        return None
    regex = ""
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            regex += ".*" if last else "(?:[^/]+/)*"
        else:
            regex += _segment(segment) + ("" if last else "/")
    try:
        return re.compile(regex + r"\Z")
    except re.error:
        return None


def _segment(segment: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(segment):
        char = segment[index]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = segment.find("]", index + 2)
            if end == -1:
                out.append(re.escape(char))
            else:
                out.append(_char_class(segment[index + 1 : end]))
                index = end
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


def _char_class(body: str) -> str:
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    # Escape everything but range dashes (a dash between two other characters); a
    # reversed range still fails re.compile, which _compile turns into "matches nothing".
    # A doubled dash is two literal ones: `--` in a class is a set operation Python's
    # `re` warns it may become.
    escaped = "".join(
        char if char == "-" and _range_dash(body, index) else re.escape(char)
        for index, char in enumerate(body)
    )
    return f"[{'^' if negate else ''}{escaped}]"


def _range_dash(body: str, index: int) -> bool:
    return 0 < index < len(body) - 1 and body[index - 1] != "-" and body[index + 1] != "-"
