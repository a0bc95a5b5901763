"""The registry entries a projected registration is made of: tools and commands whose calls
are requests to an extension process (with the progress of each call in flight), the
stand-ins of a dormant package that start it at first use, and the commands whose reply is
a prompt (prompt templates, Nu's ``client.commands``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from gateway.base import NIMLET_TOOL_RULES, Severity, ToolRules
from gateway.host import _codes
from gateway.host._command_replies import command_context, command_outcome
from gateway.host._requests import RequestsInFlight
from gateway.host._state import CALL_PROGRESS, GatewayState, ProgressListener
from gateway.host._unreachable import say_unreachable
from gateway.model import (
    CommandEntry,
    CommandOutcome,
    HookHandler,
    PromptCommand,
    PromptTemplate,
    ToolEntry,
    ToolOutcome,
    expand_prompt,
    make_tool,
)
from gateway.wire import (
    INVALID_RESULT,
    PROTOCOL_UNKNOWN_ID,
    CommandRequest,
    CommandSpec,
    EventRequest,
    ExtensionError,
    ExtensionProcess,
    ResponseMessage,
    ToolRequest,
    ToolSpec,
    ToolUpdate,
    read_tool_content,
    read_update_text,
)
from gateway.wire.features import (
    HOST_ACTIONS,
    TOOL_OUTPUT,
    TOOL_PARTS,
    CommandExtras,
    ToolExtras,
)

__all__ = [
    "Activate",
    "Binding",
    "DormantBinding",
    "LiveBinding",
    "ProcessEntries",
    "client_command",
    "prompt_command",
]

_PROGRESS_KEPT = 1000
"""Progress updates kept per call in ``ToolResult.progress``."""


class ProcessEntries:
    """Makes the entries that call a process, and owns the progress of their calls in
    flight: the updates collected for each result, the process each call went to (a
    ``tool_update`` from another is refused), and the caller's listener."""

    def __init__(self, state: GatewayState) -> None:
        self._state = state
        self._progress: dict[str, list[dict[str, Any]]] = {}
        self._in_flight: dict[str, ExtensionProcess] = {}
        self._call_listeners: dict[str, ProgressListener] = {}
        self._said: set[tuple[str, str, str]] = set()  # output schemas refused, said once
        self.requests = RequestsInFlight(state)

    def tool(self, process: ExtensionProcess, owner: str, spec: ToolSpec) -> ToolEntry:
        """A tool whose calls are requests to ``process``."""
        progress, in_flight, listeners = self._progress, self._in_flight, self._call_listeners
        structured = TOOL_PARTS in process.plan.features
        output = TOOL_OUTPUT in process.plan.features
        output_schema = self._output_schema(owner, spec) if output else None
        workspace = self._state.workspace

        async def request(arguments: dict[str, Any]) -> ToolOutcome:
            ids: list[str] = []

            def build(request_id: str, trace: dict[str, Any] | None) -> ToolRequest:
                ids.append(request_id)
                progress[request_id] = []
                in_flight[request_id] = process
                listener = CALL_PROGRESS.get()
                if listener is not None:
                    listeners[request_id] = listener
                return ToolRequest(
                    id=request_id, name=spec.name, arguments=arguments, gateway=trace
                )

            failure: ExtensionError | None = None
            try:
                response = await self.requests.send(process, owner, "tool", spec.name, build)
            except ExtensionError as error:
                failure = error
            finally:
                updates = [item for rid in ids for item in progress.pop(rid, [])]
                for rid in ids:
                    in_flight.pop(rid, None)
                    listeners.pop(rid, None)
            extra: dict[str, Any] = {"progress": updates} if updates else {}
            if failure is not None:
                # A timeout or crash is an error result; what was shown meanwhile stays.
                return ToolOutcome(str(failure), True, extra)
            content = read_tool_content(response.content, workspace)
            if content.error is not None:
                return self._invalid_result(owner, spec.name, content.error, extra)
            if content.parts is not None:
                extra["parts"] = content.parts
                extra["keep_images"] = True  # nimlet: a rewritten output keeps the images
            extras = ToolExtras.parse(
                response.gateway if structured or output else None, output=output
            )
            if extras.parts is not None and structured:
                extra["parts"] = extras.parts
            if extras.has_details and structured:
                extra["details"] = extras.details
            if extras.has_structured and output_schema is not None:
                extra["structured"] = extras.structured
            return ToolOutcome(content.text, bool(response.is_error), extra)

        async def handler(arguments: dict[str, Any]) -> ToolOutcome:
            outcome = await request(arguments)
            # Its own outcome, before any hook: a host its sandbox could not reach is said.
            say_unreachable(self._state, owner, spec.name, process.plan.sandbox, outcome)
            return outcome

        return make_tool(
            spec.name,
            spec.description,
            spec.input_schema,
            spec.effective_capabilities,
            owner,
            handler,
            # nimlet's permission prompt is for nimlet extensions; the runtimes an adapter
            # plans (Pi, nanobot) follow their ecosystems, which have none.
            ask_permission=not process.plan.restart,
            rules=process.plan.tool_rules,
            output_schema=output_schema,
        )

    def _output_schema(self, owner: str, spec: ToolSpec) -> dict[str, Any] | None:
        """``tool.output``: the spec's output schema, or a diagnostic saying why not."""
        schema, problem = ToolExtras.output_schema(spec)
        if problem is not None and (owner, spec.name, problem) not in self._said:
            self._said.add((owner, spec.name, problem))
            self._state.diagnostics.add(
                _codes.TOOL_OUTPUT_SCHEMA_INVALID(
                    f"{owner}: tool {spec.name}: {problem}; it registers without one",
                    package=owner,
                    contribution=spec.name,
                )
            )
        return schema

    def _invalid_result(
        self, owner: str, tool: str, problem: str, extra: dict[str, Any]
    ) -> ToolOutcome:
        self._state.diagnostics.add(
            _codes.TOOL_INVALID_RESULT(
                f"{owner}: tool {tool} replied with unusable content: {problem}",
                package=owner,
                contribution=tool,
            )
        )
        return ToolOutcome(problem, True, {**extra, "error_code": INVALID_RESULT})

    def command(self, process: ExtensionProcess, owner: str, spec: CommandSpec) -> CommandEntry:
        """A command whose runs are requests to ``process``."""
        state = self._state
        actions = state.requested_actions
        offered = HOST_ACTIONS in process.plan.features

        async def handler(arguments: str) -> CommandOutcome:
            context = command_context(state)
            response = await self.requests.send(
                process, owner, "command", spec.name,
                lambda rid, trace: CommandRequest(
                    id=rid, name=spec.name, arguments=arguments, context=context, gateway=trace
                ),
            )  # fmt: skip
            if offered:
                actions.extend(
                    (owner, action) for action in CommandExtras.parse(response.gateway).actions
                )
            return command_outcome(state, owner, response)

        rules = process.plan.tool_rules
        return CommandEntry(spec.name, spec.description, owner, handler, rules=rules)

    def on_tool_update(self, process: ExtensionProcess, update: ToolUpdate) -> None:
        """``tool_update`` (current nimlet): output of an in-flight call of this process,
        shown while it runs (``progress_listener``) and kept in ``ToolResult.progress``;
        never saved, never seen by a model, no effect on the timeout."""
        if self._in_flight.get(update.id) is not process:
            self._state.diagnostics.add(
                PROTOCOL_UNKNOWN_ID(
                    f"extension {process.name}: tool_update for {update.id!r}, which is not "
                    "one of its calls in flight; ignored",
                    package=process.name,
                    severity=Severity.INFO,
                )
            )
            return
        text, problem = read_update_text(update.content)
        if problem is not None:
            self._state.diagnostics.add(
                _codes.PROTOCOL_TOOL_UPDATE_INVALID(
                    f"extension {process.name}: tool_update for call {update.id!r}: "
                    f"{problem}; not shown, the call goes on",
                    package=self._state.owner_of(process),
                )
            )
            return
        if not text:
            return  # nothing to show
        item = {"id": update.id, "text": text, "delta": True}
        self.progress(process, item)

    def progress(self, process: ExtensionProcess, item: dict[str, Any]) -> None:
        """One progress item of a call in flight: kept for its result, shown to the
        listeners."""
        collected = self._progress.get(item["id"])
        if collected is not None:
            collected.append(item)
            if len(collected) > _PROGRESS_KEPT:
                # A flood of updates must not grow without bound: the latest are kept (the
                # listener still sees every one).
                del collected[: len(collected) - _PROGRESS_KEPT]
        owner = self._state.owner_of(process)
        listener = self._state.progress_listener
        if listener is not None:
            listener(owner, item)
        caller = self._call_listeners.get(item["id"])
        if caller is not None:
            caller(owner, item)


