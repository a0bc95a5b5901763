"""Loading what a gateway runs: discovery and installed packages become launch plans, held
dormant when their registration is cached or started in dependency waves; one package
restarted with its current settings; everything stopped together on a reload or at exit.
Plans come from the ``Planner``, processes are started by the ``Starter``; what the
gateway runs itself is registered through ``OwnEntries``."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path

import anyio

from gateway.base import Diagnostic
from gateway.host._activation import Activator
from gateway.host._dependencies import depths, load_order, requires, selected
from gateway.host._host_requests import HostRequestHandler
from gateway.host._installed import evaluate_installed, served_resources
from gateway.host._last_starts import remember_last_starts, unresolved_calls
from gateway.host._own_entries import OwnEntries, calls_owners
from gateway.host._planning import Planner
from gateway.host._preference import clash_preference
from gateway.host._projection import Projector
from gateway.host._registrations import RegistrationMemory, registration_key, start_inputs
from gateway.host._sharing import SharedLaunch, shared_launches
from gateway.host._starting import Starter
from gateway.host._state import GatewayState
from gateway.model import (
    DiscoveredExtension,
    Discovery,
    LaunchSpec,
    Skill,
    discover,
    discover_package,
)
from gateway.packages import (
    GATE_BLOCKED,
    NoAdapters,
    PackageStatus,
    load_adapters,
    recalled_denials,
)
from gateway.runtime import LaunchError
from gateway.wire import LaunchPlan

__all__ = ["Loader"]


class Loader:
    """Owns process lifetimes: starting (now through its ``Starter``, which restarts what
    crashes, or dormant until first use through its ``Activator``) and stopping."""

    def __init__(
        self,
        state: GatewayState,
        projector: Projector,
        host_requests: HostRequestHandler,
        memory: RegistrationMemory,
    ) -> None:
        self._state = state
        self._projector = projector
        self._memory = memory
        self._own = OwnEntries(state)
        self._restarting = anyio.Lock()  # the settings watcher's and a caller's take turns
        self._planner = Planner(state)
        self._starter = Starter(state, self._planner, projector, host_requests)
        self._activator = Activator(state, self._starter.start_dormant)
        self._resources: dict[str, Discovery] = {}  # id → what the gateway serves of it

    # ------------------------------------------------------------------ load and stop

    async def load(self) -> None:
        """Discover, evaluate installed packages, register what the gateway runs itself,
        start what must run now and hold the rest dormant — all in the load order
        (``Registry.extend_order``), which decides name clashes and the order hooks are
        asked in: the workspace's and user's prompt templates and ``tool.json`` tools,
        discovered extensions (nimlet's root order), what the adapters discovered, then
        installed packages in install order (dependencies first)."""
        state = self._state
        only = state.config.packages
        if only is None:
            state.discovery = discover(state.workspace, state.config.user_home, state.trusted)
        else:
            state.discovery = Discovery()  # only the named packages: nothing discovered
        state.diagnostics.extend(state.discovery.diagnostics)
        state.packages = load_order(await anyio.to_thread.run_sync(self._evaluate_packages))
        home, ids = state.config.home, {status.id for status in state.packages}
        preferred, notes = await anyio.to_thread.run_sync(clash_preference, home, ids)
        if only is not None:
            state.packages = selected(state.packages, only)
        state.diagnostics.extend([*notes, *await anyio.to_thread.run_sync(unresolved_calls, home)])
        registry = state.registry
        registry.set_order((), preferred)
        for prompt in state.discovery.prompts:
            if prompt.owner is None:  # a package's are registered with the package
                registry.extend_order([f"prompt:{prompt.name}"])
                self._own.prompt(prompt)
        for tool in state.discovery.tools:
            registry.extend_order([f"tool.json:{tool.manifest.name}"])
            self._own.tool_json(tool)
        launches: list[DiscoveredExtension | LaunchPlan] = [*state.discovery.extensions]
        if only is None:
            launches += self._planner.discovered()
        registry.extend_order(found.manifest.name for found in state.discovery.extensions)
        registry.extend_order(item.name for item in launches if isinstance(item, LaunchPlan))
        active = [status for status in state.packages if status.ready]
        for status in state.packages:
            state.diagnostics.extend(status.diagnostics)
            if not status.ready:  # disabled, untrusted, blocked: its next start is real
                self._memory.start_failed(status.id)
        shared, alone, notes = self._shared(active)
        state.diagnostics.extend(notes)
        groups = {group.statuses[0].id: group for group in shared}
        alone_ids = {status.id for status in alone}
        for status in (s for s in active if s.id in alone_ids or s.id in groups):
            group = groups.get(status.id)
            if group is not None:
                registry.extend_order([group.name])
                for member in group.statuses:
                    registry.extend_order([member.id, *calls_owners(member.id)])
                launches += self._installed_group(group)
            else:
                registry.extend_order([status.id, *calls_owners(status.id)])
                launches += self._installed(status)
        try:
            await self._start_in_dependency_order(launches)
        finally:
            state.diagnostics.extend(registry.settle())
        self._note_load_failures()

    def _note_load_failures(self) -> None:
        """A package started here whose code did not load is not active (its status says
        why); one that loaded is, whatever its last start said."""
        state = self._state
        for status in state.packages:
            if status.id in state.started:
                status.load_failure = state.load_failures.get(status.id)

    def _shared(
        self, active: list[PackageStatus]
    ) -> tuple[list[SharedLaunch], list[PackageStatus], list[Diagnostic]]:
        """Active packages the user grouped, in shared processes (``gateway.host._sharing``)."""
        if not self._state.config.shared_processes:
            return [], active, []
        try:
            adapters = load_adapters()
        except NoAdapters:
            return [], active, []
        return shared_launches(active, adapters, self._state.config.home, requires)

    def _installed_group(self, group: SharedLaunch) -> list[LaunchPlan]:
        """One process for several packages: held dormant when its registration is cached,
        else to start now."""
        for status in group.statuses:
            self._serve_resources(status)
            self._projector.declare(status.id, status.entry)
        plan = self._planner.shared(group)
        return [] if self._held_dormant(group.statuses, plan) else [plan]

    def _serve_resources(self, status: PackageStatus) -> bool:
        """Skills and prompt templates the package's adapter says the gateway serves itself
        join the discovery (listed; prompts become its slash commands)."""
        resources = self._resources.get(status.id)
        if resources is None:
            return False
        text = self._projector.text
        self._state.discovery.skills += text.skills(status.id, resources.skills)
        self._state.discovery.prompts += text.prompts(status.id, resources.prompts)
        self._state.diagnostics.extend(resources.diagnostics)
        if resources.prompts:
            self._projector.package_prompts(status.id, resources.prompts)
        return True

    def _installed(self, status: PackageStatus) -> list[LaunchPlan]:
        """An active package's processes: held dormant when its registration is cached,
        else to start now. What the gateway runs itself is registered: the calls its
        adapter planned (``CallPlan``), else its nimlet formats (tool.json tools, prompts),
        added to the discovery."""
        plans: list[LaunchPlan] = []
        served = self._serve_resources(status)
        if status.calls is not None:
            self._own.calls(status.id, status.calls)
            self._state.discovery.skills += self._projector.text.skills(status.id, [
                Skill(s.name, s.description, s.path, "package") for s in status.calls.skills
            ])  # fmt: skip
        if isinstance(status.runtime, LaunchSpec):
            self._projector.declare(status.id, status.entry)
            plans.append(self._planner.package(status, status.runtime))
        elif status.calls is None and not served:
            held = discover_package(status.package.record.path)
            self._state.diagnostics.extend(held.diagnostics)
            held_extensions, held.extensions = held.extensions, []
            held.skills = self._projector.text.skills(status.id, held.skills)
            held.prompts = self._projector.text.prompts(status.id, held.prompts)
            self._state.discovery.extend(held)
            self._state.registry.extend_order(found.manifest.name for found in held_extensions)
            for found in held_extensions:
                try:
                    plans.append(self._planner.extension(found, status.id, status.package.granted))
                except LaunchError as error:
                    origin = found.folder / "extension.json"
                    self._starter.failed(found.manifest.name, origin, error, identity=status.id)
        return [plan for plan in plans if not self._held_dormant((status,), plan)]

    def _held_dormant(self, statuses: Sequence[PackageStatus], plan: LaunchPlan) -> bool:
        """Hold ``plan`` (one package's process, or one shared by ``statuses``) dormant
        when what it registered last time is cached for exactly these packages."""
        state = self._state
        base = state.env
        env = {k: v for k, v in plan.env.items() if base.get(k) != v}
        keys = [
            registration_key(plan.command, env, start_inputs(status, state.config.home))
            for status in statuses
        ]
        key = keys[0] if len(keys) == 1 else hashlib.sha256("".join(keys).encode()).hexdigest()
        members = [status.id for status in statuses] if len(statuses) > 1 else []
        cached = self._memory.lookup(plan.identity, key, members)
        eager = any(isinstance(s.runtime, LaunchSpec) and s.runtime.eager for s in statuses)
        if cached is None or not state.config.lazy_start or (eager and not state.config.hold_eager):
            return False
        owner = self._projector.owner_name(plan.name)
        needs = frozenset().union(*(requires(status) for status in statuses))
        self._activator.hold(owner, plan, tuple(status.id for status in statuses), needs)
        activate = functools.partial(self._activator.activate, owner)
        self._projector.register_dormant(owner, cached, plan, activate)
        for status in statuses:  # not started now: what its last start was refused
            said = recalled_denials(state.config.home, status.id, status.package.granted)
            state.diagnostics.extend(said)
        return True

    async def warm(self, packages: Iterable[str] | None = None) -> None:
        """Start every runtime still held dormant — or those of ``packages`` — together
        (``gateway serve``: listed from the cache at once, then warmed in the background)."""
        owners = self._activator.dormant()
        if packages is not None:
            owners = [o for o in dict.fromkeys(map(self._activator.owner_of, packages)) if o]
        async with anyio.create_task_group() as group:
            for owner in owners:
                group.start_soon(self._activator.activate, owner)

    async def start_for(self, events: Iterable[str], tools: Iterable[str]) -> None:
        """``Gateway.start_for``: the dormant subscribers of ``events`` and owners of
        ``tools`` (or commands of those names), started together."""
        registry = self._state.registry
        tools = list(tools)
        owners = [
            hook.owner
            for event in events
            for hook in registry.hooks(event)
            if not tools or hook.tools is None or not hook.tools.isdisjoint(tools)
        ]
        for name in tools:
            found = registry.tool(name) or registry.command(name)
            owners += [found.owner] if found is not None else []
        await self.warm(owners)

    async def stop(self) -> None:
        """Stop every process, a start in flight abandoned first (shielded: a cancelled
        caller still stops them all)."""
        await self._activator.abandon()
        processes, self._state.processes = self._state.processes, []
        self._state.owners.clear()
        with anyio.CancelScope(shield=True):
            async with anyio.create_task_group() as group:
                for process in processes:
                    group.start_soon(process.aclose)
        remember_last_starts(self._state)
        self._projector.clear()
        self._activator.clear()
        self._memory.clear()

    def _evaluate_packages(self) -> list[PackageStatus]:
        """Installed packages and their gates; only active ones are loaded."""
        statuses = evaluate_installed(self._state)
        self._resources = served_resources(statuses, self._state.config.home)
        return statuses

    # ------------------------------------------------------------------ starting

    async def _start_in_dependency_order(
        self, launches: list[DiscoveredExtension | LaunchPlan]
    ) -> None:
        """What has no package dependency starts together; then each later wave, once what
        it depends on runs (a dormant dependency is activated first). A package whose
        dependency failed to start is not started (and says so); nothing else is affected."""
        state = self._state
        needs = {status.id: requires(status) for status in state.packages}
        depth = depths(state.packages)
        waves: dict[int, list[DiscoveredExtension | LaunchPlan]] = {}
        for item in launches:
            level = depth.get(item.identity, 0) if isinstance(item, LaunchPlan) else 0
            waves.setdefault(level, []).append(item)
        await self._starter.start_all(waves.pop(0, []))
        for level in sorted(waves):
            ready: list[DiscoveredExtension | LaunchPlan] = []
            for plan in waves[level]:
                assert isinstance(plan, LaunchPlan)
                for package in needs.get(plan.identity, set()):
                    if self._activator.is_dormant(package):
                        await self._activator.activate_package(package)
                running = {state.owner_of(process) for process in state.processes}
                running.update(m for process in state.processes for m in process.plan.members)
                missing = sorted(needs.get(plan.identity, set()) - running)
                if missing:
                    state.diagnostics.add(
                        GATE_BLOCKED(
                            f"{plan.name}: not started because {', '.join(missing)} did not start",
                            package=plan.name,
                        )
                    )
                else:
                    ready.append(plan)
            await self._starter.start_all(ready)

    # ------------------------------------------------------------------ one package again

    async def restart_package(
        self, package_id: str, drain: float = 0, evaluated: Sequence[PackageStatus] | None = None
    ) -> bool:
        """Stop an installed package's runtime and what the gateway runs for it, evaluate
        its gates again, and start it with its current plan (new settings and secrets);
        nothing else is touched. True when it runs again (and its code loaded)."""
        async with self._restarting:
            if evaluated is None:
                statuses = await self.evaluate()
            else:  # the caller's word: what it said of the package runs, not a later store
                statuses = list(evaluated)
                home = self._state.config.home
                self._resources = await anyio.to_thread.run_sync(served_resources, statuses, home)
            status = next((s for s in statuses if s.id == package_id), None)
            packages = enumerate(self._state.packages)
            place = next((i for i, s in packages if s.id == package_id), None)
            await self.retire_package(package_id, drain)
            return await self.start_package(status, place) if status is not None else False

    async def evaluate(self) -> list[PackageStatus]:
        """Installed packages and their gates, as they are now (``--package`` applied)."""
        statuses = await anyio.to_thread.run_sync(self._evaluate_packages)
        only = self._state.config.packages
        return statuses if only is None else selected(statuses, only)

    async def retire_package(self, package_id: str, drain: float = 0) -> None:
        """Take a package out: its tools, commands and hooks leave the registry at once (a
        new call is an unknown tool), the requests already sent to its processes get up to
        ``drain`` seconds to be answered, then its processes stop."""
        state = self._state
        gone = next((s for s in state.packages if s.id == package_id), None)
        root = gone.package.record.path if gone is not None else None

        def inside(path: Path | None) -> bool:
            return root is not None and path is not None and path.is_relative_to(root)

        old = [p for p in state.processes if p.plan.identity == package_id or inside(p.plan.origin)]
        for process in old:
            state.processes.remove(process)
            state.registry.unregister(state.owners.pop(process, package_id))
        state.registry.unregister(package_id)  # a dormant registration
        self._activator.forget(package_id)
        for owner in calls_owners(package_id):
            state.registry.unregister(owner)
        state.packages = [s for s in state.packages if s.id != package_id]
        found = state.discovery  # what the gateway serves itself from its files
        for tool in [t for t in found.tools if inside(t.folder)]:
            state.registry.unregister(f"tool.json:{tool.manifest.name}")
        for prompt in [p for p in found.prompts if p.owner is None and inside(p.path)]:
            state.registry.unregister(f"prompt:{prompt.name}")
        found.tools = [t for t in found.tools if not inside(t.folder)]
        found.prompts = [p for p in found.prompts if p.owner != package_id and not inside(p.path)]
        found.skills = [s for s in found.skills if not inside(s.path)]
        with anyio.move_on_after(drain):
            for process in old:
                await self._projector.drained(process)
        with anyio.CancelScope(shield=True):
            async with anyio.create_task_group() as group:
                for process in old:
                    group.start_soon(process.aclose)

    async def start_package(self, status: PackageStatus, place: int | None = None) -> bool:
        """Start an installed package (held dormant when its registration is cached) as a
        load would; True when it is active (ready, and its code loaded). ``place``: its
        position among the packages (a restarted one keeps its own: install order decides
        name clashes); a new one comes last."""
        state = self._state
        state.packages.insert(len(state.packages) if place is None else place, status)
        state.diagnostics.extend(status.diagnostics)
        if not status.ready:
            return False
        tools, prompts = len(state.discovery.tools), len(state.discovery.prompts)
        plans = self._installed(status)
        for prompt in state.discovery.prompts[prompts:]:
            if prompt.owner is None:  # a package's are registered with the package
                self._own.prompt(prompt)
        for tool in state.discovery.tools[tools:]:
            self._own.tool_json(tool)
        await self._starter.start_all(plans)
        self._note_load_failures()
        return status.active
