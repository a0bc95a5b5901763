"""``hooks.rewrite``: the permission to act on another package's tool through a hook.

A ``tool_call`` hook may change the arguments a tool runs with, a ``tool_result`` hook the
result the model reads. A package changing its own tools is its own business, so its hook
chains need nothing. A package changing another package's tool makes that package act — in
its sandbox, with its grants (a Claude Code ``PreToolUse`` hook's ``updatedInput`` ran a
command of its choosing through another plugin's shell tool, with that plugin's network);
changing the agent's own tools makes the agent act. So that takes a grant the user gives by
name (``gateway permissions ID hooks.rewrite``), shown at install and trust; without it the
change is refused (``hook.rewrite_refused``) and the event goes on without it. Blocking a
call (``allow: false``) needs no grant: it stops a call, it never makes one.

The host decides per reply (``gateway.host._rewrites``), where the owner of the tool and
the owner of the hook are both known; this module holds the permission's name and words.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Final

from gateway.base import Diagnostic
from gateway.model import CatalogEntry
from gateway.packages._codes import HOOK_REWRITE_GRANT, HOOK_REWRITE_REFUSED

__all__ = [
    "HOOKS_REWRITE",
    "HOOK_PERMISSIONS",
    "REWRITING_EVENTS",
    "rewrite_notice",
    "rewrite_refused",
]

HOOKS_REWRITE: Final = "hooks.rewrite"
HOOK_PERMISSIONS: Final[dict[str, str]] = {
    HOOKS_REWRITE: "its hooks may change the arguments and results of other packages' tools "
    "and of the agent's own",
}
"""Permissions beyond the sandbox's that any package may be granted, and what each allows."""
REWRITING_EVENTS: Final = frozenset({"tool_call", "tool_result"})
"""The canonical events whose hooks can change what a tool does or what its result says."""


def rewrite_refused(
    hook_owner: str, package: str, event: str, tool: str, fields: Iterable[str], owned: str
) -> Diagnostic:
    """A hook of ``package`` (registered as ``hook_owner``) changed ``fields`` of a call of
    ``tool`` it does not own (``owned`` says whose it is) without the grant."""
    what = " and ".join(fields)
    return HOOK_REWRITE_REFUSED(
        f"{hook_owner}: its {event} hook changed the {what} of {tool!r} ({owned}); refused: "
        f"changing another package's tool takes the permission {HOOKS_REWRITE}",
        package=package,
        contribution=tool,
        hint=f"gateway permissions {package} {HOOKS_REWRITE} (read its hooks first)",
    )


def rewrite_notice(entry: CatalogEntry, granted: Collection[str]) -> Diagnostic | None:
    """What a package's declared ``tool_call`` / ``tool_result`` hooks may do, said at
    install and trust: with the grant, change any tool's call; without it, only its own."""
    hooks = sorted(
        {c.name for c in entry.contributions if c.kind == "hook" and c.target in REWRITING_EVENTS}
    )
    if not hooks and HOOKS_REWRITE not in granted:
        return None
    on = f"its {', '.join(hooks)} hooks" if hooks else "its hooks"
    if HOOKS_REWRITE in granted:
        return HOOK_REWRITE_GRANT(
            f"{entry.id}: {on} may change the calls and results of other packages' tools and "
            f"of the agent's own ({HOOKS_REWRITE} granted)",
            package=entry.id,
            hint=f"gateway permissions {entry.id} --revoke {HOOKS_REWRITE}",
        )
    return HOOK_REWRITE_GRANT(
        f"{entry.id}: {on} may block any tool's call but change only its own tools' calls "
        f"and results; changing another's takes {HOOKS_REWRITE} (not granted)",
        package=entry.id,
        hint=f"gateway permissions {entry.id} {HOOKS_REWRITE} (read its hooks first)",
    )
