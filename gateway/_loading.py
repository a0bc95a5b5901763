"""Starting what a gateway runs: discovery and installed packages become launch plans, plans
become processes, crashed sidecars come back with backoff. A part of ``Gateway``."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import anyio

from . import _codes
from ._spawn import LaunchError, resolve_command
from .discovery import DiscoveredExtension, discover, discover_package, expand_prompt
from .external_tools import run_tool_json
from .packages import (
    LaunchRefusal,
    LaunchSpec,
    NoAdapters,
    PackageStatus,
    evaluate_packages,
    load_discoverers,
    load_inspector,
    runtime_planner,
)
from .process import ExtensionError, ExtensionProcess, LaunchPlan, RegisterInvalid
from .protocol import InitializeMessage
from .registry import CommandEntry, CommandOutcome, ToolOutcome, make_tool
from .store import STATE_FILE, StoreError

GATEWAY_FEATURES = {"version": 1, "features": ["register.diagnostics"]}
"""Announced in ``initialize``; plain nimlet extensions ignore it (docs/protocol.md)."""

SIDECAR_FEATURES = {
    "version": GATEWAY_FEATURES["version"],
    "features": [
        *GATEWAY_FEATURES["features"],
        "tool.parts",
        "tool.progress",
        "registration.update",
        "host.actions",
        "host.request",
        "events.extended",
    ],
}
"""Announced to the runtimes planned for installed packages (the sidecars), which use the
additions of docs/protocol.md; extensions found through ``extension.json`` get
``GATEWAY_FEATURES`` and so never see a new field."""

RESTART_BACKOFF: tuple[float, ...] = (0.2, 0.5, 1.0, 2.0, 4.0)
"""Seconds before each restart attempt of a crashed sidecar; then it stays down."""
RESTART_WINDOW = 60.0
"""More than ``len(RESTART_BACKOFF)`` crashes within this many seconds: give up."""


class _Loading:
    """Loading and process lifetimes; mixed into ``Gateway`` (see host.py for its state)."""

    async def _load(self) -> None:
        self._declared.clear()
        self.discovery = discover(self.workspace, self.config.user_home, self.trusted)
        self.diagnostics.extend(self.discovery.diagnostics)
        launches = self._discovered_launches()
        self.packages = await anyio.to_thread.run_sync(self._evaluate_packages)
        for status in self.packages:
            self.diagnostics.extend(status.diagnostics)
            if status.active and isinstance(status.runtime, LaunchSpec):
                launches.append(self._package_plan(status, status.runtime))
            elif status.active:
                held = discover_package(status.package.record.path)
                self.diagnostics.extend(held.diagnostics)
                self.discovery.extensions += held.extensions
                self.discovery.tools += held.tools
                self.discovery.skills += held.skills
                self.discovery.prompts += held.prompts
        for prompt in self.discovery.prompts:
            self._register_prompt(prompt.name, prompt.description, prompt.body, prompt.path)
        for tool in self.discovery.tools:
            self._register_tool_json(tool)
        await self._start_in_dependency_order(launches)

    async def _start_in_dependency_order(self, launches: list[LaunchPlan]) -> None:
        """Discovered extensions and packages without package dependencies start together;
        then each later wave, once what it depends on runs. A package whose dependency
        failed to start is not started (and says so); nothing else is affected."""
        requires = {
            status.id: {
                d.name
                for d in status.entry.dependencies
                if d.kind == "extension" and not d.optional and d.name != status.id
            }
            for status in self.packages
        }
        depth: dict[str, int] = {}
        for status in self.packages:  # activation order: dependencies come first
            depth[status.id] = 1 + max((depth.get(d, -1) for d in requires[status.id]), default=-1)
        waves: dict[int, list[LaunchPlan]] = {}
        for plan in launches:
            waves.setdefault(depth.get(plan.name, 0), []).append(plan)
        first = [*self.discovery.extensions, *waves.pop(0, [])]
        await self._start_extensions(first)
        for level in sorted(waves):
            running = {self._owners.get(process, process.name) for process in self.processes}
            ready = []
            for plan in waves[level]:
                missing = sorted(requires.get(plan.name, set()) - running)
                if missing:
                    self.diagnostics.add(
                        _codes.GATE_BLOCKED(
                            f"{plan.name}: not started because {', '.join(missing)} did not start",
                            package=plan.name,
                        )
                    )
                else:
                    ready.append(plan)
            await self._start_extensions(ready)

    def _evaluate_packages(self) -> list[PackageStatus]:
        """Installed packages and their gates; only active ones are loaded."""
        if not (self.config.home / STATE_FILE).exists():
            return []
        try:
            return evaluate_packages(
                self.config.home, load_inspector(), runtime_planner(self.config.home)
            )
        except (StoreError, NoAdapters) as error:
            self.diagnostics.add(_codes.STORE_UNUSABLE(f"installed packages not loaded: {error}"))
            return []

    def _register_prompt(self, name: str, description: str, body: str, path: Path) -> None:
        async def handler(arguments: str) -> CommandOutcome:
            return CommandOutcome(prompt=expand_prompt(body, arguments))

        owner = f"prompt:{name}"
        self.diagnostics.extend(
            self.registry.register(
                owner, commands=[CommandEntry(name, description, owner, handler)]
            )
        )

    def _register_tool_json(self, tool: Any) -> None:
        manifest = tool.manifest
        workspace, cap = self.workspace, self.config.tool_output_cap

        async def handler(arguments: dict[str, Any]) -> ToolOutcome:
            outcome = await run_tool_json(tool, arguments, workspace, self.env, cap)
            if outcome.is_error and tool.manifest.name:
                self.diagnostics.add(
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
        )
        self.diagnostics.extend(self.registry.register(owner, tools=[entry]))

    def _plan_for(self, found: DiscoveredExtension) -> LaunchPlan:
        manifest = found.manifest
        env = self.env
        command = resolve_command(list(manifest.command), found.folder, env.get("PATH"))
        # The folder's hash keeps two same-named extensions of different roots apart.
        digest = hashlib.sha256(str(found.folder).encode()).hexdigest()[:8]
        log = self.config.logs_dir / f"{manifest.name}-{found.folder.name}-{digest}.log"
        return LaunchPlan(
            name=manifest.name,
            command=command,
            cwd=self.workspace,
            env=env,
            log_path=log,
            response_timeout=manifest.response_timeout_seconds,
            origin=found.folder / "extension.json",
        )

    def _discovered_launches(self) -> list[LaunchPlan]:
        """What the adapters' discoverers (``extension_gateway.discoverers``) found in their
        ecosystems' own discovery directories, e.g. Pi's ``.pi/extensions``."""
        plans: list[LaunchPlan] = []
        for discoverer in load_discoverers():
            found = discoverer(
                self.workspace, self.config.user_home, self.trusted, self.config.home
            )
            for item in found:
                self.diagnostics.extend(item.diagnostics)
                if item.launch is None:
                    continue
                if isinstance(item.launch, LaunchRefusal):
                    self.diagnostics.add(
                        _codes.RUNTIME_UNAVAILABLE(
                            f"{item.name} ({item.origin}) not started: {item.launch.reason}",
                            package=item.name,
                        )
                    )
                    continue
                digest = hashlib.sha256(item.name.encode()).hexdigest()[:8]
                log = f"discovered-{item.name.replace(':', '-')}-{digest}.log"
                plans.append(self._sidecar_plan(item.name, item.launch, item.origin, log))
        return plans

    def _sidecar_plan(self, name: str, spec: LaunchSpec, origin: Path, log: str) -> LaunchPlan:
        """A restartable sidecar offered the protocol additions (``SIDECAR_FEATURES``)."""
        return LaunchPlan(
            name=name,
            command=list(spec.command),
            cwd=self.workspace,
            env={**self.env, **spec.env},
            log_path=self.config.logs_dir / log,
            response_timeout=spec.response_timeout,
            start_timeout=spec.start_timeout,
            origin=origin,
            restart=True,
        )

    def _package_plan(self, status: PackageStatus, spec: LaunchSpec) -> LaunchPlan:
        root = status.package.record.path
        # Advisory declarations (OpenClaw's contracts.tools, command aliases) are checked by
        # the runtime with a diagnostic; only binding ones are enforced here.
        contributions = [c for c in status.entry.contributions if not c.detail.get("advisory")]
        if status.entry.ecosystem == "nanobot" or any(
            c.kind in ("tool", "command") for c in contributions
        ):
            self._declared[status.id] = {
                (c.kind, c.name): list(c.replaces)
                for c in contributions
                if c.kind in ("tool", "command")
            }
        digest = hashlib.sha256(status.id.encode()).hexdigest()[:8]
        log = f"package-{root.parent.name}-{digest}.log"
        return self._sidecar_plan(status.id, spec, root, log)

    def _initialize(self, plan: LaunchPlan | None) -> InitializeMessage:
        features = SIDECAR_FEATURES if plan is not None and plan.restart else GATEWAY_FEATURES
        return InitializeMessage(
            workspace=str(self.workspace), session_id=self.session.id, gateway=features
        )

    def _new_process(self, plan: LaunchPlan) -> ExtensionProcess:
        return ExtensionProcess(
            plan,
            next_id=self.next_id,
            diagnostics=self.diagnostics,
            on_effects=self._on_effects,
            ui_handler=self._ask_user,
            config=self._transport,
            on_exit=self._on_process_exit,
            host_handler=self._host_request if plan.restart else None,
        )

    def _on_process_exit(self, process: ExtensionProcess) -> None:
        if process.plan.restart and process in self.processes:
            self._tasks.start_soon(self._restart, process)

    async def _restart(self, old: ExtensionProcess) -> None:
        """Restart a crashed sidecar with backoff; its registrations come back under the
        same owner. Calls that were in flight already failed (``extension.exited``)."""
        owner = self._owners.get(old, old.name)
        await old.aclose()  # reap it: pipes and log closed (its calls already failed)
        now = anyio.current_time()
        crashes = [t for t in self._crashes.get(owner, []) if now - t < RESTART_WINDOW]
        crashes.append(now)
        self._crashes[owner] = crashes
        if len(crashes) > len(RESTART_BACKOFF):
            self.diagnostics.add(
                _codes.EXTENSION_EXITED(
                    f"extension {owner} crashed {len(crashes)} times within "
                    f"{RESTART_WINDOW:g}s; not restarted again until a reload",
                    package=owner,
                )
            )
            return
        await anyio.sleep(RESTART_BACKOFF[len(crashes) - 1])
        if old not in self.processes:
            return  # stopped or reloaded meanwhile
        new = self._new_process(old.plan)
        try:
            await new.start(self._tasks, self._initialize(old.plan))
        except ExtensionError as error:
            self.diagnostics.add(
                _codes.EXTENSION_START_FAILED(
                    f"restart of extension {owner} failed: {error}", package=owner
                )
            )
            self._on_process_exit(old)  # next attempt, with the next backoff step
            return
        if old not in self.processes:
            await new.aclose()
            return
        self.processes.remove(old)
        self._owners.pop(old, None)
        self.registry.unregister(owner)
        self._register_extension(new, owner)

    async def _start_extensions(self, items: Iterable[DiscoveredExtension | LaunchPlan]) -> None:
        """Start every extension at once; register them in discovery (startup) order."""
        found = list(items)
        started: list[ExtensionProcess | None] = [None] * len(found)

        async def start(index: int, item: DiscoveredExtension | LaunchPlan) -> None:
            try:
                plan = item if isinstance(item, LaunchPlan) else self._plan_for(item)
            except LaunchError as error:
                assert isinstance(item, DiscoveredExtension)
                self._start_failed(item.manifest.name, item.folder / "extension.json", error)
                return
            process = self._new_process(plan)
            try:
                await process.start(self._tasks, self._initialize(plan))
            except ExtensionError as error:
                self._start_failed(plan.name, plan.origin, error)
                return
            started[index] = process

        async with anyio.create_task_group() as group:
            for index, item in enumerate(found):
                group.start_soon(start, index, item)
        for process in started:
            if process is not None:
                self._register_extension(process)

    def _start_failed(self, name: str, origin: Path | None, error: Exception) -> None:
        code = (
            _codes.REGISTER_INVALID
            if isinstance(error, RegisterInvalid)
            else _codes.EXTENSION_START_FAILED
        )
        self.diagnostics.add(
            code(f"extension '{name}' failed to start ({origin}): {error}", package=name)
        )

    async def _stop_extensions(self) -> None:
        processes, self.processes = self.processes, []
        self._owners.clear()
        self._held.clear()
        with anyio.CancelScope(shield=True):
            async with anyio.create_task_group() as group:
                for process in processes:
                    group.start_soon(process.aclose)
        self.registry.clear()
