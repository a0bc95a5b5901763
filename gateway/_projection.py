"""Projecting a process's registration onto the registry: its tools, commands and hooks
owned by its name, checked against what its package declares, updated when a runtime
registers tools late. A part of ``Gateway``."""

from __future__ import annotations

import itertools
from typing import Any

from . import _codes
from .diagnostics import catalogue
from .events import EXTENDED_EVENTS_FEATURE, NIMLET_EVENTS
from .process import ExtensionProcess, UiAnswer
from .protocol import (
    CommandRequest,
    EventRequest,
    RegisterMessage,
    ResponseMessage,
    ToolRequest,
    ToolSpec,
    UiRequest,
    UpdateMessage,
)
from .registry import (
    BUILTIN_OWNER,
    CommandEntry,
    CommandOutcome,
    HookEntry,
    ToolEntry,
    ToolOutcome,
    make_tool,
)


class _Projection:
    """Registration and side effects of running processes; mixed into ``Gateway``."""

    def _register_extension(self, process: ExtensionProcess, owner: str | None = None) -> None:
        registration = process.registration
        assert registration is not None
        restarted = owner is not None
        owner = owner or self._owner_name(process.name)
        if not restarted:
            self._runtime_diagnostics(owner, registration)
        tool_specs, command_specs = self._declared_only(owner, registration)
        tools = [self._extension_tool(process, owner, spec) for spec in tool_specs]
        commands = [self._extension_command(process, owner, c) for c in command_specs]
        hooks = []
        extended = self._offered(process, EXTENDED_EVENTS_FEATURE)
        for event in registration.events or ():
            # Events beyond nimlet's eight exist only for processes offered them.
            if event not in self.catalogue or (event not in NIMLET_EVENTS and not extended):
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
        self._owners[process] = owner
        self._held[owner] = (commands, hooks)

    def _offered(self, process: ExtensionProcess, feature: str) -> bool:
        """Whether ``initialize`` announced this negotiated feature to the process."""
        announced = self._initialize(process.plan).gateway or {}
        return feature in announced.get("features", ())

    def _registration_update(self, process: ExtensionProcess, delta: Any) -> None:
        """``registration.update``: the runtime's full, current tool list (tools registered
        after start, the active set applied); the owner's tools are replaced, its commands
        and hooks kept."""
        owner = self._owners.get(process)
        if owner is None or not isinstance(delta, dict) or not isinstance(delta.get("tools"), list):
            self.diagnostics.add(
                _codes.RUNTIME_DIAGNOSTIC_INVALID(
                    f"{process.name}: malformed registration update {delta!r:.200}",
                    package=process.name,
                )
            )
            return
        specs = []
        for item in delta["tools"]:
            try:
                specs.append(ToolSpec.model_validate(item))
            except ValueError as error:
                self.diagnostics.add(
                    _codes.RUNTIME_DIAGNOSTIC_INVALID(
                        f"{owner}: invalid tool in registration update: {error}", package=owner
                    )
                )
        declared = self._declared.get(owner)
        if declared is not None:
            specs = [s for s in specs if ("tool", s.name) in declared]
        commands, hooks = self._held.get(owner, ([], []))
        tools = [self._extension_tool(process, owner, spec) for spec in specs]
        self.registry.unregister(owner)
        self.diagnostics.extend(
            self.registry.register(owner, tools=tools, commands=commands, hooks=hooks)
        )

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
        for kind, name in sorted(set(declared) - registered):
            self.diagnostics.add(
                _codes.CONTRIBUTION_MISSING(
                    f"{owner}: declared {kind} {name!r} was never registered",
                    package=owner,
                    contribution=name,
                )
            )
        return self._without_conflicts(owner, "tool", kept["tool"], declared), (
            self._without_conflicts(owner, "command", kept["command"], declared)
        )

    def _without_conflicts(
        self, owner: str, kind: str, specs: list, declared: dict[tuple[str, str], list[str]]
    ) -> list:
        """A declared contribution takes over another package's only when its `replaces`
        names that package; otherwise the first one keeps it (nanobot's rule)."""
        kept = []
        for spec in specs:
            find = self.registry.tool if kind == "tool" else self.registry.command
            current = find(spec.name)
            if (
                current is not None
                and current.owner not in (owner, BUILTIN_OWNER)
                and current.owner not in declared.get((kind, spec.name), [])
            ):
                self.diagnostics.add(
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

    def _owner_name(self, name: str) -> str:
        # Extensions are not overridden by name: two extensions called "notes" both run.
        if name not in self.registry.owners:
            return name
        return next(
            f"{name}#{n}" for n in itertools.count(2) if f"{name}#{n}" not in self.registry.owners
        )

    def _extension_tool(self, process: ExtensionProcess, owner: str, spec: Any) -> ToolEntry:
        async def handler(arguments: dict[str, Any]) -> ToolOutcome:
            ids: list[str] = []

            def build(rid: str) -> ToolRequest:
                ids.append(rid)
                self._progress[rid] = []
                return ToolRequest(id=rid, name=spec.name, arguments=arguments)

            try:
                response = await process.request(build)
            finally:
                progress = [p for rid in ids for p in self._progress.pop(rid, [])]
            extra: dict[str, Any] = {}
            structured = response.gateway if isinstance(response.gateway, dict) else {}
            if isinstance(structured.get("parts"), list):
                extra["parts"] = structured["parts"]
            if "details" in structured:
                extra["details"] = structured["details"]
            if progress:
                extra["progress"] = progress
            return ToolOutcome(response.content or "", bool(response.is_error), extra)

        return make_tool(
            spec.name,
            spec.description,
            spec.input_schema,
            spec.effective_capabilities,
            owner,
            handler,
        )

    def _extension_command(self, process: ExtensionProcess, owner: str, spec: Any) -> CommandEntry:
        async def handler(arguments: str) -> CommandOutcome:
            response = await process.request(
                lambda rid: CommandRequest(id=rid, name=spec.name, arguments=arguments)
            )
            actions = (
                response.gateway.get("actions") if isinstance(response.gateway, dict) else None
            )
            for action in actions if isinstance(actions, list) else ():
                if isinstance(action, str):
                    self.requested_actions.append((owner, action))
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
        extra = message.gateway if isinstance(message, UpdateMessage) else None
        if not isinstance(extra, dict) or not process.plan.restart:
            return  # only sidecars were offered the additions
        progress = extra.get("progress")
        if isinstance(progress, dict) and isinstance(progress.get("id"), str):
            if progress["id"] in self._progress:
                self._progress[progress["id"]].append(progress)
            if self.progress_listener is not None:
                self.progress_listener(self._owners.get(process, process.name), progress)
        if "registration" in extra:
            self._registration_update(process, extra["registration"])

    async def _ask_user(self, process: ExtensionProcess, request: UiRequest) -> UiAnswer:
        if self._ui is None:
            self.diagnostics.add(
                _codes.UI_UNANSWERED(
                    f"{process.name} asked {request.prompt!r}; no one can answer, so it was "
                    "answered cancelled",
                    package=process.name,
                )
            )
            return UiAnswer(cancelled=True)
        return await self._ui(process, request)

    # ------------------------------------------------------------------ embedding API
