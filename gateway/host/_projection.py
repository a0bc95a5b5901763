"""Projecting what runs onto the registry: a process's registration (its tools, commands
and hooks, owned by its name, checked against what its package declares), the tools and
prompt templates the gateway runs itself, and the side effects and late registrations a
process sends while it runs."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from gateway.base import _codes, catalogue
from gateway.host._call_tools import CallRunner
from gateway.host._confinement import Confinement
from gateway.host._entries import (
    Activate,
    Binding,
    DormantBinding,
    LiveBinding,
    ProcessEntries,
    client_command,
    prompt_command,
)
from gateway.host._registrations import CachedRegistration, RegistrationMemory
from gateway.host._state import GatewayState
from gateway.host.external_tools import run_tool_json
from gateway.model import (
    BUILTIN_OWNER,
    EXTENDED_ALIASES,
    NIMLET_EVENTS,
    CallPlan,
    CallTool,
    CatalogEntry,
    CommandEntry,
    DiscoveredTool,
    HookEntry,
    PromptTemplate,
    Skill,
    ToolEntry,
    ToolOutcome,
    make_tool,
)
from gateway.runtime import LaunchError, resolve_command
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
    REGISTER_OWNERS,
    REGISTRATION_UPDATE,
    TOOL_PROGRESS,
    UPDATE_DIAGNOSTICS,
    ExtraError,
    RegisterExtras,
    RegistrationUpdate,
    RuntimeDiagnostic,
    UpdateExtras,
)

__all__ = ["Activate", "Projector", "calls_owners"]

Declared = dict[tuple[str, str], list[str]]
"""(kind, name) of each tool and command a package declares → the package ids it may
replace (nanobot's ``replaces``)."""

_Spec = TypeVar("_Spec", ToolSpec, CommandSpec)


def calls_owners(package: str) -> tuple[str, str]:
    """The registry owners of what the gateway runs itself for ``package``: its per-call
    tools and its prompt commands."""
    return f"{package}:tools", f"{package}:commands"


@dataclass(slots=True)
class _Held:
    """An owner's commands and hooks, kept while its tool list changes."""

    commands: list[CommandEntry]
    hooks: list[HookEntry]


class Projector:
    """Owns the per-owner bookkeeping: what each package declares, each owner's commands
    and hooks (for late tool lists); and the entries that call processes, with the
    progress of their calls in flight (``ProcessEntries``)."""

    def __init__(self, state: GatewayState, memory: RegistrationMemory) -> None:
        self._state = state
        self._memory = memory
        self._declared: dict[str, Declared] = {}
        self._held: dict[str, _Held] = {}
        self._entries = ProcessEntries(state)
        self._members: dict[str, MemberNames] = {}
        """Process owner → the owner of each package it hosts (``register.owners``)."""
        self._resources: dict[str, list[CommandEntry]] = {}
        """Package owner → the prompt commands the gateway serves for it, registered with
        whatever its process registers (``package_prompts``)."""
        self._bound: set[str] = set()
        """Owners a process (or its cached registration) has projected."""
        self._calls = CallRunner(state)

    # ------------------------------------------------------------------ lifecycle

    def declare(self, owner: str, entry: CatalogEntry) -> None:
        """Hold ``owner``'s registration to what its manifest declares, if it declares all."""
        if entry.enforce_declared:
            self._declared[owner] = {
                (c.kind, c.name): list(c.replaces)
                for c in entry.contributions
                if c.kind in ("tool", "command")
            }

    def clear(self) -> None:
        """Everything stopped (a reload): only the built-in tools stay registered."""
        self._declared.clear()
        self._held.clear()
        self._members.clear()
        self._resources.clear()
        self._bound.clear()
        self._state.registry.clear()

    def register(self, process: ExtensionProcess, owner: str | None = None) -> None:
        """Project a started process's ``register``. ``owner`` is given for a process that
        takes over a name already in the registry (a restart, or a dormant package that
        was activated), which reports nothing twice."""
        registration = process.registration
        assert registration is not None
        taking_over = owner is not None
        owner = owner or self.owner_name(process.name)
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
        self._memory.started(process.plan.name, registration)

    def register_dormant(
        self, owner: str, cached: CachedRegistration, plan: LaunchPlan, activate: Activate
    ) -> None:
        """Project what a package (or the packages of a shared process) registered last
        time without starting it: the first use of any of its tools, commands or hooks
        starts it (``activate``), and then the live registration replaces these entries."""
        dormant = DormantBinding(self._state, owner, plan.features, activate)
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
        named = [(names.owner(m.package, self.owner_name), m) for m in members]
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
        tool_specs, command_specs = self._declared_only(owner, registration)
        entries = [binding.tool(owner, spec) for spec in tool_specs]
        commands = [binding.command(owner, spec) for spec in command_specs]
        hooks = self._hooks(binding, owner, registration.events or [])
        self._register(owner, entries, commands, hooks)

    def _register(
        self,
        owner: str,
        tools: list[ToolEntry],
        commands: list[CommandEntry],
        hooks: list[HookEntry],
    ) -> None:
        """(Re)place everything ``owner`` registers, with the prompts served for it."""
        registry = self._state.registry
        registry.unregister(owner)
        served = self._resources.get(owner, [])
        self._state.diagnostics.extend(
            registry.register(owner, tools=tools, commands=[*commands, *served], hooks=hooks)
        )
        self._held[owner] = _Held(commands, hooks)

    def _hooks(self, binding: Binding, owner: str, events: list[str]) -> list[HookEntry]:
        extended = EVENTS_EXTENDED in binding.features
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
            hooks.append(HookEntry(event, owner, binding.hook(owner, event, wire)))
        return hooks

    def owner_name(self, name: str) -> str:
        # Extensions are not overridden by name: two extensions called "notes" both run.
        # A package's process takes the owner its served prompts already hold.
        owners = self._state.registry.owners
        if name not in owners or (name in self._resources and name not in self._bound):
            return name
        return next(f"{name}#{n}" for n in itertools.count(2) if f"{name}#{n}" not in owners)

    # ------------------------------------------------------------------ what the gateway runs

    def register_prompt(self, prompt: PromptTemplate) -> None:
        """A prompt template found in the workspace or user folders, owned by
        ``prompt:<name>``."""
        owner = f"prompt:{prompt.name}"
        command = prompt_command(prompt, owner)
        self._state.diagnostics.extend(self._state.registry.register(owner, commands=[command]))

    def package_prompts(self, owner: str, prompts: Sequence[PromptTemplate]) -> None:
        """A package's prompt templates as slash commands owned by the package, beside what
        its process registers (or alone, for a package with nothing to run)."""
        self._resources[owner] = [prompt_command(prompt, owner) for prompt in prompts]
        if owner not in self._bound:
            self._register(owner, [], [], [])

    def register_tool_json(self, tool: DiscoveredTool) -> None:
        state, manifest = self._state, tool.manifest
        env = state.env
        try:
            command = resolve_command(list(manifest.command), tool.folder, env.get("PATH"))
        except LaunchError:
            command = list(manifest.command)  # the call says why it cannot start
        confinement = Confinement(state)
        policy = confinement.command(
            manifest.name, tool.folder, command, manifest.effective_capabilities
        )
        env = {**env, **confinement.environment(manifest.name)}

        async def handler(arguments: dict[str, Any]) -> ToolOutcome:
            outcome = await run_tool_json(
                tool, arguments, state.workspace, env, state.config.tool_output_cap,
                policy=policy, require_sandbox=state.config.require_sandbox,
                diagnostics=state.diagnostics,
            )  # fmt: skip
            if outcome.is_error:
                state.diagnostics.add(
                    _codes.TOOL_FAILED(
                        f"tool.json tool {manifest.name}: {outcome.content[:200]}",
                        package=manifest.name,
                    )
                )
            return outcome

        owner = f"tool.json:{manifest.name}"
        entry = make_tool(
            manifest.name,
            manifest.description,
            manifest.input_schema,
            manifest.effective_capabilities,
            owner,
            handler,
            ask_permission=True,
        )
        state.diagnostics.extend(state.registry.register(owner, tools=[entry]))

    def register_calls(self, package: str, plan: CallPlan) -> None:
        """What the gateway runs itself for an installed package (``CallPlan``): its
        per-call tools and prompt commands, each set under its own owner."""
        state = self._state
        tools_owner, commands_owner = calls_owners(package)
        for owner in (tools_owner, commands_owner):
            state.registry.unregister(owner)
        tools = [self._call_tool(package, tools_owner, tool) for tool in plan.tools]
        commands = [client_command(commands_owner, command) for command in plan.commands]
        if tools:
            state.diagnostics.extend(state.registry.register(tools_owner, tools=tools))
        if commands:
            state.diagnostics.extend(state.registry.register(commands_owner, commands=commands))

    def _call_tool(self, package: str, owner: str, tool: CallTool) -> ToolEntry:
        runner = self._calls

        async def handler(arguments: dict[str, Any]) -> ToolOutcome:
            return await runner.call(package, tool, arguments)

        return make_tool(
            tool.name,
            tool.description,
            tool.input_schema,
            tool.capabilities,
            owner,
            handler,
            tool.ecosystem,
            display=tool.display,
        )

    # ------------------------------------------------------------------ declared contributions

    def _runtime_diagnostics(self, owner: str, registration: RegisterMessage) -> None:
        """Diagnostics a runtime reports at registration (``register.diagnostics``)."""
        self._report_runtime(
            owner, RegisterExtras.parse(registration.gateway).runtime_diagnostics()
        )

    def _report_runtime(self, owner: str, items: list[RuntimeDiagnostic | Any]) -> None:
        """Diagnostics a runtime reports, with catalogued codes, under the package they name
        when it hosts several (``register.owners``); anything else is
        ``protocol.diagnostic_invalid``."""
        known_codes = catalogue()
        names = self._members.get(owner)
        for item in items:
            known = known_codes.get(item.code) if isinstance(item, RuntimeDiagnostic) else None
            if known is None or not isinstance(item, RuntimeDiagnostic):
                self._state.diagnostics.add(
                    _codes.RUNTIME_DIAGNOSTIC_INVALID(f"{owner}: {item!r}", package=owner)
                )
                continue
            package = owner
            if names is not None and item.package is not None:
                package = names.owner(item.package, self.owner_name)
            self._state.diagnostics.add(
                known(f"{package}: {item.message}", package=package, contribution=item.contribution)
            )

    def _declared_only(
        self, owner: str, registration: RegisterMessage
    ) -> tuple[list[ToolSpec], list[CommandSpec]]:
        """Where a package's format declares its tools and commands, what it registers must
        match: undeclared ones are refused, declared ones never registered are reported."""
        tools, commands = list(registration.tools or ()), list(registration.commands)
        declared = self._declared.get(owner)
        if declared is None:
            return tools, commands
        kept_tools = self._declared_of(owner, "tool", tools, declared)
        kept_commands = self._declared_of(owner, "command", commands, declared)
        registered = {("tool", t.name) for t in tools} | {("command", c.name) for c in commands}
        for kind, name in sorted(set(declared) - registered):
            self._state.diagnostics.add(
                _codes.CONTRIBUTION_MISSING(
                    f"{owner}: declared {kind} {name!r} was never registered",
                    package=owner,
                    contribution=name,
                )
            )
        return kept_tools, kept_commands

    def _declared_of(
        self, owner: str, kind: str, specs: Sequence[_Spec], declared: Declared
    ) -> list[_Spec]:
        """The declared specs of one kind, without conflicts: a declared contribution takes
        over another package's only when its ``replaces`` names that package; otherwise the
        first one keeps it (nanobot's rule)."""
        registry = self._state.registry
        kept: list[_Spec] = []
        for spec in specs:
            if (kind, spec.name) not in declared:
                self._state.diagnostics.add(
                    _codes.UNDECLARED_CONTRIBUTION(
                        f"{owner}: {kind} {spec.name!r} is not declared in its manifest; refused",
                        package=owner,
                        contribution=spec.name,
                    )
                )
                continue
            current = registry.tool(spec.name) if kind == "tool" else registry.command(spec.name)
            if (
                current is not None
                and current.owner not in (owner, BUILTIN_OWNER)
                and current.owner not in declared[(kind, spec.name)]
            ):
                self._state.diagnostics.add(
                    _codes.CONTRIBUTION_CONFLICT(
                        f"{owner}: {kind} {spec.name!r} is already provided by "
                        f"{current.owner}; not replaced (its `replaces` does not name it)",
                        package=owner,
                        contribution=spec.name,
                    )
                )
                continue
            kept.append(spec)
        return kept

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
        specs, commands = self._update_specs(owner, update)
        names = self._members.get(owner)
        if update.owners is None or names is None:
            self._replace(process, owner, specs, commands)
        else:
            tools_of = split_specs(specs, update.owners.tools, process.name)
            commands_of = split_specs(commands or [], update.owners.commands, process.name)
            for package in dict.fromkeys([*names.names, *tools_of, *commands_of]):
                listed = None if commands is None else commands_of.get(package, [])
                member = names.owner(package, self.owner_name)
                self._replace(process, member, tools_of.get(package, []), listed)
        self._add_skills(owner, update)
        owners = update.owners.tools if update.owners is not None else None
        self._memory.tools_replaced(process.plan.name, specs, owners)

    def _update_specs(
        self, owner: str, update: RegistrationUpdate
    ) -> tuple[list[ToolSpec], list[CommandSpec] | None]:
        """The valid tools and commands (None: not listed) of an update, as declared."""
        specs, problems = update.tool_specs()
        commands, command_problems = update.command_specs()
        for problem in [*problems, *command_problems]:
            self._state.diagnostics.add(
                _codes.RUNTIME_DIAGNOSTIC_INVALID(
                    f"{owner}: invalid tool or command in registration update: {problem}",
                    package=owner,
                )
            )
        declared = self._declared.get(owner)
        if declared is not None:
            specs = [spec for spec in specs if ("tool", spec.name) in declared]
            if commands is not None:
                commands = [c for c in commands if ("command", c.name) in declared]
        return specs, commands

    def _replace(
        self,
        process: ExtensionProcess,
        owner: str,
        specs: list[ToolSpec],
        command_specs: list[CommandSpec] | None,
    ) -> None:
        held = self._held.get(owner, _Held([], []))
        tools = [self._entries.tool(process, owner, spec) for spec in specs]
        commands = held.commands
        if command_specs is not None:
            commands = [self._entries.command(process, owner, spec) for spec in command_specs]
        self._register(owner, tools, commands, held.hooks)

    def _add_skills(self, owner: str, update: RegistrationUpdate) -> None:
        """Skills a runtime found while running (Pi's ``resources_discover``) join the
        session's skills; each path once."""
        skills, problems = update.runtime_skills()
        for problem in problems:
            self._state.diagnostics.add(
                _codes.RUNTIME_DIAGNOSTIC_INVALID(
                    f"{owner}: invalid skill in registration update: {problem}", package=owner
                )
            )
        known = {str(skill.path) for skill in self._state.discovery.skills}
        for skill in skills:
            if skill.path not in known:
                known.add(skill.path)
                found = Skill(skill.name, skill.description, Path(skill.path), "package")
                self._state.discovery.skills.append(found)
