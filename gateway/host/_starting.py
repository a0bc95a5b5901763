"""Starting processes from their plans, several at once and registered in startup order;
a failed start reported as a diagnostic; a crashed runtime restarted with backoff, until it
crashes too often."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import anyio

from gateway.base import Diagnostics, Severity, find_code
from gateway.host import _codes
from gateway.host._discovered_ids import extension_identity
from gateway.host._host_requests import HostRequestHandler
from gateway.host._observe import observe_start
from gateway.host._planning import Planner
from gateway.host._projection import Projector
from gateway.host._state import GatewayState
from gateway.model import DiscoveredExtension
from gateway.packages import remember_start
from gateway.runtime import LaunchError
from gateway.sandbox import SANDBOX_REFUSED
from gateway.wire import (
    EXTENSION_EXITED,
    EXTENSION_REGISTER_INVALID,
    DeadlinePause,
    ExtensionError,
    ExtensionProcess,
    HostRequest,
    HostResponse,
    LaunchPlan,
    PipeTransport,
    RegisterInvalid,
    ResponseMessage,
    SandboxRefused,
    ToolUpdate,
    Transport,
    TransportConfig,
    UiAnswer,
    UiRequest,
    UpdateMessage,
)
from gateway.wire.features import RegisterExtras, RuntimeDiagnostic

__all__ = ["RESTART_BACKOFF", "RESTART_WINDOW", "Starter"]

RESTART_BACKOFF: tuple[float, ...] = (0.2, 0.5, 1.0, 2.0, 4.0)
"""Seconds before each restart attempt of a crashed runtime; then it stays down."""
RESTART_WINDOW = 60.0
"""More than ``len(RESTART_BACKOFF)`` crashes within this many seconds: give up."""
START_CONCURRENCY = max(4, 2 * (os.cpu_count() or 1))
"""Processes starting (spawned, not registered yet) at once: thirty packages started
together on two cores would each take thirty times as long and run out their start
timeouts; each timeout counts from its own spawn."""


class Starter:
    """Owns the transport every process is reached through (and its settings) and the
    crash history of the runtimes it restarts. Plans come from the ``Planner``; a started
    process is registered by the ``Projector`` and asks the host through the
    ``HostRequestHandler``."""

    def __init__(
        self,
        state: GatewayState,
        planner: Planner,
        projector: Projector,
        host_requests: HostRequestHandler,
    ) -> None:
        self._state = state
        self._planner = planner
        self._projector = projector
        self._host_requests = host_requests
        self._transport: Transport = state.transport or PipeTransport()
        self._transport_config = TransportConfig(
            state.config.line_cap,
            state.config.shutdown_grace,
            state.config.term_grace,
            state.config.require_sandbox,
        )
        self._host = _ProcessHost(state, projector, host_requests, self._on_process_exit)
        self._crashes: dict[str, list[float]] = {}
        self._starting = anyio.CapacityLimiter(START_CONCURRENCY)

    async def start_all(self, items: Iterable[DiscoveredExtension | LaunchPlan]) -> None:
        """Start every extension at once; register them in discovery (startup) order."""
        found = list(items)
        started: list[ExtensionProcess | None] = [None] * len(found)

        async def start(index: int, item: DiscoveredExtension | LaunchPlan) -> None:
            if isinstance(item, LaunchPlan):
                plan = item
            else:
                try:
                    plan = self._planner.extension(item)
                except LaunchError as error:
                    name, origin = item.manifest.name, item.folder / "extension.json"
                    self.failed(name, origin, error, identity=extension_identity(name))
                    return
            process = await self._start(plan)
            if process is not None:
                self._loaded(process)
            started[index] = process

        async with anyio.create_task_group() as group:
            for index, item in enumerate(found):
                group.start_soon(start, index, item)
        for process in started:
            if process is not None:
                self._projector.register(process)

    async def start_dormant(self, plan: LaunchPlan, owner: str) -> bool:
        """Activate a dormant package: start it and let its live registration replace the
        cached one (``Activator``'s ``StartPlan``)."""
        process = await self._start(plan)
        if process is None:
            return False
        self._loaded(process)
        self._projector.register(process, owner)
        return True

    async def _start(self, plan: LaunchPlan) -> ExtensionProcess | None:
        """One process started from ``plan`` (in its span), at most ``START_CONCURRENCY``
        at once; None when it did not start (a diagnostic says why)."""
        with observe_start(self._state, plan.name) as ok:
            process = self._new_process(plan)
            try:
                async with self._starting:
                    await process.start(self._state.tasks, self._planner.initialize(plan))
            except ExtensionError as error:
                self.failed(plan.name, plan.origin, error, plan.members, plan.identity)
                return None
            ok.append(True)
            return process

    def failed(
        self,
        name: str,
        origin: Path | None,
        error: Exception,
        members: Sequence[str] = (),
        identity: str | None = None,
    ) -> None:
        """Report an extension that did not start (its cached registration goes); so did
        none of the packages of a shared process (``members``). ``identity``: what it is
        kept under (``LaunchPlan.identity``), when not ``name``."""
        kept = identity or name
        self._projector.start_failed(kept)
        code = _codes.EXTENSION_START_FAILED
        if isinstance(error, RegisterInvalid):
            code = EXTENSION_REGISTER_INVALID
        elif isinstance(error, SandboxRefused):
            code = SANDBOX_REFUSED
        said = code(f"extension '{name}' failed to start ({origin}): {error}", package=name)
        self._state.diagnostics.add(said)
        for package in (kept, *members):
            self._state.load_failures[package] = said.message
        self._settle((kept, *members))

    def _loaded(self, process: ExtensionProcess) -> None:
        """Whether each package the process hosts loaded: an error its runtime reported
        as it registered (a module that failed to import, a register that threw) means its
        code did not — but for an error that only refused one of its contributions
        (``DiagnosticCode.refusal``) or left one part out (``incomplete``: one MCP server of
        several); a later start that loads clears it."""
        plan, failures = process.plan, self._state.load_failures
        for name in (plan.identity, *plan.members):
            failures.pop(name, None)
        registration = process.registration
        if registration is None or registration.gateway is None:
            return
        for item in RegisterExtras.parse(registration.gateway).runtime_diagnostics():
            known = find_code(item.code) if isinstance(item, RuntimeDiagnostic) else None
            if (
                known is not None
                and known.severity is Severity.ERROR
                and not (known.refusal or known.incomplete)
            ):
                package = item.package if item.package in plan.members else plan.identity
                failures.setdefault(package, item.message)
        self._settle((plan.identity, *plan.members))

    def _settle(self, names: Iterable[str]) -> None:
        """What a start of these packages just showed, said at once: on their status, and
        in the record the commands that start nothing read (``status``, ``doctor``,
        ``list --packages``) — a gateway kept open (the warm session, ``serve``) would
        otherwise leave it unsaid until it stops."""
        state, wanted = self._state, set(names)
        for status in state.packages:
            if status.id in wanted:
                status.load_failure = state.load_failures.get(status.id)
                content = status.package.record.content_hash
                remember_start(state.config.home, status.id, content, status.load_failure)

    def _new_process(self, plan: LaunchPlan) -> ExtensionProcess:
        state = self._state
        state.started.update((plan.identity, *plan.members))
        return ExtensionProcess(plan, self._host, self._transport, self._transport_config)

    # ------------------------------------------------------------------ crash restarts

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
                EXTENSION_EXITED(
                    f"extension {owner} crashed {len(crashes)} times within "
                    f"{RESTART_WINDOW:g}s; not restarted again until a reload",
                    package=owner,
                )
            )
            return
        await anyio.sleep(RESTART_BACKOFF[len(crashes) - 1])
        if old not in state.processes:
            return  # stopped or reloaded meanwhile
        with observe_start(state, owner, restart=True) as ok:
            new = self._new_process(old.plan)
            try:
                async with self._starting:
                    await new.start(state.tasks, self._planner.initialize(old.plan))
            except ExtensionError as error:
                said = _codes.EXTENSION_START_FAILED(
                    f"restart of extension {owner} failed: {error}", package=owner
                )
                state.diagnostics.add(said)
                for package in (owner, *old.plan.members):
                    state.load_failures[package] = said.message
                self._settle((owner, *old.plan.members))
                self._on_process_exit(old)  # next attempt, with the next backoff step
                return
            ok.append(True)
        self._loaded(new)
        if old not in state.processes:
            await new.aclose()
            return
        state.processes.remove(old)
        state.owners.pop(old, None)
        self._projector.register(new, owner)