def prompt_command(prompt: PromptTemplate, owner: str) -> CommandEntry:
    """A prompt template as a slash command, expanded with its ecosystem's rules (nimlet's
    ``$ARGUMENTS``/``$@`` unless it says otherwise)."""
    body, expand = prompt.body, prompt.expand or expand_prompt

    async def handler(arguments: str) -> CommandOutcome:
        return CommandOutcome(prompt=expand(body, arguments))

    return CommandEntry(prompt.name, prompt.description, owner, handler)


def client_command(owner: str, command: PromptCommand) -> CommandEntry:
    """The reply is a prompt the agent receives as if the user sent it."""

    async def handler(arguments: str) -> CommandOutcome:
        return CommandOutcome(prompt=command.template.replace(command.placeholder, arguments))

    return CommandEntry(command.name, command.description, owner, handler)


Activate = Callable[[], Awaitable[bool]]
"""Start a dormant package (once, however many callers ask); False if it did not start."""


class Binding(Protocol):
    """Where a projected registration's entries send their calls."""

    @property
    def features(self) -> frozenset[str]: ...

    def tool(self, owner: str, spec: ToolSpec) -> ToolEntry: ...

    def command(self, owner: str, spec: CommandSpec) -> CommandEntry: ...

    def hook(self, owner: str, event: str, wire: str) -> HookHandler:
        """``wire``: the name the process subscribed with, which differs from the
        catalogue's ``event`` for an aliased event (``EXTENDED_ALIASES``)."""
        ...


