"""Projecting what runs onto the registry: a process's registration (its tools, commands
and hooks, owned by its name, or per package for a process hosting several), prompt
templates a package ships, and the side effects and late registrations a process sends
while it runs. What a package declares is checked by ``Declarations``; what a runtime
reports beside its tools by ``gateway.host._runtime_extras``."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gateway.host import _codes
from gateway.host._declarations import Declarations
from gateway.host._entries import (
    Activate,
    Binding,
    DormantBinding,
    LiveBinding,
    ProcessEntries,
    prompt_command,
)
from gateway.host._pinning import PinGate
from gateway.host._registrations import CachedRegistration, RegistrationMemory
from gateway.host._runtime_extras import add_runtime_skills, report_runtime, update_specs
from gateway.host._state import GatewayState
from gateway.host._text_gate import TextGate
from gateway.model import (
    EXTENDED_ALIASES,
    NIMLET_EVENTS,
    CatalogEntry,
    CommandEntry,
    FlagEntry,
    HookEntry,
    PromptTemplate,
    ToolEntry,
)
from gateway.wire import (
    CommandSpec,
    ExtensionProcess,
    LaunchPlan,
    Member,
    MemberNames,
    RegisterMessage,
    ResponseMessage,
    ToolSpec,
    ToolUpdate,
    UpdateMessage,
    split_registration,
    split_specs,
)
from gateway.wire.features import (
    EVENTS_EXTENDED,
    REGISTER_FLAGS,
    REGISTER_HOOK_TOOLS,
    REGISTER_OWNERS,
    REGISTRATION_UPDATE,
    TOOL_PROGRESS,
    UPDATE_DIAGNOSTICS,
    ExtraError,
    RegisterExtras,
    RuntimeDiagnostic,
    UpdateExtras,
)

__all__ = ["Activate", "Projector"]


@dataclass(slots=True)
class _Held:
    """An owner's commands and hooks, kept while its tool list changes."""

    commands: list[CommandEntry]
    hooks: list[HookEntry]
    flags: list[FlagEntry]


