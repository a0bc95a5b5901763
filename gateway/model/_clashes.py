"""Who owns a name several owners register: decided by the owners' load order, never by
the order their processes happened to register in.

Each package runs in its own process, so registrations arrive in whatever order the
processes start (and again when a dormant package is started at first use, or a runtime
restarts). The registry therefore keeps every contribution and arranges each name by
replaying its contributors in load order (``OwnerOrder``) under the rules of the ecosystem
whose runtime registered each: nimlet's (the later owner wins), Pi's (the first tool wins;
every duplicate command is kept as ``/name:1``, ``/name:2``), the agent's own built-in tools
above all. Owners the user prefers (``gateway prefer``) win over every other owner of a
name, the first preferred over the later ones, whatever their ecosystems' rules say; the
duplicates an ecosystem keeps (Pi's ``/name:N``) stay numbered in load order. The same
contributors give the same owner and the same diagnostics, whatever order they arrived in
(docs/architecture.md, "Name clashes").
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Protocol, TypeVar

from gateway.base import BUILTIN_TOOL_NAMES, Diagnostic, ToolRules
from gateway.model import _codes

__all__ = ["OwnerOrder", "Rank", "arrange_commands", "arrange_tools", "load_position", "refused"]

Rank = tuple[int, int, int]


class _Tool(Protocol):
    """What the clash rules read of a ``ToolEntry``."""

    @property
    def name(self) -> str: ...
    @property
    def owner(self) -> str: ...
    @property
    def rules(self) -> ToolRules: ...
    @property
    def builtin(self) -> bool: ...


class _Command(Protocol):
    """What the clash rules read of a ``CommandEntry``."""

    @property
    def name(self) -> str: ...
    @property
    def owner(self) -> str: ...
    @property
    def rules(self) -> ToolRules: ...


ToolT = TypeVar("ToolT", bound=_Tool)
CommandT = TypeVar("CommandT", bound=_Command)


class OwnerOrder:
    """The load order of owners: the order the loader set (``set``), an owner ``name#N`` (a
    second extension of one name) right after ``name``; an owner outside it after all of
    those, in the order it first registered (kept across its re-registrations)."""

    def __init__(self) -> None:
        self._order: dict[str, int] = {}
        self._members: dict[str, Rank] = {}
        self._first: dict[str, int] = {}
        self._arrivals = itertools.count()
        self._preferred: dict[str, int] = {}

    def set(self, owners: Iterable[str], preferred: Mapping[str, int] | None = None) -> None:
        """``preferred``: owner → its strength (higher wins) for the owners the user prefers;
        the others have 0."""
        self._order = {}
        self._members = {}
        self._preferred = dict(preferred or {})
        self.extend(owners)

    def prefer(self, preferred: Mapping[str, int]) -> bool:
        """Replace who the user prefers (see ``set``); True when it changed."""
        changed = dict(preferred) != self._preferred
        self._preferred = dict(preferred)
        return changed

    def strength(self, owner: str) -> int:
        """How strongly the user prefers ``owner`` in a name clash: 0 for not at all."""
        return self._preferred.get(owner, 0)

    def place_members(self, owner: str, members: Sequence[str]) -> bool:
        """The packages one process hosts, in its load order, at the process's place
        (when the loader named the process but not each of them); True when it changed."""
        place = self._order.get(owner)
        if place is None or all(m in self._order and m != owner for m in members):
            return False
        ranks = {
            m: (0, place, n) for n, m in enumerate(members) if m == owner or m not in self._order
        }
        changed = any(self._members.get(m) != r for m, r in ranks.items())
        self._members.update(ranks)
        return changed

    def extend(self, owners: Iterable[str]) -> list[str]:
        """Owners placed after those already in the order; returns the ones new to it."""
        new = []
        for owner in owners:
            if owner not in self._order:
                self._order[owner] = len(self._order)
                new.append(owner)
        return new

    def arrived(self, owner: str) -> None:
        self._first.setdefault(owner, next(self._arrivals))

    def forget(self, owner: str) -> None:
        self._first.pop(owner, None)

    def rank(self, owner: str) -> Rank:
        member = self._members.get(owner)
        if member is not None:
            return member
        place = self._order.get(owner)
        if place is not None:
            return (0, place, 0)
        base, hash_sign, number = owner.rpartition("#")
        if hash_sign and number.isdigit() and base in self._order:
            return (0, self._order[base], int(number))
        return (1, self._first.get(owner, len(self._first)), 0)


def refused(owner: str, tool: _Tool, current: _Tool | None) -> Diagnostic | None:
    """Why ``tool`` cannot take its name at all (a built-in's), else None. ``current``: the
    tool of that name in effect now."""
    if tool.builtin:
        return None
    if current is not None and current.builtin:
        return _codes.TOOL_BUILTIN_NAME(
            f"{owner}: tool {tool.name!r} collides with the agent's built-in tool "
            f"{tool.name!r}, which wins; skipped",
            package=owner,
            contribution=tool.name,
        )
    if tool.name in BUILTIN_TOOL_NAMES and not tool.rules.builtin_names_free:
        return _codes.TOOL_BUILTIN_NAME(
            f"{owner}: tool {tool.name!r} collides with a built-in tool; skipped",
            package=owner,
            contribution=tool.name,
        )
    return None


def load_position(
    name: str, owner: str, owners: Sequence[str], listed: dict[str, list[str]]
) -> tuple[int, int, str]:
    """Where a command in effect is listed: its owner's place in the load order, then its
    place among the owner's commands (a suffixed duplicate where its own name is)."""
    names = listed.get(owner, [])
    own = name if name in names else name.rpartition(":")[0]
    place = owners.index(owner) if owner in owners else len(owners)
    return place, names.index(own) if own in names else len(names), name


def _first_wins(tool: _Tool, other: _Tool) -> bool:
    return tool.rules.first_wins and other.rules == tool.rules and not other.builtin


def arrange_tools(
    name: str, entries: Sequence[ToolT], order: OwnerOrder
) -> tuple[list[ToolT], list[Diagnostic]]:
    """The stack of one tool name (the top one is in effect), as if its contributors had
    registered in load order, and the diagnostics that order gives; then the tools of the
    owners the user prefers (``order.strength`` above 0) on top, the strongest last."""
    rank, strength = order.rank, order.strength
    stack: list[ToolT] = []
    said: list[Diagnostic] = []
    ordinary = sorted(
        (t for t in entries if not t.builtin), key=lambda t: (strength(t.owner), rank(t.owner))
    )
    for tool in ordinary:
        current = stack[-1] if stack else None
        if current is not None and strength(tool.owner) > 0:
            message = (
                f"tool {name!r} of {tool.owner} replaces the one of {current.owner}: "
                f"{tool.owner} is preferred (gateway prefer)"
            )
            said.append(_codes.TOOL_OVERRIDDEN(message, package=tool.owner, contribution=name))
            stack.append(tool)
            continue
        if current is not None and _first_wins(tool, current):
            place = len(stack)
            while place > 0 and _first_wins(tool, stack[place - 1]):
                place -= 1
            stack.insert(place, tool)
            message = (
                f"tool {name!r} of {tool.owner} is shadowed by the one of {current.owner}: "
                f"the first registration wins ({tool.rules.ecosystem}'s rule)"
            )
            said.append(_codes.TOOL_OVERRIDDEN(message, package=tool.owner, contribution=name))
            continue
        if current is not None:
            message = f"tool {name!r} of {tool.owner} replaces the one of {current.owner}"
            said.append(_codes.TOOL_OVERRIDDEN(message, package=tool.owner, contribution=name))
        stack.append(tool)
    for tool in (t for t in entries if t.builtin):
        if stack:
            message = f"the agent's built-in tool {name!r} replaces the one of {stack[-1].owner}"
            said.append(_codes.TOOL_OVERRIDDEN(message, package=stack[-1].owner, contribution=name))
        stack.append(tool)
    return stack, said


def _renamed(command: CommandT, name: str) -> CommandT:
    return dataclasses.replace(command, name=name)  # type: ignore[type-var]


def arrange_commands(
    entries: Iterable[CommandT],
    order: OwnerOrder,
    rename: Callable[[CommandT, str], CommandT] = _renamed,
) -> tuple[dict[str, list[CommandT]], list[Diagnostic]]:
    """Every command by the name it is invoked with (case-folded): a stack per name whose
    top is in effect, the later owner in load order on top; the duplicates of an ecosystem
    that keeps them (Pi's ``command_suffixes``) each under ``name:N``, numbered in load
    order from 1, when two or more of them share a name. The commands of the owners the
    user prefers (``order.strength`` above 0) go on top of their stacks, the strongest last."""
    rank, strength = order.rank, order.strength
    by_name: dict[str, list[CommandT]] = {}
    for command in sorted(entries, key=lambda c: rank(c.owner)):
        by_name.setdefault(command.name.casefold(), []).append(command)
    literal = set(by_name)
    view: dict[str, list[CommandT]] = {}
    said: list[Diagnostic] = []
    for key, commands in by_name.items():
        kept = [c for c in commands if c.rules.command_suffixes]
        if len(kept) < 2:
            kept = []
        suffixed = {id(c) for c in kept}
        number = 0
        for command in kept:
            number += 1
            while f"{key}:{number}" in literal or f"{key}:{number}" in view:
                number += 1
            invocation = f"{command.name}:{number}"
            view[invocation.casefold()] = [rename(command, invocation)]
            said.append(
                _codes.COMMAND_RENAMED(
                    f"command /{command.name} of {command.owner} is registered more than once; "
                    f"this one is /{invocation} ({command.rules.ecosystem}'s rule)",
                    package=command.owner,
                    contribution=invocation,
                )
            )
        stack: list[CommandT] = []
        rest = sorted(
            (c for c in commands if id(c) not in suffixed), key=lambda c: strength(c.owner)
        )  # stable: load order among equals
        for command in rest:
            if stack:
                said.append(
                    _codes.COMMAND_OVERRIDDEN(
                        f"command /{command.name} of {command.owner} replaces the one of "
                        f"{stack[-1].owner}",
                        package=command.owner,
                        contribution=command.name,
                    )
                )
            stack.append(command)
        if stack:
            view[key] = stack
    return view, said