@dataclass(frozen=True, slots=True)
class LiveBinding:
    """A running process: every call is a request to it."""

    entries: ProcessEntries
    process: ExtensionProcess
    package: str | None = None
    """The package of a process hosting several its events are addressed to."""

    @property
    def features(self) -> frozenset[str]:
        return self.process.plan.features

    def tool(self, owner: str, spec: ToolSpec) -> ToolEntry:
        return self.entries.tool(self.process, owner, spec)

    def command(self, owner: str, spec: CommandSpec) -> CommandEntry:
        return self.entries.command(self.process, owner, spec)

    def hook(self, owner: str, event: str, wire: str) -> HookHandler:
        process, request = self.process, self.entries.requests.send
        addressed = {"package": self.package} if self.package is not None else None

        async def handler(event: str, payload: dict[str, Any]) -> ResponseMessage:
            return await request(
                process, owner, "event", event,
                lambda rid, trace: EventRequest(
                    id=rid, event=wire, payload=payload,
                    gateway=addressed if trace is None else {**(addressed or {}), **trace},
                ),
            )  # fmt: skip

        return handler


@dataclass(frozen=True, slots=True)
class DormantBinding:
    """A package not started yet: the first call starts it, then goes to its live entry."""

    state: GatewayState
    owner: str
    features: frozenset[str]
    activate: Activate
    rules: ToolRules = NIMLET_TOOL_RULES

    def tool(self, owner: str, spec: ToolSpec) -> ToolEntry:
        registry, activate = self.state.registry, self.activate

        async def handler(arguments: dict[str, Any]) -> ToolOutcome:
            if not await activate():
                return ToolOutcome(f"tool {spec.name}: {owner} did not start", is_error=True)
            live = registry.tool_of(owner, spec.name)
            if live is None or live.handler is handler:
                return ToolOutcome(f"{owner} no longer provides tool {spec.name}", is_error=True)
            return await live.handler(arguments)

        return make_tool(
            spec.name,
            spec.description,
            spec.input_schema,
            spec.effective_capabilities,
            owner,
            handler,
            rules=self.rules,
            output_schema=ToolExtras.output_schema(spec)[0]
            if TOOL_OUTPUT in self.features
            else None,
        )

    def command(self, owner: str, spec: CommandSpec) -> CommandEntry:
        registry, activate = self.state.registry, self.activate

        async def handler(arguments: str) -> CommandOutcome:
            if not await activate():
                return CommandOutcome(message=f"/{spec.name}: {owner} did not start")
            live = registry.command_of(owner, spec.name)
            if live is None or live.handler is handler:
                return CommandOutcome(message=f"{owner} no longer provides /{spec.name}")
            return await live.handler(arguments)

        return CommandEntry(spec.name, spec.description, owner, handler, rules=self.rules)

    def hook(self, owner: str, event: str, wire: str) -> HookHandler:
        registry, activate = self.state.registry, self.activate

        async def handler(event: str, payload: dict[str, Any]) -> Any:
            if not await activate():
                raise ExtensionError(f"{owner} did not start")
            live = [hook for hook in registry.hooks_of(owner) if hook.event == event]
            if not live or live[0].handler is handler:
                return None  # it no longer subscribes: nothing to add
            return await live[0].handler(event, payload)

        return handler
