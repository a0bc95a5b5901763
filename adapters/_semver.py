"""npm-style semver ranges, as far as packages' host ranges use them: OpenClaw's
``compat.pluginApi`` and ``install.minHostVersion`` (``>=2026.4.24``, ``^2026.5.0``), and Pi
packages' ``peerDependencies`` on the Pi host packages (``^1.6.0``, ``>=0.60 <2``, ``*``,
``1.2 - 1.6``, ``>=a <b || c``).

Versions are compared as three integers (calendar versions like ``2026.9.6`` too); a
prerelease tag is ignored. A range this module cannot read is ``None``: the caller says it
cannot be checked rather than guessing.
"""

from __future__ import annotations

import re

__all__ = ["parse_version", "satisfies"]

Version = tuple[int, int, int]

_VERSION = re.compile(r"^v?(\d+)(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:[-+][0-9A-Za-z.-]*)?$")
_COMPARATOR = re.compile(r"^(>=|<=|>|<|=|\^|~)?\s*(.+)$")
_HYPHEN = re.compile(r"^(\S+)\s+-\s+(\S+)$")


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


def _hyphen(match: re.Match[str]) -> str:
    """``A - B`` is ``>=A <=B``; a partial ``B`` (``1.6``) takes all of it (``<1.7.0``)."""
    upper = _partial(match[2])
    if upper is None or upper[1] in (0, 3):
        return f">={match[1]} <={match[2]}"
    bound, given = upper
    high = _bump(bound, given - 1)
    return f">={match[1]} <{high[0]}.{high[1]}.{high[2]}"


def satisfies(version: str, spec: str) -> bool | None:
    """Whether ``version`` is in the range ``spec``; None when either cannot be read."""
    parsed = parse_version(version)
    if parsed is None or not spec.strip():
        return None
    any_set = False
    for alternative in spec.split("||"):
        alternative = _HYPHEN.sub(_hyphen, alternative.strip())
        tokens = re.sub(r"(>=|<=|>|<|=|\^|~)\s+", r"\1", alternative).split()
        results = [_comparator(token, parsed) for token in tokens or ["*"]]
        if None in results:
            return None
        any_set = any_set or all(results)
    return any_set
