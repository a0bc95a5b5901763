"""One registry of tools, commands and hook subscriptions, each with an owner.

Registration and removal are per owner and all-or-nothing. Each name keeps a stack of
entries in registration order; the top one is in effect, so unregistering the owner that
overrode a tool brings the earlier one back.
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gateway.base import (
    BUILTIN_TOOL_NAMES,
    NIMLET_TOOL_RULES,
    PLAN_CAPABILITIES,
    READ_ONLY_CAPABILITIES,
    ArgumentValidator,
    Diagnostic,
    ToolRules,
)
from gateway.model import _codes

if TYPE_CHECKING:
    from gateway.model._commands import SessionAction

__all__ = [
    "BUILTIN_OWNER",
    "CommandEntry",
    "CommandOutcome",
    "FlagEntry",
    "HookEntry",
    "Registry",
    "ToolEntry",
    "ToolOutcome",
]

BUILTIN_OWNER = "builtin"


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    content: str
    is_error: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CommandOutcome:
    """A command's reply, to act on in nimlet's order: show ``message``; then, at most one
    of: perform ``session`` (``Gateway.apply_session_action``), restart the extensions
    (``reload``: ``Gateway.reload``), or start a turn with ``prompt``. ``error`` is a
    failure to show after the message (nimlet's "Extension command failed: …")."""

    message: str | None = None
    prompt: str | None = None
    session: SessionAction | None = None
    reload: bool = False
    error: str | None = None


ToolHandler = Callable[[dict[str, Any]], Awaitable[ToolOutcome]]
CommandHandler = Callable[[str], Awaitable[CommandOutcome]]
HookHandler = Callable[[str, dict[str, Any]], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class ToolEntry:
    name: str
    description: str
    input_schema: dict[str, Any]
    capabilities: tuple[str, ...]
    owner: str
    handler: ToolHandler
    ecosystem: str = "nimlet"
    validator: ArgumentValidator | None = None
    ask_permission: bool = False
    """Act-mode calls go through nimlet's permission prompt (key ``tool:<name>``): the
    tools of nimlet extensions and ``tool.json`` tools."""
    display: dict[str, Any] | None = None
    """How a client shows the tool's calls, when its package says (Nu's ``client.tools``:
    ``icon``, ``title`` with ``{argument}`` placeholders, ``body`` naming an argument to
    show as code); ``gateway shell`` shows it when the tool runs (``gateway.model.display``)."""
    rules: ToolRules = NIMLET_TOOL_RULES
    """How its name collides (the rules of the ecosystem whose runtime registered it)."""
    output_schema: dict[str, Any] | None = None
    """The JSON Schema (an object schema) of the tool's structured result, when its runtime
    declared one (negotiated ``tool.output``; Pi's ``outputSchema``): offered as MCP's
    ``outputSchema`` by ``gateway serve --mcp``."""

    def check_arguments(self, arguments: dict[str, Any]) -> str | None:
        """None when the arguments fit the tool's ``input_schema``, else why not."""
        if self.validator is None:
            return None
        problem = self.validator.problem(arguments)
        return None if problem is None else f"invalid arguments for {self.name}: {problem}"

    @property
    def builtin(self) -> bool:
        return self.owner == BUILTIN_OWNER

    @property
    def plan_safe(self) -> bool:
        return set(self.capabilities) <= PLAN_CAPABILITIES

    @property
    def read_only(self) -> bool:
        """Declares exactly ``read``: may run concurrently with other read-only calls."""
        return set(self.capabilities) == READ_ONLY_CAPABILITIES

    @property
    def permission_key(self) -> str:
        return f"tool:{self.name}"

    def describe(self) -> dict[str, Any]:
        """The JSON shape handed to a model and printed by ``gateway list --json``."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
            "capabilities": list(self.capabilities),
            "owner": self.owner,
        }


def make_tool(
    name: str,
    description: str,
    input_schema: dict[str, Any],
    capabilities: Iterable[str],
    owner: str,
    handler: ToolHandler,
    ecosystem: str = "nimlet",
    *,
    ask_permission: bool = False,
    display: dict[str, Any] | None = None,
    rules: ToolRules = NIMLET_TOOL_RULES,
    output_schema: dict[str, Any] | None = None,
) -> ToolEntry:
    validator = ArgumentValidator(input_schema)
    return ToolEntry(
        name,
        description,
        input_schema,
        tuple(capabilities),
        owner,
        handler,
        ecosystem,
        validator,
        ask_permission,
        display,
        rules,
        output_schema,
    )


@dataclass(frozen=True, slots=True)
class CommandEntry:
    name: str
    description: str
    owner: str
    handler: CommandHandler
    ecosystem: str = "nimlet"


@dataclass(frozen=True, slots=True)
class HookEntry:
    event: str
    owner: str
    handler: HookHandler


@dataclass(frozen=True, slots=True)
class FlagEntry:
    """A command-line flag a package registered (Pi's ``registerFlag``): listed, never parsed."""

    name: str
    description: str
    type: str
    default: Any
    owner: str


@dataclass(slots=True)
class _Owned:
    tools: list[ToolEntry]
    commands: list[CommandEntry]
    hooks: list[HookEntry]
    flags: list[FlagEntry] = field(default_factory=list)


class Registry:
    """Tools, commands and hooks; hooks are asked in owner order (startup order)."""

    def __init__(self) -> None:
        self._owners: dict[str, _Owned] = {}
        self._tools: dict[str, list[ToolEntry]] = {}
        self._commands: dict[str, list[CommandEntry]] = {}
        self._hooks_by_event: dict[str, list[HookEntry]] = {}
        self._first: dict[str, int] = {}
        """Owner -> when it first registered (kept across its re-registrations until
        ``clear``): "first" for the first-wins rule."""
        self._order = itertools.count()
        self.on_change: Callable[[], None] | None = None
        """Called after an owner's contributions came or went (a runtime registered tools
        late, a dormant package started, a reload): ``gateway serve`` tells its clients."""

    # ------------------------------------------------------------------ changes

    def register(
        self,
        owner: str,
        *,
        tools: Iterable[ToolEntry] = (),
        commands: Iterable[CommandEntry] = (),
        hooks: Iterable[HookEntry] = (),
        flags: Iterable[FlagEntry] = (),
    ) -> list[Diagnostic]:
        """Add everything an owner contributes at once; returns the collision diagnostics."""
        if owner in self._owners:
            raise ValueError(f"owner {owner!r} is already registered")
        diagnostics: list[Diagnostic] = []
        accepted_tools: list[ToolEntry] = []
        beneath: set[str] = set()  # names whose current tool keeps them (first wins)
        for tool in tools:
            problem = self._collision(owner, tool)
            if isinstance(problem, Diagnostic):
                diagnostics.append(problem)
                continue
            if problem is not None:
                diagnostics.append(problem[0])
                if problem[1]:
                    beneath.add(tool.name)
            accepted_tools.append(tool)
        accepted_commands = list(commands)
        for command in accepted_commands:
            current_command = self.command(command.name)
            if current_command is not None:
                diagnostics.append(
                    _codes.COMMAND_OVERRIDDEN(
                        f"command /{command.name} of {owner} replaces the one of "
                        f"{current_command.owner}",
                        package=owner,
                        contribution=command.name,
                    )
                )
        # Nothing above mutates: the owner's contributions land together or not at all.
        self._owners[owner] = _Owned(accepted_tools, accepted_commands, list(hooks), list(flags))
        self._hooks_by_event.clear()
        self._first.setdefault(owner, next(self._order))
        for tool in accepted_tools:
            stack = self._tools.setdefault(tool.name, [])
            if tool.name in beneath:
                stack.insert(self._first_wins_place(stack, tool), tool)
            else:
                stack.append(tool)
        for command in accepted_commands:
            self._commands.setdefault(command.name.casefold(), []).append(command)
        self._changed()
        return diagnostics

    def _collision(
        self, owner: str, tool: ToolEntry
    ) -> Diagnostic | tuple[Diagnostic, bool] | None:
        """None: the name is free. A diagnostic alone: refused. A diagnostic and whether the
        tool goes beneath the current one (first wins) rather than over it."""
        current = self.tool(tool.name)
        if tool.builtin:
            if current is None:
                return None
            message = f"the agent's built-in tool {tool.name!r} replaces the one of {current.owner}"
            return _codes.TOOL_OVERRIDDEN(
                message, package=current.owner, contribution=tool.name
            ), False
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
        if current is None:
            return None
        if self._first_wins(tool, current) and self._earlier(current.owner, owner):
            message = (
                f"tool {tool.name!r} of {owner} is shadowed by the one of {current.owner}: "
                f"the first registration wins ({tool.rules.ecosystem}'s rule)"
            )
            return _codes.TOOL_OVERRIDDEN(message, package=owner, contribution=tool.name), True
        message = f"tool {tool.name!r} of {owner} replaces the one of {current.owner}"
        return _codes.TOOL_OVERRIDDEN(message, package=owner, contribution=tool.name), False

    @staticmethod
    def _first_wins(tool: ToolEntry, other: ToolEntry) -> bool:
        return tool.rules.first_wins and other.rules == tool.rules and not other.builtin

    def _earlier(self, one: str, other: str) -> bool:
        """Did ``one`` first register before ``other`` (an owner never seen: last)?"""
        never = len(self._first) + 1
        return self._first.get(one, never) < self._first.get(other, never)

    def _first_wins_place(self, stack: list[ToolEntry], tool: ToolEntry) -> int:
        """Where a tool that does not win goes: beneath the same-rules tools of owners that
        registered before it, so that the earliest is on top."""
        place = len(stack)
        while place > 0 and self._first_wins(tool, stack[place - 1]):
            if not self._earlier(stack[place - 1].owner, tool.owner):
                break
            place -= 1
        return place

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def unregister(self, owner: str) -> None:
        owned = self._owners.pop(owner, None)
        if owned is None:
            return
        self._hooks_by_event.clear()
        for tool in owned.tools:
            self._remove(self._tools, tool.name, owner)
        for command in owned.commands:
            self._remove(self._commands, command.name.casefold(), owner)
        self._changed()

    @staticmethod
    def _remove(table: dict[str, list[Any]], key: str, owner: str) -> None:
        stack = [entry for entry in table.get(key, []) if entry.owner != owner]
        if stack:
            table[key] = stack
        else:
            table.pop(key, None)

    def clear(self, keep: Iterable[str] = (BUILTIN_OWNER,)) -> None:
        kept = set(keep)
        for owner in [name for name in self._owners if name not in kept]:
            self.unregister(owner)
            self._first.pop(owner, None)

    # ------------------------------------------------------------------ queries

    @property
    def owners(self) -> list[str]:
        return list(self._owners)

    def tool(self, name: str) -> ToolEntry | None:
        stack = self._tools.get(name)
        return stack[-1] if stack else None

    def tools(self, *, plan: bool = False) -> list[ToolEntry]:
        effective = [stack[-1] for stack in self._tools.values()]
        return [tool for tool in effective if tool.plan_safe or not plan]

    def command(self, name: str) -> CommandEntry | None:
        stack = self._commands.get(name.casefold())
        return stack[-1] if stack else None

    def commands(self) -> list[CommandEntry]:
        return [stack[-1] for stack in self._commands.values()]

    def tool_of(self, owner: str, name: str) -> ToolEntry | None:
        owned = self._owners.get(owner)
        return next((t for t in owned.tools if t.name == name), None) if owned else None

    def command_of(self, owner: str, name: str) -> CommandEntry | None:
        owned = self._owners.get(owner)
        if owned is None:
            return None
        return next((c for c in owned.commands if c.name.casefold() == name.casefold()), None)

    def flags(self) -> list[FlagEntry]:
        """Every owner's flags, in owner order."""
        return [flag for owned in self._owners.values() for flag in owned.flags]

    def hooks_of(self, owner: str) -> list[HookEntry]:
        owned = self._owners.get(owner)
        return list(owned.hooks) if owned else []

    def hooks(self, event: str | None = None) -> list[HookEntry]:
        """Subscribers in owner order (the order owners registered: startup order)."""
        if event is not None:
            # Asked on every tool call; cached until an owner comes or goes.
            cached = self._hooks_by_event.get(event)
            if cached is None:
                cached = self._hooks_by_event[event] = [
                    hook for owned in self._owners.values() for hook in owned.hooks
                    if hook.event == event
                ]  # fmt: skip
            return cached
        return [hook for owned in self._owners.values() for hook in owned.hooks]
