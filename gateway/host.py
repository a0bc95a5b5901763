"""The gateway an agent embeds: open on a workspace, list, call, run commands, drive events.

Everything the gateway starts speaks the nimlet protocol; this module owns their lifetimes
(one task group), projects their registrations onto the registry, and drives the session's
lifecycle events through the catalogue's result rules.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import TaskGroup

from . import _codes
from ._spawn import LaunchError, child_environment, resolve_command
from .config import GatewayConfig
from .diagnostics import Diagnostic, Diagnostics, catalogue
from .discovery import DiscoveredExtension, Discovery, discover, discover_package, expand_prompt
from .events import NIMLET_EVENTS, EventCatalogue, EventOutcome, dispatch
from .external_tools import run_tool_json
from .packages import (
    LaunchSpec,
    NoAdapters,
    PackageStatus,
    evaluate_packages,
    load_inspector,
    runtime_planner,
)
from .process import (
    ExtensionError,
    ExtensionProcess,
    LaunchPlan,
    RegisterInvalid,
    TransportConfig,
    UiAnswer,
    UiHandler,
)
from .protocol import (
    CommandRequest,
    EventRequest,
    InitializeMessage,
    RegisterMessage,
    ResponseMessage,
    ToolRequest,
    UiRequest,
    UpdateMessage,
)
from .registry import (
    BUILTIN_OWNER,
    CommandEntry,
    CommandOutcome,
    HookEntry,
    Registry,
    ToolEntry,
    ToolOutcome,
    make_tool,
)
from .session import Session
from .store import STATE_FILE, StoreError
from .trust import is_workspace_trusted

__all__ = ["Gateway", "ToolResult", "UnknownCommand", "UnknownTool", "open_gateway"]


GATEWAY_FEATURES = {"version": 1, "features": ["register.diagnostics"]}
"""Announced in ``initialize``; plain nimlet extensions ignore it (docs/protocol.md)."""


class UnknownTool(LookupError):
    pass


class UnknownCommand(LookupError):
    pass


@dataclass(frozen=True, slots=True)
class ToolResult:
    content: str
    is_error: bool
    blocked: bool = False
    arguments: dict[str, Any] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "is_error": self.is_error,
            "blocked": self.blocked,
            "arguments": self.arguments,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }


@dataclass(frozen=True, slots=True)
class CompactionResult:
    did_compact: bool
    summary: str
    first_kept_index: int
    message: str
    instruction: str
    custom: bool


Summarizer = Callable[[str, list[dict[str, Any]]], Awaitable[tuple[str, int]]]


async def _cannot_ask(process: ExtensionProcess, request: UiRequest) -> UiAnswer:
    return UiAnswer(cancelled=True)


class Gateway:
    """Use ``open_gateway``; the constructor does not start anything."""

    def __init__(
        self,
        workspace: Path,
        *,
        trusted: bool,
        plan: bool,
        config: GatewayConfig,
        ui: UiHandler | None,
        task_group: TaskGroup,
        catalogue: EventCatalogue = NIMLET_EVENTS,
    ) -> None:
        self.workspace = workspace
        self.trusted = trusted
        self.plan = plan
        self.config = config
        self.catalogue = catalogue
        self.diagnostics = Diagnostics()
        self.registry = Registry()
        self.discovery = Discovery()
        self.session: Session = None  # type: ignore[assignment]  # set by open_gateway
        self.processes: list[ExtensionProcess] = []
        self.packages: list[PackageStatus] = []
        # Package id → the (kind, name) tools and commands its manifest declares, for the
        # formats that declare them.
        self._declared: dict[str, set[tuple[str, str]]] = {}
        self._ui = ui
        self._tasks = task_group
        self._ids = itertools.count(1)
        self._transport = TransportConfig(config.line_cap, config.shutdown_grace, config.term_grace)

    # ------------------------------------------------------------------ identity

    def next_id(self) -> str:
        """Request ids come from one counter, so they are unique across extensions."""
        return str(next(self._ids))

    @property
    def env(self) -> dict[str, str]:
        return child_environment(self.config.passthrough_env)

    # ------------------------------------------------------------------ startup

    async def _load(self) -> None:
        self._declared.clear()
        self.discovery = discover(self.workspace, self.config.user_home, self.trusted)
        self.diagnostics.extend(self.discovery.diagnostics)
        self.packages = await anyio.to_thread.run_sync(self._evaluate_packages)
        launches: list[LaunchPlan] = []
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
        await self._start_extensions([*self.discovery.extensions, *launches])

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

    def _package_plan(self, status: PackageStatus, spec: LaunchSpec) -> LaunchPlan:
        root = status.package.record.path
        contributions = status.entry.contributions
        if status.entry.ecosystem == "nanobot" or any(
            c.kind in ("tool", "command") for c in contributions
        ):
            self._declared[status.id] = {
                (c.kind, c.name) for c in contributions if c.kind in ("tool", "command")
            }
        digest = hashlib.sha256(status.id.encode()).hexdigest()[:8]
        return LaunchPlan(
            name=status.id,
            command=list(spec.command),
            cwd=self.workspace,
            env={**self.env, **spec.env},
            log_path=self.config.logs_dir / f"package-{root.parent.name}-{digest}.log",
            response_timeout=spec.response_timeout,
            origin=root,
        )

    async def _start_extensions(self, items: Iterable[DiscoveredExtension | LaunchPlan]) -> None:
        """Start every extension at once; register them in discovery (startup) order."""
        found = list(items)
        started: list[ExtensionProcess | None] = [None] * len(found)
        initialize = InitializeMessage(
            workspace=str(self.workspace), session_id=self.session.id, gateway=GATEWAY_FEATURES
        )

        async def start(index: int, item: DiscoveredExtension | LaunchPlan) -> None:
            try:
                plan = item if isinstance(item, LaunchPlan) else self._plan_for(item)
            except LaunchError as error:
                assert isinstance(item, DiscoveredExtension)
                self._start_failed(item.manifest.name, item.folder / "extension.json", error)
                return
            process = ExtensionProcess(
                plan,
                next_id=self.next_id,
                diagnostics=self.diagnostics,
                on_effects=self._on_effects,
                ui_handler=self._ask_user,
                config=self._transport,
            )
            try:
                await process.start(self._tasks, initialize)
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

    def _register_extension(self, process: ExtensionProcess) -> None:
        registration = process.registration
        assert registration is not None
        owner = self._owner_name(process.name)
        self._runtime_diagnostics(owner, registration)
        tool_specs, command_specs = self._declared_only(owner, registration)
        tools = [self._extension_tool(process, owner, spec) for spec in tool_specs]
        commands = [self._extension_command(process, owner, c) for c in command_specs]
        hooks = []
        for event in registration.events or ():
            if event not in self.catalogue:
                self.diagnostics.add(
                    _codes.EVENT_UNKNOWN(
                        f"{owner}: event {event!r} is not in the catalogue; it never fires",
                        package=owner,
                    )
                )
                continue
            hooks.append(HookEntry(event, owner, self._extension_hook(process)))
        self.diagnostics.extend(
            self.registry.register(owner, tools=tools, commands=commands, hooks=hooks)
        )
        self.processes.append(process)

    def _runtime_diagnostics(self, owner: str, registration: RegisterMessage) -> None:
        """Diagnostics a sidecar reports at registration (the negotiated
        ``register.gateway.diagnostics``), with catalogued codes."""
        reported = (registration.gateway or {}).get("diagnostics") or []
        for item in reported if isinstance(reported, list) else [reported]:
            code = item.get("code") if isinstance(item, dict) else None
            message = item.get("message") if isinstance(item, dict) else None
            known = catalogue().get(code) if isinstance(code, str) else None
            if known is None or not isinstance(message, str):
                self.diagnostics.add(
                    _codes.RUNTIME_DIAGNOSTIC_INVALID(f"{owner}: {item!r}", package=owner)
                )
                continue
            contribution = item.get("contribution")
            self.diagnostics.add(
                known(
                    f"{owner}: {message}",
                    package=owner,
                    contribution=contribution if isinstance(contribution, str) else None,
                )
            )

    def _declared_only(self, owner: str, registration: RegisterMessage) -> tuple[list, list]:
        """Where a package's format declares its tools and commands, what it registers must
        match: undeclared ones are refused, declared ones never registered are reported."""
        tools, commands = list(registration.tools or ()), list(registration.commands)
        declared = self._declared.get(owner)
        if declared is None:
            return tools, commands
        kept: dict[str, list] = {"tool": [], "command": []}
        for kind, specs in (("tool", tools), ("command", commands)):
            for spec in specs:
                if (kind, spec.name) in declared:
                    kept[kind].append(spec)
                else:
                    self.diagnostics.add(
                        _codes.UNDECLARED_CONTRIBUTION(
                            f"{owner}: {kind} {spec.name!r} is not declared in its manifest; "
                            "refused",
                            package=owner,
                            contribution=spec.name,
                        )
                    )
        registered = {("tool", t.name) for t in tools} | {("command", c.name) for c in commands}
        for kind, name in sorted(declared - registered):
            self.diagnostics.add(
                _codes.CONTRIBUTION_MISSING(
                    f"{owner}: declared {kind} {name!r} was never registered",
                    package=owner,
                    contribution=name,
                )
            )
        return kept["tool"], kept["command"]

    def _owner_name(self, name: str) -> str:
        # Extensions are not overridden by name: two extensions called "notes" both run.
        if name not in self.registry.owners:
            return name
        return next(
            f"{name}#{n}" for n in itertools.count(2) if f"{name}#{n}" not in self.registry.owners
        )

    def _extension_tool(self, process: ExtensionProcess, owner: str, spec: Any) -> ToolEntry:
        async def handler(arguments: dict[str, Any]) -> ToolOutcome:
            response = await process.request(
                lambda rid: ToolRequest(id=rid, name=spec.name, arguments=arguments)
            )
            return ToolOutcome(response.content or "", bool(response.is_error))

        return make_tool(
            spec.name,
            spec.description,
            spec.input_schema,
            spec.effective_capabilities,
            owner,
            handler,
        )

    @staticmethod
    def _extension_command(process: ExtensionProcess, owner: str, spec: Any) -> CommandEntry:
        async def handler(arguments: str) -> CommandOutcome:
            response = await process.request(
                lambda rid: CommandRequest(id=rid, name=spec.name, arguments=arguments)
            )
            return CommandOutcome(response.message, response.prompt)

        return CommandEntry(spec.name, spec.description, owner, handler)

    @staticmethod
    def _extension_hook(process: ExtensionProcess) -> Any:
        async def handler(event: str, payload: dict[str, Any]) -> ResponseMessage:
            return await process.request(
                lambda rid: EventRequest(id=rid, event=event, payload=payload)
            )

        return handler

    def _on_effects(
        self, process: ExtensionProcess, message: ResponseMessage | UpdateMessage
    ) -> None:
        self.session.apply(process.name, message)

    async def _ask_user(self, process: ExtensionProcess, request: UiRequest) -> UiAnswer:
        if self._ui is None:
            self.diagnostics.add(
                _codes.UI_UNANSWERED(
                    f"{process.name} asked {request.prompt!r}; no one can answer, so it was "
                    "answered cancelled",
                    package=process.name,
                )
            )
            return await _cannot_ask(process, request)
        return await self._ui(process, request)

    # ------------------------------------------------------------------ embedding API

    def tools(self) -> list[ToolEntry]:
        """Tools to offer a model now (plan mode offers only read/user tools)."""
        return self.registry.tools(plan=self.plan)

    def tool_schemas(self) -> list[dict[str, Any]]:
        return [tool.describe() for tool in self.tools()]

    def register_builtin_tool(
        self,
        name: str,
        description: str,
        input_schema: dict[str, Any],
        handler: Callable[[dict[str, Any]], Awaitable[ToolOutcome]],
        capabilities: Iterable[str] = ("write", "shell", "network"),
    ) -> None:
        """Register one of the agent's own tools, so tool_call / tool_result hooks apply."""
        tool = make_tool(name, description, input_schema, capabilities, BUILTIN_OWNER, handler)
        owner = f"{BUILTIN_OWNER}"
        existing = [t for t in self.registry.tools() if t.owner == owner]
        self.registry.unregister(owner)
        self.diagnostics.extend(self.registry.register(owner, tools=[*existing, tool]))

    async def emit(self, event: str, payload: dict[str, Any]) -> EventOutcome:
        """Dispatch one lifecycle event to its subscribers (none in plan mode)."""
        spec = self.catalogue[event]
        subscribers = self.registry.hooks(event)
        if self.plan or not subscribers:
            return EventOutcome(event, payload)
        return await dispatch(spec, payload, subscribers, self.diagnostics)

    def _base_payload(self) -> dict[str, Any]:
        return {"session_id": self.session.id, "workspace": str(self.workspace)}

    async def start_session(self) -> EventOutcome:
        return await self.emit("session_start", self._base_payload())

    async def end_session(self) -> EventOutcome:
        return await self.emit("session_end", self._base_payload())

    async def start_turn(self) -> EventOutcome:
        return await self.emit("turn_start", self._base_payload())

    async def end_turn(self, interrupted: bool = False) -> EventOutcome:
        payload = self._base_payload()
        if interrupted:
            payload["interrupted"] = True
        return await self.emit("turn_end", payload)

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> ToolResult:
        """tool_call hooks → argument validation → the tool → tool_result hooks."""
        mark = len(self.diagnostics)
        tool = self.registry.tool(name)
        if tool is None:
            raise UnknownTool(name)
        arguments = dict(arguments or {})
        if self.plan and not tool.plan_safe:
            return ToolResult(f"tool {name} is not available in plan mode", True, False, arguments)
        hooked = name != "ask_user"
        if hooked:
            gate = await self.emit("tool_call", {"tool": name, "arguments": arguments})
            arguments = gate.payload["arguments"]
            if not gate.allowed:
                return ToolResult(gate.reason, True, True, arguments, self.diagnostics.since(mark))
        outcome = await self._run_tool(tool, arguments)
        content, is_error = outcome.content, outcome.is_error
        if hooked:
            after = await self.emit(
                "tool_result",
                {"tool": name, "arguments": arguments, "output": content, "is_error": is_error},
            )
            content, is_error = str(after.payload["output"]), bool(after.payload["is_error"])
        self.session.append(
            {"type": "tool_result", "id": self.next_id(), "output": content, "is_error": is_error}
        )
        return ToolResult(content, is_error, False, arguments, self.diagnostics.since(mark))

    async def _run_tool(self, tool: ToolEntry, arguments: dict[str, Any]) -> ToolOutcome:
        if tool.validator is not None and not tool.validator.is_valid(arguments):
            problems = sorted(tool.validator.iter_errors(arguments), key=lambda e: list(e.path))
            if problems:
                where = "/".join(str(part) for part in problems[0].absolute_path) or "(root)"
                return ToolOutcome(
                    f"invalid arguments for {tool.name}: {problems[0].message} at {where}", True
                )
        try:
            return await tool.handler(arguments)
        except ExtensionError as error:
            return ToolOutcome(str(error), is_error=True)

    async def run_command(self, name: str, arguments: str = "") -> CommandOutcome:
        command = self.registry.command(name)
        if command is None:
            raise UnknownCommand(name)
        try:
            return await command.handler(arguments)
        except ExtensionError as error:
            return CommandOutcome(message=f"/{name} failed: {error}")

    async def compact(
        self, instruction: str = "", tokens_before: int = 0, summarizer: Summarizer | None = None
    ) -> CompactionResult:
        """session_before_compact → (custom or built-in) summary → session_compact."""
        payload = {
            **self._base_payload(),
            "instruction": instruction,
            "tokens_before": tokens_before,
            "entries": list(self.session.entries),
        }
        before = await self.emit("session_before_compact", payload)
        final_instruction = before.payload.get("instruction") or ""
        if not before.allowed:
            result = CompactionResult(False, "", 0, before.reason, final_instruction, False)
        elif "compaction" in before.replaced:
            custom = before.replaced["compaction"]
            result = CompactionResult(
                True, custom.summary, custom.first_kept_index, "Compacted by extension",
                final_instruction, True,
            )  # fmt: skip
            self.session.append(
                {"type": "compaction", "summary": custom.summary,
                 "first_kept_index": custom.first_kept_index, "tokens_before": tokens_before,
                 "details": custom.details}
            )  # fmt: skip
        elif summarizer is not None:
            summary, kept = await summarizer(final_instruction, list(self.session.entries))
            result = CompactionResult(
                True, summary, kept, "Compacted context", final_instruction, False
            )
            self.session.append(
                {"type": "compaction", "summary": summary, "first_kept_index": kept,
                 "tokens_before": tokens_before}
            )  # fmt: skip
        else:
            result = CompactionResult(False, "", 0, "Nothing to compact", final_instruction, False)
        await self.emit(
            "session_compact",
            {**self._base_payload(), "did_compact": result.did_compact, "summary": result.summary,
             "first_kept_index": result.first_kept_index, "tokens_before": tokens_before,
             "message": result.message},
        )  # fmt: skip
        return result

    # ------------------------------------------------------------------ restarts

    async def _stop_extensions(self) -> None:
        processes, self.processes = self.processes, []
        with anyio.CancelScope(shield=True):
            async with anyio.create_task_group() as group:
                for process in processes:
                    group.start_soon(process.aclose)
        self.registry.clear()

    async def reload(self) -> None:
        """Stop everything and start again with a fresh ``initialize`` (same session)."""
        await self._stop_extensions()
        await self._load()

    async def new_session(self) -> None:
        await self.end_session()
        self.session.close()
        self.session = self._make_session(None)
        await self.reload()
        await self.start_session()

    async def resume(self, session_id: str) -> None:
        await self.end_session()
        self.session.close()
        self.session = Session.resume(self.config.sessions_dir, session_id, self.diagnostics)
        self.session.listener = self._listener
        await self.reload()
        await self.start_session()

    async def set_trust(self, trusted: bool) -> None:
        """A trust change restarts extensions (project roots come or go)."""
        self.trusted = trusted
        await self.reload()

    _listener: Any = None

    def _make_session(self, session_id: str | None) -> Session:
        session = Session.create(self.config.sessions_dir, self.workspace, session_id)
        session.listener = self._listener
        return session

    async def aclose(self) -> None:
        await self._stop_extensions()
        if self.session is not None:
            self.session.close()


