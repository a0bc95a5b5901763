"""Starting what a gateway runs: discovery and installed packages become launch plans, plans
become processes (in dependency waves), crashed runtimes come back with backoff, and
everything stops together on a reload or at exit."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path

import anyio

from gateway.base import DEFAULT_CAPABILITIES, Diagnostic, _codes
from gateway.host._activation import Activator
from gateway.host._call_tools import interrupted_calls
from gateway.host._confinement import Confinement
from gateway.host._host_requests import HostRequestHandler
from gateway.host._projection import Projector, calls_owners
from gateway.host._registrations import RegistrationMemory, registration_key
from gateway.host._sharing import SharedLaunch, shared_launches
from gateway.host._state import GatewayState
from gateway.model import (
    DiscoveredExtension,
    DiscoveredLaunch,
    Discovery,
    LaunchRefusal,
    LaunchSpec,
    ServesResources,
    Skill,
    discover,
    discover_package,
)
from gateway.packages import (
    NoAdapters,
    PackageStatus,
    discover_all,
    evaluate_packages,
    load_adapters,
)
from gateway.runtime import LaunchError, resolve_command
from gateway.sandbox import SandboxPolicy
from gateway.store import STATE_FILE, StoreError
from gateway.wire import (
    ExtensionError,
    ExtensionProcess,
    InitializeMessage,
    LaunchPlan,
    RegisterInvalid,
    SandboxRefused,
    TransportConfig,
    log_path,
)
from gateway.wire.features import EXTENSION_FEATURES, RUNTIME_FEATURES, announcement

__all__ = ["RESTART_BACKOFF", "RESTART_WINDOW", "Loader"]

RESTART_BACKOFF: tuple[float, ...] = (0.2, 0.5, 1.0, 2.0, 4.0)
"""Seconds before each restart attempt of a crashed runtime; then it stays down."""
RESTART_WINDOW = 60.0
"""More than ``len(RESTART_BACKOFF)`` crashes within this many seconds: give up."""


def _selected(packages: list[PackageStatus], wanted: Iterable[str]) -> list[PackageStatus]:
    """The named packages and, transitively, the packages they need running."""
    by_id = {status.id: status for status in packages}
    chosen: set[str] = set()
    pending = [name for name in wanted if name in by_id]
    while pending:
        name = pending.pop()
        if name not in chosen:
            chosen.add(name)
            pending += [d for d in _requires(by_id[name]) if d in by_id]
    return [status for status in packages if status.id in chosen]


def _requires(status: PackageStatus) -> set[str]:
    """The packages ``status`` needs running before it starts."""
    return {
        d.name
        for d in status.entry.dependencies
        if d.kind == "extension" and not d.optional and d.name != status.id
    }


class Loader:
    """Owns process lifetimes: starting (now, or dormant until first use through its
    ``Activator``), restarting (with its crash history), stopping."""

    def __init__(
        self,
        state: GatewayState,
        projector: Projector,
        host_requests: HostRequestHandler,
        memory: RegistrationMemory,
    ) -> None:
        self._state = state
        self._projector = projector
        self._host_requests = host_requests
        self._memory = memory
        self._activator = Activator(state, self._start_dormant)
        self._confinement = Confinement(state)
        self._transport = TransportConfig(
            state.config.line_cap,
            state.config.shutdown_grace,
            state.config.term_grace,
            state.config.require_sandbox,
        )
        self._crashes: dict[str, list[float]] = {}
        self._resources: dict[str, Discovery] = {}
        """Package id → what its adapter says the gateway serves itself (skills, prompts)."""

    # ------------------------------------------------------------------ load and stop

    async def load(self) -> None:
        """Discover, evaluate installed packages, register what the gateway runs itself,
        start what must run now and hold the rest dormant."""
        state = self._state
        only = state.config.packages
        if only is None:
            state.discovery = discover(state.workspace, state.config.user_home, state.trusted)
        else:
            state.discovery = Discovery()  # only the named packages: nothing discovered
        state.diagnostics.extend(state.discovery.diagnostics)
        state.packages = await anyio.to_thread.run_sync(self._evaluate_packages)
        if only is not None:
            state.packages = _selected(state.packages, only)
        state.diagnostics.extend(await anyio.to_thread.run_sync(self._interrupted_calls))
        launches: list[DiscoveredExtension | LaunchPlan] = [*state.discovery.extensions]
        if only is None:
            launches += self._discovered_launches()
        active = [status for status in state.packages if status.active]
        for status in state.packages:
            state.diagnostics.extend(status.diagnostics)
        shared, alone = self._shared(active)
        for group in shared:
            launches += self._installed_group(group)
        for status in alone:
            launches += self._installed(status)
        for prompt in state.discovery.prompts:
            if prompt.owner is None:  # a package's are registered with the package
                self._projector.register_prompt(prompt)
        for tool in state.discovery.tools:
            self._projector.register_tool_json(tool)
        await self._start_in_dependency_order(launches)

    def _shared(
        self, active: list[PackageStatus]
    ) -> tuple[list[SharedLaunch], list[PackageStatus]]:
        """Active packages grouped into shared processes (``gateway.host._sharing``)."""
        if not self._state.config.shared_processes:
            return [], active
        try:
            adapters = load_adapters()
        except NoAdapters:
            return [], active
        return shared_launches(active, adapters, self._state.config.home, _requires)

    def _installed_group(self, group: SharedLaunch) -> list[LaunchPlan]:
        """One process for several packages: held dormant when its registration is cached,
        else to start now."""
        for status in group.statuses:
            self._serve_resources(status)
            self._projector.declare(status.id, status.entry)
        digest = hashlib.sha256(group.name.encode()).hexdigest()[:8]
        log = log_path(self._state.config.logs_dir, "shared", group.name, digest)
        origin = group.statuses[0].package.record.path
        policy = self._confinement.shared(group.name, group.statuses, group.spec)
        plan = self._runtime_plan(group.name, group.spec, origin, log, policy, group.members)
        return [] if self._held_dormant(group.statuses, plan) else [plan]

    def _serve_resources(self, status: PackageStatus) -> bool:
        """Skills and prompt templates the package's adapter says the gateway serves itself
        join the discovery (listed; prompts become its slash commands)."""
        resources = self._resources.get(status.id)
        if resources is None:
            return False
        self._state.discovery.skills += resources.skills
        self._state.discovery.prompts += resources.prompts
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
            self._projector.register_calls(status.id, status.calls)
            self._state.discovery.skills += [
                Skill(s.name, s.description, s.path, "package") for s in status.calls.skills
            ]
        if isinstance(status.runtime, LaunchSpec):
            self._projector.declare(status.id, status.entry)
            plans.append(self._package_plan(status, status.runtime))
        elif status.calls is None and not served:
            held = discover_package(status.package.record.path)
            self._state.diagnostics.extend(held.diagnostics)
            held_extensions, held.extensions = held.extensions, []
            self._state.discovery.extend(held)
            for found in held_extensions:
                try:
                    plans.append(self._plan_for(found))
                except LaunchError as error:
                    self._start_failed(found.manifest.name, found.folder / "extension.json", error)
        return [plan for plan in plans if not self._held_dormant((status,), plan)]

    def _held_dormant(self, statuses: Sequence[PackageStatus], plan: LaunchPlan) -> bool:
        """Hold ``plan`` (one package's process, or one shared by ``statuses``) dormant
        when what it registered last time is cached for exactly these packages."""
        state = self._state
        base = state.env
        env = {k: v for k, v in plan.env.items() if base.get(k) != v}
        keys = [
            registration_key(
                status.id,
                status.package.record.content_hash,
                plan.command,
                env,
                state.config.home / "config" / f"{status.id}.json",
                status.package.granted,
            )
            for status in statuses
        ]
        key = keys[0] if len(keys) == 1 else hashlib.sha256("".join(keys).encode()).hexdigest()
        cached = self._memory.lookup(plan.name, key)
        eager = any(isinstance(s.runtime, LaunchSpec) and s.runtime.eager for s in statuses)
        if cached is None or not state.config.lazy_start or (eager and not state.config.hold_eager):
            return False
        owner = self._projector.owner_name(plan.name)
        requires = frozenset().union(*(_requires(status) for status in statuses))
        self._activator.hold(owner, plan, tuple(status.id for status in statuses), requires)
        activate = functools.partial(self._activator.activate, owner)
        self._projector.register_dormant(owner, cached, plan, activate)
        return True

    async def warm(self) -> None:
        """Start every runtime still held dormant, together (``gateway serve``: listed from
        the cache at once, then warmed in the background)."""
        async with anyio.create_task_group() as group:
            for owner in self._activator.dormant():
                group.start_soon(self._activator.activate, owner)

    async def stop(self) -> None:
        """Stop every process (shielded: a cancelled caller still stops them all)."""
        state = self._state
        processes, state.processes = state.processes, []
        state.owners.clear()
        with anyio.CancelScope(shield=True):
            async with anyio.create_task_group() as group:
                for process in processes:
                    group.start_soon(process.aclose)
        self._projector.clear()
        self._activator.clear()
        self._memory.clear()

    def _evaluate_packages(self) -> list[PackageStatus]:
        """Installed packages and their gates; only active ones are loaded."""
        home = self._state.config.home
        self._resources = {}
        if not (home / STATE_FILE).exists():
            return []
        try:
            adapters = load_adapters()
            statuses = evaluate_packages(home, adapters)
        except (StoreError, NoAdapters) as error:
            self._state.diagnostics.add(
                _codes.STORE_UNUSABLE(f"installed packages not loaded: {error}")
            )
            return []
        for status in statuses:
            adapter = adapters.adapter(status.entry.ecosystem)
            if status.active and isinstance(adapter, ServesResources):
                self._resources[status.id] = adapter.package_resources(status.entry)
        return statuses

    def _interrupted_calls(self) -> list[Diagnostic]:
        """At-most-once calls a crashed gateway left unresolved, reported at each load."""
        try:
            return interrupted_calls(self._state.config.home)
        except StoreError:
            return []  # the packages' evaluation reports an unusable store

    # ------------------------------------------------------------------ plans

    def _plan_for(self, found: DiscoveredExtension) -> LaunchPlan:
        state, manifest = self._state, found.manifest
        env = state.env
        command = resolve_command(list(manifest.command), found.folder, env.get("PATH"))
        # The folder's hash keeps two same-named extensions of different roots apart.
        digest = hashlib.sha256(str(found.folder).encode()).hexdigest()[:8]
        confinement = self._confinement
        return LaunchPlan(
            name=manifest.name,
            command=command,
            cwd=state.workspace,
            env={**env, **confinement.environment(manifest.name)},
            log_path=log_path(state.config.logs_dir, manifest.name, found.folder.name, digest),
            response_timeout=manifest.response_timeout_seconds,
            origin=found.folder / "extension.json",
            features=self._offered(EXTENSION_FEATURES),
            # Its tools declare their capabilities only in `register`: until then, nimlet's
            # default for a tool that declares none (write, shell, network).
            sandbox=confinement.command(manifest.name, found.folder, command, DEFAULT_CAPABILITIES),
        )

    def _discovered_launches(self) -> list[LaunchPlan]:
        """What the adapters found in their ecosystems' own discovery directories, e.g.
        Pi's ``.pi/extensions``."""
        state = self._state
        try:
            adapters = load_adapters()
        except NoAdapters:
            return []  # reported once, with the packages
        found: list[DiscoveredLaunch] = discover_all(
            adapters, state.workspace, state.config.user_home, state.trusted, state.config.home
        )
        plans: list[LaunchPlan] = []
        for item in found:
            state.diagnostics.extend(item.diagnostics)
            if isinstance(item.launch, LaunchRefusal):
                state.diagnostics.add(
                    _codes.RUNTIME_UNAVAILABLE(
                        f"{item.name} ({item.origin}) not started: {item.launch.reason}",
                        package=item.name,
                        hint=item.launch.hint,
                    )
                )
            elif item.launch is not None:
                digest = hashlib.sha256(item.name.encode()).hexdigest()[:8]
                log = log_path(state.config.logs_dir, "discovered", item.name, digest)
                policy = self._confinement.discovered(item.name, item.origin, item.launch)
                plans.append(self._runtime_plan(item.name, item.launch, item.origin, log, policy))
        return plans

    def _package_plan(self, status: PackageStatus, spec: LaunchSpec) -> LaunchPlan:
        root = status.package.record.path
        digest = hashlib.sha256(status.id.encode()).hexdigest()[:8]
        log = log_path(self._state.config.logs_dir, "package", root.parent.name, digest)
        policy = self._confinement.package(status, spec)
        return self._runtime_plan(status.id, spec, root, log, policy)

    def _runtime_plan(
        self,
        name: str,
        spec: LaunchSpec,
        origin: Path,
        log: Path,
        policy: SandboxPolicy | None,
        members: tuple[str, ...] = (),
    ) -> LaunchPlan:
        """A runtime an adapter planned: offered the protocol additions, restarted with
        backoff after a crash."""
        state = self._state
        return LaunchPlan(
            name=name,
            command=list(spec.command),
            cwd=state.workspace,
            env={**state.env, **self._confinement.environment(name), **spec.env},
            log_path=log,
            response_timeout=spec.response_timeout,
            start_timeout=spec.start_timeout,
            origin=origin,
            restart=True,
            features=self._offered(RUNTIME_FEATURES),
            sandbox=policy,
            members=members,
        )

    def _offered(self, features: frozenset[str]) -> frozenset[str]:
        """In strict plain-v1 mode nothing is offered (``GatewayConfig.plain_v1``)."""
        return frozenset() if self._state.config.plain_v1 else features

    def _initialize(self, plan: LaunchPlan) -> InitializeMessage:
        return InitializeMessage(
            workspace=str(self._state.workspace),
            session_id=self._state.session.id,
            # A real nimlet host sends no announcement at all: strict plain v1 neither.
            gateway=None if self._state.config.plain_v1 else announcement(plan.features),
        )

    def _new_process(self, plan: LaunchPlan) -> ExtensionProcess:
        state = self._state
        return ExtensionProcess(
            plan,
            next_id=state.next_id,
            diagnostics=state.diagnostics,
            on_effects=self._projector.on_effects,
            ui_handler=self._host_requests.ask_user,
            config=self._transport,
            on_exit=self._on_process_exit,
            host_handler=self._host_requests.answer,
            on_tool_update=self._projector.on_tool_update,
            pause=state.pause,
        )

    # ------------------------------------------------------------------ starting

    async def _start_in_dependency_order(
        self, launches: list[DiscoveredExtension | LaunchPlan]
    ) -> None:
        """What has no package dependency starts together; then each later wave, once what
        it depends on runs (a dormant dependency is activated first). A package whose
        dependency failed to start is not started (and says so); nothing else is affected."""
        state = self._state
        requires = {status.id: _requires(status) for status in state.packages}
        depth: dict[str, int] = {}
        for status in state.packages:  # activation order: dependencies come first
            depth[status.id] = 1 + max((depth.get(d, -1) for d in requires[status.id]), default=-1)
        waves: dict[int, list[DiscoveredExtension | LaunchPlan]] = {}
        for item in launches:
            level = depth.get(item.name, 0) if isinstance(item, LaunchPlan) else 0
            waves.setdefault(level, []).append(item)
        await self._start_all(waves.pop(0, []))
        for level in sorted(waves):
            ready: list[DiscoveredExtension | LaunchPlan] = []
            for plan in waves[level]:
                assert isinstance(plan, LaunchPlan)
                for package in requires.get(plan.name, set()):
                    if self._activator.is_dormant(package):
                        await self._activator.activate_package(package)
                running = {state.owner_of(process) for process in state.processes}
                running.update(m for process in state.processes for m in process.plan.members)
                missing = sorted(requires.get(plan.name, set()) - running)
                if missing:
                    state.diagnostics.add(
                        _codes.GATE_BLOCKED(
                            f"{plan.name}: not started because {', '.join(missing)} did not start",
                            package=plan.name,
                        )
                    )
                else:
                    ready.append(plan)
            await self._start_all(ready)

    async def _start_all(self, items: Iterable[DiscoveredExtension | LaunchPlan]) -> None:
        """Start every extension at once; register them in discovery (startup) order."""
        found = list(items)
        started: list[ExtensionProcess | None] = [None] * len(found)

        async def start(index: int, item: DiscoveredExtension | LaunchPlan) -> None:
            if isinstance(item, LaunchPlan):
                plan = item
            else:
                try:
                    plan = self._plan_for(item)
                except LaunchError as error:
                    self._start_failed(item.manifest.name, item.folder / "extension.json", error)
                    return
            process = self._new_process(plan)
            try:
                await process.start(self._state.tasks, self._initialize(plan))
            except ExtensionError as error:
                self._start_failed(plan.name, plan.origin, error)
                return
            started[index] = process

        async with anyio.create_task_group() as group:
            for index, item in enumerate(found):
                group.start_soon(start, index, item)
        for process in started:
            if process is not None:
                self._projector.register(process)

    async def _start_dormant(self, plan: LaunchPlan, owner: str) -> bool:
        """Activate a dormant package: start it and let its live registration replace the
        cached one (``Activator``'s ``StartPlan``)."""
        process = self._new_process(plan)
        try:
            await process.start(self._state.tasks, self._initialize(plan))
        except ExtensionError as error:
            self._start_failed(plan.name, plan.origin, error)
            return False
        self._projector.register(process, owner)
        return True

    def _start_failed(self, name: str, origin: Path | None, error: Exception) -> None:
        code = _codes.EXTENSION_START_FAILED
        if isinstance(error, RegisterInvalid):
            code = _codes.REGISTER_INVALID
        elif isinstance(error, SandboxRefused):
            code = _codes.SANDBOX_REFUSED
        self._state.diagnostics.add(
            code(f"extension '{name}' failed to start ({origin}): {error}", package=name)
        )

    # ------------------------------------------------------------------ restarts

    async def restart_package(self, package_id: str) -> bool:
        """Stop an installed package's runtime and what the gateway runs for it, evaluate
        its gates again, and start it with its current plan (new settings and secrets);
        nothing else is touched. True when it runs again."""
        state = self._state
        statuses = await anyio.to_thread.run_sync(self._evaluate_packages)
        status = next((s for s in statuses if s.id == package_id), None)
        old = [p for p in state.processes if p.plan.name == package_id]
        for process in old:
            state.processes.remove(process)
            owner = state.owners.pop(process, package_id)
            state.registry.unregister(owner)
        with anyio.CancelScope(shield=True):
            async with anyio.create_task_group() as group:
                for process in old:
                    group.start_soon(process.aclose)
        state.registry.unregister(package_id)  # a dormant registration
        self._activator.forget(package_id)
        for owner in calls_owners(package_id):
            state.registry.unregister(owner)
        state.packages = [s for s in state.packages if s.id != package_id]
        if status is None:
            return False
        state.packages.append(status)
        state.diagnostics.extend(status.diagnostics)
        if not status.active or (status.runtime is None and status.calls is None):
            return False  # nimlet's own formats have no settings to restart with
        await self._start_all(self._installed(status))
        return True

    def _on_process_exit(self, process: ExtensionProcess) -> None:
        if process.plan.restart and process in self._state.processes:
            self._state.tasks.start_soon(self._restart, process)

    async def _restart(self, old: ExtensionProcess) -> None:
        """Restart a crashed runtime with backoff; its registrations come back under the
        same owner. Calls that were in flight already failed (``extension.exited``)."""
        state = self._state
        owner = state.owner_of(old)
        await old.aclose()  # reap it: pipes and log closed (its calls already failed)
        now = anyio.current_time()
        crashes = [t for t in self._crashes.get(owner, []) if now - t < RESTART_WINDOW]
        crashes.append(now)
        self._crashes[owner] = crashes
        if len(crashes) > len(RESTART_BACKOFF):
            state.diagnostics.add(
                _codes.EXTENSION_EXITED(
                    f"extension {owner} crashed {len(crashes)} times within "
                    f"{RESTART_WINDOW:g}s; not restarted again until a reload",
                    package=owner,
                )
            )
            return
        await anyio.sleep(RESTART_BACKOFF[len(crashes) - 1])
        if old not in state.processes:
            return  # stopped or reloaded meanwhile
        new = self._new_process(old.plan)
        try:
            await new.start(state.tasks, self._initialize(old.plan))
        except ExtensionError as error:
            state.diagnostics.add(
                _codes.EXTENSION_START_FAILED(
                    f"restart of extension {owner} failed: {error}", package=owner
                )
            )
            self._on_process_exit(old)  # next attempt, with the next backoff step
            return
        if old not in state.processes:
            await new.aclose()
            return
        state.processes.remove(old)
        state.owners.pop(old, None)
        self._projector.register(new, owner)
