"""The gateway an agent embeds: open on a workspace, list, call, run commands, drive events.

Everything the gateway starts speaks the nimlet protocol. ``Gateway`` holds the state and
the public API; starting processes (``_loading``), projecting their registrations onto the
registry (``_projection``) and answering their host requests (``_host_requests``) live in
their own modules.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import TaskGroup

from . import _codes
from ._host_requests import _HostRequests
from ._loading import _Loading
from ._projection import _Projection
from ._results import (
    AgentStartResult,
    CompactionResult,
    InputResult,
    Summarizer,
    ToolResult,
    UnknownCommand,
    UnknownTool,
)
from ._spawn import child_environment
from .config import GatewayConfig
from .diagnostics import Diagnostic, Diagnostics
from .discovery import Discovery
from .events import CANONICAL_EVENTS, EventCatalogue, EventOutcome, dispatch
from .packages import PackageStatus
from .process import ExtensionError, ExtensionProcess, TransportConfig, UiHandler
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
from .trust import is_workspace_trusted

__all__ = [
    "AgentStartResult",
    "Gateway",
    "InputResult",
    "ToolResult",
    "UnknownCommand",
    "UnknownTool",
    "open_gateway",
]


class Gateway(_Loading, _Projection, _HostRequests):
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
        catalogue: EventCatalogue = CANONICAL_EVENTS,
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
        # formats that declare them, each with the package ids it may replace.
        self._declared: dict[str, dict[tuple[str, str], list[str]]] = {}
        self._ui = ui
        self._tasks = task_group
        self._ids = itertools.count(1)
        self._transport = TransportConfig(config.line_cap, config.shutdown_grace, config.term_grace)
        # Owner name, commands and hooks of each running process (restart, late tools).
        self._owners: dict[ExtensionProcess, str] = {}
        self._held: dict[str, tuple[list[CommandEntry], list[HookEntry]]] = {}
        self._progress: dict[str, list[dict[str, Any]]] = {}
        self._crashes: dict[str, list[float]] = {}
        self.progress_listener: Callable[[str, dict[str, Any]], None] | None = None
        """Called with (owner, progress item) for each ``tool.progress`` update."""
        self.exec_policy: Callable[[str, str, list[str]], bool] | None = None
        """Decides ``host.request`` ``exec`` calls: (owner, command, args) → allowed.
        None allows every command (outside plan mode)."""
        self.requested_actions: list[tuple[str, str]] = []
        """(owner, action) pairs a runtime asked for through ``host.actions`` (new_session,
        shutdown, reload, compact); the embedding agent decides what to do with them."""

    # ------------------------------------------------------------------ identity

    def next_id(self) -> str:
        """Request ids come from one counter, so they are unique across extensions."""
        return str(next(self._ids))

    @property
    def env(self) -> dict[str, str]:
        return child_environment(self.config.passthrough_env)

    # ------------------------------------------------------------------ startup

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

    async def submit_input(self, text: str, source: str = "interactive") -> InputResult:
        """``input``: a user message before the agent sees it. Subscribers may transform
        the text (chained) or handle the message (then the agent should not run, and later
        subscribers are not asked). ``source``: ``interactive``, ``rpc`` or ``extension``."""
        outcome = await self.emit("input", {"text": text, "source": source})
        final = outcome.payload.get("text")
        final = final if isinstance(final, str) else text
        if outcome.stopped:
            action = "handled"
        elif final != text or "transform" in outcome.collected.get("action", ()):
            action = "transform"
        else:
            action = "continue"
        return InputResult(action, final, source, outcome.stopped_by)

    async def before_agent_start(self, prompt: str, system_prompt: str) -> AgentStartResult:
        """``before_agent_start``: subscribers may replace the system prompt and the prompt
        for this run (chained) and contribute messages to inject (collected from every
        subscriber)."""
        outcome = await self.emit(
            "before_agent_start", {"prompt": prompt, "system_prompt": system_prompt}
        )
        final = outcome.payload.get("system_prompt")
        messages = self._message_list(outcome.collected.get("messages", []), "before_agent_start")
        rewritten = outcome.payload.get("prompt")
        return AgentStartResult(
            final if isinstance(final, str) else system_prompt,
            messages,
            rewritten if isinstance(rewritten, str) and rewritten != prompt else None,
        )

    async def build_context(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``context``: before a model call; subscribers may replace the messages the model
        gets (chained). Returns the messages to send."""
        outcome = await self.emit("context", {"messages": list(messages)})
        final = outcome.payload.get("messages")
        if not isinstance(final, list):
            return list(messages)
        return self._message_list(final, "context")

    def _message_list(self, items: Iterable[Any], event: str) -> list[dict[str, Any]]:
        kept = [item for item in items if isinstance(item, dict)]
        dropped = [item for item in items if not isinstance(item, dict)]
        if dropped:
            self.diagnostics.add(
                _codes.HOOK_FAILED(
                    f"{event}: {len(dropped)} message(s) that are not objects were dropped"
                )
            )
        return kept

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
        parts = outcome.extra.get("parts")
        if hooked:
            after = await self.emit(
                "tool_result",
                {"tool": name, "arguments": arguments, "output": content, "is_error": is_error},
            )
            if str(after.payload["output"]) != content:
                parts = None  # a hook replaced the output: the text is what counts now
            content, is_error = str(after.payload["output"]), bool(after.payload["is_error"])
        self.session.append(
            {"type": "tool_result", "id": self.next_id(), "output": content, "is_error": is_error}
        )
        return ToolResult(
            content, is_error, False, arguments, self.diagnostics.since(mark),
            parts=parts, details=outcome.extra.get("details"),
            progress=list(outcome.extra.get("progress") or []),
        )  # fmt: skip

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
