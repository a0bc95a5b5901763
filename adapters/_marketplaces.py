"""What the marketplace readers share — Claude Code's ``.claude-plugin/marketplace.json``
(``adapters.claude_plugins``) and Codex's ``.agents/plugins/marketplace.json``
(``adapters.codex``): how what a marketplace offers is listed in a message, the checks on
a git source a marketplace names, and ``choose``, the plugin ``MARKETPLACE#PLUGIN`` names.

Marketplace text is the package's: a git source passes only as an https or ssh URL with a
plain ref (never a local path or a file URL), a name is matched exactly, never made a path.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final, TypeVar

from gateway.base import Diagnostic

__all__ = ["GITHUB_REPO", "GIT_REF", "GIT_URL", "choose", "git_location", "listing"]

SHOWN: Final = 40
"""Names listed in one message; a marketplace may offer hundreds."""
GITHUB_REPO: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}$")
GIT_URL: Final = re.compile(r"^(https://|ssh://|git@)[A-Za-z0-9.-]+[/:][\w./~-]{1,400}$")
GIT_REF: Final = re.compile(r"^[\w][\w./-]{0,199}$")

Entry = TypeVar("Entry")


def listing(names: Sequence[str]) -> str:
    """``a, b, c`` (the first ``SHOWN`` of them and how many more), or ``no plugins``."""
    if not names:
        return "no plugins"
    shown = ", ".join(names[:SHOWN])
    return shown if len(names) <= SHOWN else f"{shown} and {len(names) - SHOWN} more"


def git_location(url: object, pin: object) -> str:
    """``URL`` or ``URL#REF`` for the installer's git fetcher; raises ``ValueError`` saying
    what is wrong with a URL that is not https or ssh, or a ref that is not a plain ref."""
    if not isinstance(url, str) or not GIT_URL.match(url) or ".." in url:
        raise ValueError(f"`url` {url!r} is not an https or ssh git URL")
    if pin is None:
        return url
    if not isinstance(pin, str) or not GIT_REF.match(pin):
        raise ValueError(f"`sha`/`ref` {pin!r} is not a git ref")
    return f"{url}#{pin}"


def choose(
    entries: Sequence[tuple[str, Entry]],
    name: str | None,
    *,
    required: Callable[[str], Diagnostic],
    unknown: Callable[[str], Diagnostic],
) -> Entry | list[Diagnostic]:
    """The entry of the plugin ``name`` among a marketplace's ``(name, entry)`` pairs; else
    the format's diagnostic: ``required(listing)`` when no name was given, ``unknown(listing)``
    when the marketplace offers none of that name."""
    names = [plugin for plugin, _ in entries]
    if name is None:
        return [required(listing(names))]
    found = next((entry for plugin, entry in entries if plugin == name), None)
    if found is None:
        return [unknown(listing(names))]
    return found
