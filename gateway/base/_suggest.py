"""Did you mean: the names a person probably meant when one they typed is unknown — a
package id or alias, a tool, a command.

Three kinds of near miss, in this order: the same name in another case; a name that ends with
what was typed after a separator (``lookup`` for the MCP tool ``mcp_glossary_lookup``, a
renamed ``mcp__plugin_x_srv__lookup``), or what was typed ending with a name (the prefix a
host adds, typed by hand); then names close in spelling (``difflib``). The result is the
same on every run: ties are broken by the name.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

__all__ = ["did_you_mean", "suggest"]

_SEPARATORS = re.compile(r"[_:./-]+")
_CLOSE = 0.6
_BEHIND = 0.1


def suggest(typed: str, candidates: Iterable[str], *, limit: int = 3) -> list[str]:
    """Up to ``limit`` of ``candidates`` that ``typed`` probably meant, best first."""
    names = sorted(set(candidates) - {typed})
    if not typed or not names:
        return []
    lowered = typed.lower()
    found: list[str] = [n for n in names if n.lower() == lowered]
    found += [n for n in names if _ends_with(n, typed) or _ends_with(typed, n)]
    scored = sorted(
        ((difflib.SequenceMatcher(None, lowered, n.lower()).ratio(), n) for n in names),
        key=lambda pair: (-pair[0], pair[1]),
    )
    best = scored[0][0]  # names far behind the closest one are noise beside it
    found += [n for ratio, n in scored if ratio >= max(_CLOSE, best - _BEHIND)]
    found += _by_last_part(typed, names)
    return list(dict.fromkeys(found))[:limit]


def did_you_mean(typed: str, candidates: Iterable[str], *, limit: int = 3) -> str:
    """`` (did you mean a, b?)`` or ``""``: a suffix for a refusal's message."""
    found = suggest(typed, candidates, limit=limit)
    return f" (did you mean {' or '.join(found)}?)" if found else ""


def _ends_with(name: str, tail: str) -> bool:
    """``name`` is ``…<separator>tail`` (case ignored), and ``tail`` is more than a letter."""
    if len(tail) < 3 or len(name) <= len(tail) or not name.lower().endswith(tail.lower()):
        return False
    return _SEPARATORS.fullmatch(name[-len(tail) - 1]) is not None


def _by_last_part(typed: str, names: list[str]) -> list[str]:
    """Names whose last part (after the host's prefix) is close to what was typed's."""
    last = _SEPARATORS.split(typed.lower())[-1]
    if len(last) < 3:
        return []
    parts = {n: _SEPARATORS.split(n.lower())[-1] for n in names}
    close = set(difflib.get_close_matches(last, sorted(set(parts.values())), n=3, cutoff=0.8))
    return [n for n in names if parts[n] in close]