class Projector:
    """Owns the per-owner bookkeeping: what each package declares (``Declarations``), each
    owner's commands and hooks (for late tool lists); and the entries that call processes,
    with the progress of their calls in flight (``ProcessEntries``)."""

    def __init__(self, state: GatewayState, memory: RegistrationMemory) -> None:
        self._state = state
        self._memory = memory
        self._declarations = Declarations(state)
        self.pins = PinGate(state)
        self.text = TextGate(state)
        """Tools whose definition changed since their package was trusted are held back."""
        self._held: dict[str, _Held] = {}
        self._entries = ProcessEntries(state)
        self._members: dict[str, MemberNames] = {}
        """Process owner → the owner of each package it hosts (``register.owners``)."""
        self._resources: dict[str, list[CommandEntry]] = {}
        """Package owner → the prompt commands the gateway serves for it, registered with
        whatever its process registers (``package_prompts``)."""
        self._bound: set[str] = set()
        """Owners a process (or its cached registration) has projected."""

    # ------------------------------------------------------------------ lifecycle

    def declare(self, owner: str, entry: CatalogEntry) -> None:
        """Hold ``owner``'s registration to what its manifest declares, if it declares all."""
        self._declarations.declare(owner, entry)

    def clear(self) -> None:
        """Everything stopped (a reload): only the built-in tools stay registered."""
        self._declarations.clear()
        self._held.clear()
        self._members.clear()
        self._resources.clear()
        self._bound.clear()
        self.pins.forget()
        self.text.forget()
        self._state.registry.clear()

    async def drained(self, process: ExtensionProcess) -> None:
        """Until no request to ``process`` is in flight."""
        await self._entries.requests.drained(process)

    def register(self, process: ExtensionProcess, owner: str | None = None) -> None:
        """Project a started process's ``register``. ``owner`` is given for a process that
        takes over a name already in the registry (a restart, or a dormant package that
        was activated), which reports nothing twice."""
        registration = process.registration
        assert registration is not None
        taking_over = owner is not None
        owner = owner or self.owner_name(process.name)
        self._belongs(owner, process.plan)
        members = self._split(owner, process.plan, registration, None)
        if members is None:
            binding = LiveBinding(self._entries, process)
            self._project(owner, registration, None, binding, report=not taking_over)
        else:
            if not taking_over:
                self._runtime_diagnostics(owner, registration)
            for name, member in members:
                binding = LiveBinding(self._entries, process, member.addressed)
                self._project(name, member.registration, None, binding, report=False)
        self._state.processes.append(process)
        self._state.owners[process] = owner
        self._memory.started(process.plan.identity, registration)

    def start_failed(self, name: str) -> None:
        """A process did not start: its cached registration is not served again."""
        self._memory.start_failed(name)

    def register_dormant(
        self, owner: str, cached: CachedRegistration, plan: LaunchPlan, activate: Activate
    ) -> None:
        """Project what a package (or the packages of a shared process) registered last
        time without starting it: the first use of any of its tools, commands or hooks
        starts it (``activate``), and then the live registration replaces these entries."""
        dormant = DormantBinding(self._state, owner, plan.features, activate, plan.tool_rules)
        self._belongs(owner, plan)
        members = self._split(owner, plan, cached.register, cached.tools)
        if members is None:
            self._project(owner, cached.register, cached.tools, dormant, report=True)
            return
        self._runtime_diagnostics(owner, cached.register)
        for name, member in members:
            self._project(name, member.registration, None, dormant, report=False)

    def _split(
        self,
        owner: str,
        plan: LaunchPlan,
        registration: RegisterMessage,
        tools: list[ToolSpec] | None,
    ) -> list[tuple[str, Member]] | None:
        """Each package's part of the registration of a process hosting several, under its
        own owner name (``register.owners``); None when the runtime attributes nothing."""
        if REGISTER_OWNERS not in plan.features:
            return None
        try:
            owners = RegisterExtras.parse(registration.gateway).owner_map()
        except ExtraError as error:
            self._state.diagnostics.add(
                _codes.RUNTIME_DIAGNOSTIC_INVALID(f"{owner}: {error}", package=owner)
            )
            return None
        if owners is None:
            return None
        if tools is not None:
            registration = registration.model_copy(update={"tools": tools})
        names = self._members.setdefault(owner, MemberNames(owner, plan.name))
        members = split_registration(registration, owners, plan.name, plan.members)
        named = [(self._member(names, m.package), m) for m in members]
        self._state.registry.place_members(owner, [name for name, _ in named])
        for stale in set(names.names.values()) - {name for name, _ in named}:
            self._register(stale, [], [], [])  # a package that registers nothing now
        return named

    def _project(
        self,
        owner: str,
        registration: RegisterMessage,
        tools: list[ToolSpec] | None,
        binding: Binding,
        *,
        report: bool,
    ) -> None:
        self._state.registry.unregister(owner)
        self._bound.add(owner)
        if report:
            self._runtime_diagnostics(owner, registration)
        if tools is not None:
            registration = registration.model_copy(update={"tools": tools})
        tool_specs, command_specs = self._declarations.registered(owner, registration)
        entries = [binding.tool(owner, spec) for spec in tool_specs]
        commands = [binding.command(owner, spec) for spec in command_specs]
        hooks = self._hooks(binding, owner, registration.events or [], registration.gateway)
        flags = []
        if REGISTER_FLAGS in binding.features:
            for flag in RegisterExtras.parse(registration.gateway).runtime_flags():
                flags.append(FlagEntry(flag.name, flag.description, flag.type, flag.default, owner))
        self._register(owner, entries, commands, hooks, flags)

    def _register(
        self,
        owner: str,
        tools: list[ToolEntry],
        commands: list[CommandEntry],
        hooks: list[HookEntry],
        flags: list[FlagEntry] | None = None,
    ) -> None:
        """(Re)place everything ``owner`` registers, with the prompts served for it."""
        registry = self._state.registry
        registry.unregister(owner)
        tools = self.text.tools(owner, self.pins.admit(owner, tools))
        commands = self.text.commands(owner, commands)
        served = self._resources.get(owner, [])
        flags = flags or []
        self._state.diagnostics.extend(
            registry.register(
                owner, tools=tools, commands=[*commands, *served], hooks=hooks, flags=flags
            )
        )
        self._held[owner] = _Held(commands, hooks, flags)

    def _hooks(
        self, binding: Binding, owner: str, events: list[str], extras: dict[str, Any] | None
    ) -> list[HookEntry]:
        extended = EVENTS_EXTENDED in binding.features
        narrowed = self._hook_tools(binding, owner, extras)
        hooks = []
        for wire in events:
            # Events beyond nimlet's exist only for processes offered them.
            event = EXTENDED_ALIASES.get(wire, wire) if extended else wire
            if event not in self._state.catalogue or (event not in NIMLET_EVENTS and not extended):
                self._state.diagnostics.add(
                    _codes.EVENT_UNKNOWN(
                        f"{owner}: event {wire!r} is not in the catalogue; it never fires",
                        package=owner,
                    )
                )
                continue
            handler = binding.hook(owner, event, wire)
            hooks.append(HookEntry(event, owner, handler, narrowed.get(event)))
        return hooks

    def _hook_tools(
        self, binding: Binding, owner: str, extras: dict[str, Any] | None
    ) -> dict[str, frozenset[str]]:
        """The tools each tool event's hooks are narrowed to (``register.hook_tools``); a
        malformed declaration narrows nothing: every hook is asked, as without one."""
        if REGISTER_HOOK_TOOLS not in binding.features:
            return {}
        try:
            return RegisterExtras.parse(extras).hook_tool_filters()
        except ExtraError as error:
            self._state.diagnostics.add(
                _codes.RUNTIME_DIAGNOSTIC_INVALID(f"{owner}: {error}", package=owner)
            )
            return {}

    def _belongs(self, owner: str, plan: LaunchPlan) -> None:
        """``owner`` is the process of ``plan``: its grants and pins are its package's."""
        self._state.owner_packages[owner] = plan.identity

    def _member(self, names: MemberNames, package: str) -> str:
        """The owner name of one package of a shared process (its grants are its own)."""
        owner = names.owner(package, self.owner_name)
        self._state.owner_packages[owner] = package
        return owner

    def owner_name(self, name: str) -> str:
        # Extensions are not overridden by name: two extensions called "notes" both run.
        # A package's process takes the owner its served prompts already hold.
        owners = self._state.registry.owners
        if name not in owners or (name in self._resources and name not in self._bound):
            return name
        return next(f"{name}#{n}" for n in itertools.count(2) if f"{name}#{n}" not in owners)

    # ------------------------------------------------------------------ prompts a package ships

    def package_prompts(self, owner: str, prompts: Sequence[PromptTemplate]) -> None:
        """A package's prompt templates as slash commands owned by the package, beside what
        its process registers (or alone, for a package with nothing to run)."""
        prompts = self.text.prompts(owner, prompts)
        self._resources[owner] = [prompt_command(prompt, owner) for prompt in prompts]
        if owner not in self._bound:
            self._register(owner, [], [], [])

    # ------------------------------------------------------------------ runtime diagnostics

    def _runtime_diagnostics(self, owner: str, registration: RegisterMessage) -> None:
        """Diagnostics a runtime reports at registration (``register.diagnostics``)."""
        self._report_runtime(
            owner, RegisterExtras.parse(registration.gateway).runtime_diagnostics()
        )

    def _report_runtime(self, owner: str, items: list[RuntimeDiagnostic | Any]) -> None:
        report_runtime(self._state, owner, items, self._members.get(owner), self.owner_name)

    # ------------------------------------------------------------------ while running

    def on_effects(
        self, process: ExtensionProcess, message: ResponseMessage | UpdateMessage
    ) -> None:
        """Side effects of a response or update (a ``user_message`` is queued for
        delivery); a runtime's update extras (progress, a new tool list) only from a process
        that was offered them."""
        state = self._state
        state.session.apply(process.name, message)
        if message.user_message is not None:
            state.deliveries.receive(
                process.name, message.user_message, turn_open=state.turn_open, link=state.agent
            )
        if not isinstance(message, UpdateMessage) or message.gateway is None:
            return
        extras = UpdateExtras.parse(message.gateway)
        features = process.plan.features
        if extras.progress is not None and TOOL_PROGRESS in features:
            self._entries.progress(process, extras.progress)
        if extras.has_registration and REGISTRATION_UPDATE in features:
            self._registration_update(process, extras)
        if extras.diagnostics and UPDATE_DIAGNOSTICS in features:
            self._report_runtime(self._state.owner_of(process), extras.runtime_diagnostics())

    def on_tool_update(self, process: ExtensionProcess, update: ToolUpdate) -> None:
        """``tool_update`` (current nimlet): output of one of ``process``'s calls in flight."""
        self._entries.on_tool_update(process, update)

    def _registration_update(self, process: ExtensionProcess, extras: UpdateExtras) -> None:
        """The runtime's full, current tool list (tools registered after start, the active
        set applied), and optionally its commands and the skills it found: each owner's
        tools are replaced (its commands too when listed), its hooks kept."""
        state = self._state
        owner = state.owners.get(process)
        try:
            if owner is None:
                raise ExtraError("the process is not registered")
            update = extras.registration_update()
        except ExtraError as error:
            state.diagnostics.add(
                _codes.RUNTIME_DIAGNOSTIC_INVALID(
                    f"{process.name}: malformed registration update ({error}): "
                    f"{extras.registration!r:.200}",
                    package=process.name,
                )
            )
            return
        specs, commands = self._declarations.updated(owner, *update_specs(state, owner, update))
        names = self._members.get(owner)
        if update.owners is None or names is None:
            self._replace(process, owner, specs, commands)
        else:
            tools_of = split_specs(specs, update.owners.tools, process.name)
            commands_of = split_specs(commands or [], update.owners.commands, process.name)
            for package in dict.fromkeys([*names.names, *tools_of, *commands_of]):
                listed = None if commands is None else commands_of.get(package, [])
                member = self._member(names, package)
                self._replace(process, member, tools_of.get(package, []), listed)
        add_runtime_skills(state, owner, update)
        owners = update.owners.tools if update.owners is not None else None
        self._memory.tools_replaced(process.plan.identity, specs, owners)

    def _replace(
        self,
        process: ExtensionProcess,
        owner: str,
        specs: list[ToolSpec],
        command_specs: list[CommandSpec] | None,
    ) -> None:
        held = self._held.get(owner, _Held([], [], []))
        tools = [self._entries.tool(process, owner, spec) for spec in specs]
        commands = held.commands
        if command_specs is not None:
            commands = [self._entries.command(process, owner, spec) for spec in command_specs]
        self._register(owner, tools, commands, held.hooks, held.flags)
