"""What Pi removed, and when: the APIs a Pi package's code can be seen to use that a Pi
release took away (read from ``@earendil-works/pi-coding-agent``'s CHANGELOG.md, the version
the sidecar pins). The audit's "works with" says a package using one does not work with the
current Pi (``CURRENT``).

Removed *events* (``session_switch``, ``session_fork``, ``session_directory``: Pi 0.65)
are not here: the ``pi``
column already refuses them (``pi.event_removed``), and every line it refuses is refused.
Moved but still served is not removed: pi-ai's global API, behind
``@earendil-works/pi-ai/compat`` since 0.80, still loads through Pi's loader alias in 1.6.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from adapters._semver import parse_version
from adapters.pi import _codes as codes
from adapters.pi._host_versions import pinned_versions
from gateway.audit import HostLine, SourceFile, Target

__all__ = ["REMOVALS", "Removal", "current_line", "pi_ai_globals", "pi_host_lines"]


@dataclass(frozen=True, slots=True)
class Removal:
    version: str
    """The Pi release that removed it."""
    api: str
    replacement: str
    pattern: str
    """How it shows in code (a regular expression)."""


def _member(owner: str, name: str) -> str:
    return rf"(?<![\w$]){owner}\s*\.\s*{name}(?![\w$])"


_TYPEBOX: Final = ("Base", "Awaited", "Promise", "AsyncIterator", "Iterator", "Options")
REMOVALS: Final = (
    Removal(
        "0.80.8",
        "AuthStorage",
        "ModelRuntime, or readStoredCredential() for one-off reads",
        r"(?<![\w$])AuthStorage(?![\w$])",
    ),
    *(
        Removal("0.83.0", f"Type.{name}", "a supported TypeBox 1.3 API", _member("Type", name))
        for name in _TYPEBOX
    ),
    Removal("0.83.0", "Value.Mutate", "a supported TypeBox 1.3 API", _member("Value", "Mutate")),
    Removal(
        "0.87.0",
        "shouldStopAfterTurn",
        'finishTurn returning { action: "end" }',
        r"(?<![\w$])shouldStopAfterTurn(?![\w$])",
    ),
)


def current_line() -> str:
    """The Pi the gateway pins, as a line (``1.6``); ``?`` when the lockfile is unreadable."""
    version = parse_version(pinned_versions().get("@earendil-works/pi-coding-agent", ""))
    return f"{version[0]}.{version[1]}" if version else "?"


@functools.cache
def _compiled() -> tuple[tuple[Removal, re.Pattern[str]], ...]:
    return tuple((removal, re.compile(removal.pattern)) for removal in REMOVALS)


def pi_host_lines(sources: Sequence[SourceFile]) -> list[HostLine]:
    """The current Pi line, and what of the code's use it removed."""
    reasons: list[str] = []
    for removal, pattern in _compiled():
        for source in sources:
            match = pattern.search(source.text) if source.reachable else None
            if match is not None:
                where = f"{source.path}:{source.line_of(match.start())}"
                reasons.append(
                    f"{removal.api} ({where}) was removed in Pi {removal.version}; "
                    f"use {removal.replacement}"
                )
                break
    code = codes.PI_API_REMOVED.code if reasons else None
    return [HostLine("pi", current_line(), not reasons, code, tuple(reasons))]


_PI_AI_GLOBALS: Final = (
    "stream", "complete", "completeSimple", "streamSimple", "getModel", "getModels",
    "getProviders", "registerApiProvider", "getEnvApiKey",
)  # fmt: skip
_PI_AI_ROOT = re.compile(
    r"import\s*\{([^}]*)\}\s*from\s*[\"'](?:@earendil-works|@mariozechner)/pi-ai[\"']"
)


def pi_ai_globals(sources: Sequence[SourceFile]) -> list[Target]:
    """pi-ai's old global API imported from its root: moved behind ``pi-ai/compat`` in 0.80,
    still served through Pi's loader alias in 1.6, to be removed later (a target, not a
    refusal)."""
    used: set[str] = set()
    for source in sources:
        if not source.reachable:
            continue
        for match in _PI_AI_ROOT.finditer(source.text):
            names = {part.split(" as ")[0].strip() for part in match[1].split(",")}
            used |= names & set(_PI_AI_GLOBALS)
    if not used:
        return []
    return [
        Target(
            "pi-ai global API",
            ", ".join(sorted(used)),
            "moved to @earendil-works/pi-ai/compat in Pi 0.80; Pi 1.6 still resolves the root "
            "import (loader alias), a later release removes it",
        )
    ]