def _resolve_trust(
    workspace: Path, config: GatewayConfig, trust: bool | None
) -> tuple[Path, bool, Diagnostic | None]:
    root = workspace.resolve()
    if trust is not None:
        return root, trust, None
    return root, *is_workspace_trusted(config.home, root)


@asynccontextmanager
async def open_gateway(
    workspace: Path | str,
    *,
    trust: bool | None = None,
    plan: bool = False,
    config: GatewayConfig | None = None,
    ui: UiHandler | None = None,
    session_id: str | None = None,
    on_effect: Callable[[Any], None] | None = None,
    on_diagnostic: Callable[[Diagnostic], None] | None = None,
) -> AsyncIterator[Gateway]:
    """Open a gateway: discover, start extensions, yield; stop everything on exit.

    ``trust=None`` uses the persisted workspace trust (``gateway trust DIR``); True or False
    decides for this run only. ``session_id`` resumes that session.
    """
    config = config or GatewayConfig()
    root, trusted, problem = await anyio.to_thread.run_sync(
        _resolve_trust, Path(workspace), config, trust
    )
    try:
        async with anyio.create_task_group() as tasks:
            gateway = Gateway(
                root, trusted=trusted, plan=plan, config=config, ui=ui, task_group=tasks
            )
            gateway._listener = on_effect
            gateway.diagnostics.listener = on_diagnostic
            if problem is not None:
                gateway.diagnostics.add(problem)
            try:
                if session_id is None:
                    gateway.session = gateway._make_session(None)
                else:
                    gateway.session = Session.resume(
                        config.sessions_dir, session_id, gateway.diagnostics
                    )
                    gateway.session.listener = on_effect
                await gateway._load()
                yield gateway
            finally:
                await gateway.aclose()
                tasks.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        # The background tasks never raise; an exception here came from the caller's body,
        # and the caller should see it as it was raised, not wrapped in a group.
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise
