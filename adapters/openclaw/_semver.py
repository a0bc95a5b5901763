"""npm-style semver ranges, as far as OpenClaw's ``compat.pluginApi`` and
``install.minHostVersion`` use them (``>=2026.4.24``, ``^2026.5.0``, ``>=a <b || c``).

OpenClaw versions are calendar versions (``2026.9.6``), compared as three integers; a
prerelease tag is ignored. A range this module cannot read is ``None``: the caller says it
cannot be checked rather than guessing.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["HOST_VERSION", "parse_version", "satisfies"]

HOST_VERSION: Final = "2026.9.6"
"""The OpenClaw the sidecar's host emulates: the ``openclaw`` package pinned in
``sidecars/package.json`` (a test keeps the two equal)."""

Version = tuple[int, int, int]

_VERSION = re.compile(r"^v?(\d+)(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:[-+][0-9A-Za-z.-]*)?$")
_COMPARATOR = re.compile(r"^(>=|<=|>|<|=|\^|~)?\s*(.+)$")


def parse_version(text: str) -> Version | None:
    match = _VERSION.match(text.strip())
    if not match:
        return None
    parts = [int(p) if p and p.isdigit() else 0 for p in match.groups()]
    return (parts[0], parts[1], parts[2])


def _partial(text: str) -> tuple[Version, int] | None:
    """A version and how many of its parts were given (``2026.4`` → 2, ``*`` → 0)."""
    text = text.strip()
    if text in ("", "*", "x", "X"):
        return (0, 0, 0), 0
    match = _VERSION.match(text)
    if not match:
        return None
    given = 0
    numbers = []
    for part in match.groups():
        if part is None or not part.isdigit():
            break
        given += 1
        numbers.append(int(part))
    numbers += [0] * (3 - len(numbers))
    return (numbers[0], numbers[1], numbers[2]), given


def _bump(version: Version, index: int) -> Version:
    parts = list(version)
    parts[index] += 1
    for later in range(index + 1, 3):
        parts[later] = 0
    return (parts[0], parts[1], parts[2])


def _comparator(token: str, version: Version) -> bool | None:
    match = _COMPARATOR.match(token)
    if not match:
        return None
    operator, rest = match.groups()
    found = _partial(rest)
    if found is None:
        return None
    bound, given = found
    if operator in (None, "="):
        if given == 0:
            return True
        upper = _bump(bound, given - 1)
        return bound <= version < upper
    if operator == "^":
        first = next((i for i, p in enumerate(bound) if p), 2 if given == 3 else given - 1)
        return bound <= version < _bump(bound, max(0, min(first, given - 1)))
    if operator == "~":
        return bound <= version < _bump(bound, 1 if given >= 2 else 0)
    return {
        ">=": version >= bound,
        ">": version > bound,
        "<=": version <= bound,
        "<": version < bound,
    }[operator]


def satisfies(version: str, spec: str) -> bool | None:
    """Whether ``version`` is in the range ``spec``; None when either cannot be read."""
    parsed = parse_version(version)
    if parsed is None or not spec.strip():
        return None
    any_set = False
    for alternative in spec.split("||"):
        tokens = re.sub(r"(>=|<=|>|<|=|\^|~)\s+", r"\1", alternative.strip()).split()
        results = [_comparator(token, parsed) for token in tokens or ["*"]]
        if None in results:
            return None
        any_set = any_set or all(results)
    return any_set
