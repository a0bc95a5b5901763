"""One registry of tools, commands and hook subscriptions, each with an owner.

Registration and removal are per owner and all-or-nothing. Each name keeps a stack of
entries arranged in the owners' load order by the rules of their ecosystems
(``gateway.model._clashes``); the top one is in effect, so unregistering the owner that
overrode a tool brings the earlier one back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gateway.base import (
    NIMLET_TOOL_RULES,
    PLAN_CAPABILITIES,
    READ_ONLY_CAPABILITIES,
    ArgumentValidator,
    Diagnostic,
    ToolRules,
)
from gateway.model._clashes import (
    OwnerOrder,
    arrange_commands,
    arrange_tools,
    load_position,
    refused,
)

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
    rules: ToolRules = NIMLET_TOOL_RULES
    """How its name collides (``ToolRules.command_suffixes``: Pi keeps every duplicate)."""


@dataclass(frozen=True, slots=True)
class HookEntry:
    event: str
    owner: str
    handler: HookHandler
    tools: frozenset[str] | None = None
    """``tool_call``/``tool_result``: the only tools it applies to (``register.hook_tools``)."""


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
    """Tools, commands and hooks. Hooks are asked, and clashing names decided, in the
    owners' load order (``set_order``; ``gateway.model._clashes``), never in the order
    their registrations arrived."""

    def __init__(self) -> None:
        self._owners: dict[str, _Owned] = {}
        self._order = OwnerOrder()
        self._tools: dict[str, list[ToolEntry]] = {}
        """Tool name -> its contributors, arranged: the top one is in effect."""
        self._commands: dict[str, list[CommandEntry]] | None = None
        """Invocation name (case-folded) -> its stack; None: to arrange again."""
        self._ranked: list[str] | None = None
        """Owners in load order; None: to sort again."""
        self._hooks_by_event: dict[str, list[HookEntry]] = {}
        self._said: set[Diagnostic] = set()
        """Clash diagnostics returned already (an owner registering again, e.g. a dormant
        package started, does not say them twice)."""
        self._settled = True
        """False while a load registers (``set_order`` … ``settle``): clashes wait."""
        self.on_change: Callable[[], None] | None = None
        """Called after an owner's contributions came or went (a runtime registered tools
        late, a dormant package started, a reload): ``gateway serve`` tells its clients."""

    # ------------------------------------------------------------------ changes

    def set_order(self, owners: Iterable[str], preferred: Mapping[str, int] | None = None) -> None:
        """The load order clashes are decided by and hooks asked in (discovered ones, then
        installed packages in install order; owners outside it after, as they first came), and
        who wins a clash first (``preferred``: owner → strength). Begins a load (``settle``)."""
        self._order.set(owners, preferred)
        self._settled = False
        self._rearrange(set(self._tools))

    def settle(self) -> list[Diagnostic]:
        """The load's owners are all registered: the clash diagnostics not said yet; later
        changes say theirs when they happen."""
        self._settled = True
        return self._rearrange(set(self._tools))

    def extend_order(self, owners: Iterable[str]) -> None:
        """Place ``owners`` after those in the load order (the loader names each owner
        before it registers, so the order is whole by the time two of them clash)."""
        if any(owner in self._owners for owner in self._order.extend(owners)):
            self._rearrange(set(self._tools))

    def place_members(self, owner: str, members: Sequence[str]) -> None:
        """The packages one process hosts (``register.owners``), in its spec's order, at
        the place of the process's owner in the load order."""
        if self._order.place_members(owner, members):
            self._rearrange(set(self._tools))

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
        for tool in tools:
            problem = refused(owner, tool, self.tool(tool.name))
            if problem is not None:
                diagnostics.append(problem)
            else:
                accepted_tools.append(tool)
        # Nothing above mutates: the owner's contributions land together or not at all.
        self._owners[owner] = _Owned(accepted_tools, list(commands), list(hooks), list(flags))
        self._order.arrived(owner)
        for tool in accepted_tools:
            self._tools.setdefault(tool.name, []).append(tool)
        diagnostics += self._rearrange({tool.name for tool in accepted_tools})
        self._changed()
        return diagnostics

    def _rearrange(self, names: set[str]) -> list[Diagnostic]:
        """Arrange the tools of ``names`` and every command again, in load order; the
        clash diagnostics not said before."""
        said: list[Diagnostic] = []
        for name in sorted(names):
            stack, found = arrange_tools(name, self._tools.get(name, []), self._order)
            if stack:
                self._tools[name] = stack
            else:
                self._tools.pop(name, None)
            said += found
        everything = [c for owned in self._owners.values() for c in owned.commands]
        self._commands, found = arrange_commands(everything, self._order)
        said += found
        self._ranked = None
        self._hooks_by_event.clear()
        if not self._settled:
            return []
        new = [d for d in dict.fromkeys(said) if d not in self._said]
        self._said.update(new)
        return new

    def prefer(self, preferred: Mapping[str, int]) -> None:
        """Who wins a clash before the load order, now (owner → strength, the higher wins)."""
        if self._order.prefer(preferred):
            self._rearrange(set(self._tools))
            self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def unregister(self, owner: str) -> None:
        owned = self._owners.pop(owner, None)
        if owned is None:
            return
        names = {tool.name for tool in owned.tools}
        for name in names:
            self._tools[name] = [t for t in self._tools.get(name, []) if t.owner != owner]
        self._rearrange(names)
        self._changed()

    def clear(self, keep: Iterable[str] = (BUILTIN_OWNER,)) -> None:
        kept = set(keep)
        for owner in [name for name in self._owners if name not in kept]:
            self.unregister(owner)
            self._order.forget(owner)
        self._said.clear()

    # ------------------------------------------------------------------ queries

    @property
    def owners(self) -> list[str]:
        """Registered owners, in load order."""
        if self._ranked is None:
            self._ranked = sorted(self._owners, key=self._order.rank)
        return list(self._ranked)

    def tool(self, name: str) -> ToolEntry | None:
        stack = self._tools.get(name)
        return stack[-1] if stack else None

    def tools(self, *, plan: bool = False) -> list[ToolEntry]:
        """Tools in effect, in their owners' load order."""
        effective = [
            tool
            for owner in self.owners
            for tool in self._owners[owner].tools
            if self.tool(tool.name) is tool
        ]
        return [tool for tool in effective if tool.plan_safe or not plan]

    def command(self, name: str) -> CommandEntry | None:
        stack = self._view().get(name.casefold())
        return stack[-1] if stack else None

    def commands(self) -> list[CommandEntry]:
        """Commands in effect under the names they are invoked with, in their owners' load
        order."""
        effective = [stack[-1] for stack in self._view().values()]
        owners = self.owners
        listed = {owner: [c.name for c in self._owners[owner].commands] for owner in owners}
        return sorted(effective, key=lambda c: load_position(c.name, c.owner, owners, listed))

    def _view(self) -> dict[str, list[CommandEntry]]:
        if self._commands is None:
            self._rearrange(set())
        assert self._commands is not None
        return self._commands

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
        return [flag for owner in self.owners for flag in self._owners[owner].flags]

    def hooks_of(self, owner: str) -> list[HookEntry]:
        return list(self._owners[owner].hooks) if owner in self._owners else []

    def hooks(self, event: str | None = None) -> list[HookEntry]:
        """Subscribers in the owners' load order (of an event: cached until owners change)."""
        if event is not None:
            cached = self._hooks_by_event.get(event)
            if cached is None:
                cached = self._hooks_by_event[event] = [
                    h for o in self.owners for h in self._owners[o].hooks if h.event == event
                ]
            return cached
        return [hook for owner in self.owners for hook in self._owners[owner].hooks]