class _ProcessHost:
    """What the gateway's processes ask of it (``gateway.wire.ProcessHost``): ids, the
    diagnostics and the deadline pause of the open gateway, their effects projected, their
    questions answered, their crashes handled."""

    def __init__(
        self,
        state: GatewayState,
        projector: Projector,
        host_requests: HostRequestHandler,
        on_exit: Callable[[ExtensionProcess], None],
    ) -> None:
        self._state = state
        self._projector = projector
        self._host_requests = host_requests
        self.on_exit = on_exit

    @property
    def diagnostics(self) -> Diagnostics:
        return self._state.diagnostics

    @property
    def pause(self) -> DeadlinePause:
        return self._state.pause

    def next_id(self) -> str:
        return self._state.next_id()

    def on_effects(
        self, process: ExtensionProcess, message: ResponseMessage | UpdateMessage
    ) -> None:
        self._projector.on_effects(process, message)

    def on_tool_update(self, process: ExtensionProcess, update: ToolUpdate) -> None:
        self._projector.on_tool_update(process, update)

    async def ask_user(self, process: ExtensionProcess, request: UiRequest) -> UiAnswer:
        return await self._host_requests.ask_user(process, request)

    async def answer(self, process: ExtensionProcess, request: HostRequest) -> HostResponse:
        return await self._host_requests.answer(process, request)
