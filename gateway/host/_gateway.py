"""The gateway an agent embeds: list, call, run commands, drive events, switch sessions.

Everything the gateway starts speaks the nimlet protocol. ``Gateway`` is the public API
(``open_gateway`` builds it); it owns one ``GatewayState`` and the parts built around it:
the ``Loader`` (starting and stopping processes), the ``Projector`` (their registrations on
the registry), the ``HostRequestHandler`` (what they ask the host), the ``ToolPipeline``
(the way a tool call goes), the ``SessionSwitch`` (new, fork, resume) and ``Lifecycle``
(the events an agent drives: sessions, turns, input, compaction)."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from gateway.base import Diagnostics, GatewayConfig
from gateway.host._delivery import QueueMode, recorded
from gateway.host._freshness import InputsWatch
from gateway.host._host_requests import HostRequestHandler
from gateway.host._lifecycle import Lifecycle
from gateway.host._loading import Loader
from gateway.host._permissions import PermissionPolicy
from gateway.host._policy_gate import PolicyGate
from gateway.host._projection import Projector
from gateway.host._registrations import RegistrationCache, RegistrationMemory
from gateway.host._session_switch import SessionSwitch
from gateway.host._settings_watch import SettingsWatch
from gateway.host._state import ExecPolicy, GatewayState, ProgressListener
from gateway.host._tool_pipeline import ToolPipeline
from gateway.host._tool_search import DEFAULT_LIMIT, ToolMatch, ToolSearch
from gateway.model import (
    BUILTIN_OWNER,
    AgentLink,
    AgentStartResult,
    CommandOutcome,
    CompactionReason,
    CompactionResult,
    Discovery,
    EventCatalogue,
    EventOutcome,
    InputResult,
    ModelContext,
    Registry,
    Session,
    SessionAction,
    Summarizer,
    ToolEntry,
    ToolOutcome,
    ToolResult,
    UnknownCommand,
    UnknownTool,
    UserMessage,
    make_tool,
)
from gateway.packages import PackageStatus
from gateway.wire import ExtensionError, ExtensionProcess, UiHandler

__all__ = [
    "AgentStartResult",
    "CompactionResult",
    "Gateway",
    "InputResult",
    "ToolResult",
    "UnknownCommand",
    "UnknownTool",
]


class Gateway:
    """Use ``open_gateway``; the constructor does not start anything."""

    def __init__(self, state: GatewayState, ui: UiHandler | None) -> None:
        self._state = state
        memory = RegistrationMemory(RegistrationCache(state.config.home))
        self._projector = Projector(state, memory)
        self._host_requests = HostRequestHandler(state, ui)
        self._loader = Loader(state, self._projector, self._host_requests, memory)
        self._lifecycle = Lifecycle(state)
        self._policy = PolicyGate(state)
        self._tools = ToolPipeline(state, self._lifecycle, self._policy)
        self._search = ToolSearch(state, self._policy)
        self._sessions = SessionSwitch(state, self._lifecycle, self.reload)
        self._settings = SettingsWatch(state, self.restart_package)
        self._inputs = InputsWatch(state, self._settings.catch_up)

    # ------------------------------------------------------------------ what it holds

    @property
    def workspace(self) -> Path:
        return self._state.workspace

    @property
    def trusted(self) -> bool:
        return self._state.trusted

    @property
    def plan(self) -> bool:
        return self._state.plan

    @property
    def config(self) -> GatewayConfig:
        return self._state.config

    @property
    def catalogue(self) -> EventCatalogue:
        return self._state.catalogue

    @property
    def diagnostics(self) -> Diagnostics:
        return self._state.diagnostics

    @property
    def registry(self) -> Registry:
        return self._state.registry

    @property
    def discovery(self) -> Discovery:
        return self._state.discovery

    @property
    def session(self) -> Session:
        return self._state.session

    @property
    def processes(self) -> list[ExtensionProcess]:
        """Running processes, in startup order."""
        return self._state.processes

    @property
    def packages(self) -> list[PackageStatus]:
        """Installed packages and their gates, as evaluated at the last (re)load."""
        return self._state.packages

    @property
    def requested_actions(self) -> list[tuple[str, str]]:
        """(owner, action) pairs a runtime asked for through ``host.actions`` (new_session,
        shutdown, reload, compact); the embedding agent decides what to do with them."""
        return self._state.requested_actions

    @property
    def progress_listener(self) -> ProgressListener | None:
        """Called with (owner, progress item) for each ``tool.progress`` update."""
        return self._state.progress_listener

    @progress_listener.setter
    def progress_listener(self, listener: ProgressListener | None) -> None:
        self._state.progress_listener = listener

    @property
    def agent(self) -> AgentLink:
        """What the embedding agent provides (docs/embedding.md); its fields may change."""
        return self._state.agent

    @property
    def permissions(self) -> PermissionPolicy:
        """Permission grants of nimlet extension tools (``grants()``, ``clear_project()``)."""
        return self._state.permissions

    @property
    def exec_policy(self) -> ExecPolicy | None:
        """Decides ``exec`` requests: (owner, command, args) → allowed; None: any (not plan)."""
        return self._state.exec_policy

    @exec_policy.setter
    def exec_policy(self, policy: ExecPolicy | None) -> None:
        self._state.exec_policy = policy

    # ------------------------------------------------------------------ tools and commands

    def tools(self) -> list[ToolEntry]:
        """Tools to offer a model now (plan mode offers only read/user tools)."""
        return self._state.registry.tools(plan=self._state.plan)

    def tool_schemas(
        self, deferred: bool = False, pinned: Iterable[str] = ()
    ) -> list[dict[str, Any]]:
        """``deferred``: ``search_tools``, ``call_tool`` and the pinned tools only."""
        if deferred:
            return self._search.deferred_schemas(pinned)
        return [tool.describe() for tool in self.tools()]

    def search_tools(self, query: str, limit: int = DEFAULT_LIMIT) -> list[ToolMatch]:
        """The usable tools that best match a task in plain words, best first."""
        return self._search.search(query, limit)

    @property
    def tool_search(self) -> ToolSearch:
        return self._search

    def register_builtin_tool(
        self,
        name: str,
        description: str,
        input_schema: dict[str, Any],
        handler: Callable[[dict[str, Any]], Awaitable[ToolOutcome]],
        capabilities: Iterable[str] = ("write", "shell", "network"),
    ) -> None:
        """Register one of the agent's own tools, so tool_call / tool_result hooks apply."""
        registry = self._state.registry
        tool = make_tool(name, description, input_schema, capabilities, BUILTIN_OWNER, handler)
        existing = [t for t in registry.tools() if t.owner == BUILTIN_OWNER]
        registry.unregister(BUILTIN_OWNER)
        self._state.diagnostics.extend(registry.register(BUILTIN_OWNER, tools=[*existing, tool]))

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        hooks: bool = True,
        progress: ProgressListener | None = None,
    ) -> ToolResult:
        """permission prompt → tool_call hooks → adopted policy rules → argument
        validation → the tool → tool_result hooks. In plan mode, a tool within
        ``read``/``user`` runs without prompt or hooks, and any other is an error result.
        ``hooks=False``: a host in front of this gateway already asked for permission and
        dispatched ``tool_call`` / ``tool_result`` to it (``gateway serve --nimlet``).
        ``progress``: (owner, item) of each progress update of this call only."""
        return await self._search.route(
            name, arguments, lambda n, a: self._tools.call(n, a, hooks, progress)
        )

    async def call_tools(self, calls: Sequence[tuple[str, dict[str, Any]]]) -> list[ToolResult]:
        """The calls one model step asked for, in order; as nimlet does, calls of tools
        declared exactly ``["read"]`` that need no prompt run concurrently."""
        return await self._tools.call_all(calls)

    async def run_command(self, name: str, arguments: str = "") -> CommandOutcome:
        """The command's reply (``CommandOutcome``): side effects are applied already; the
        caller shows ``message``, then acts on ``session``, ``reload`` or ``prompt``."""
        command = self._state.registry.command(name)
        if command is None:
            raise UnknownCommand(name)
        self._state.running += 1
        try:
            return await command.handler(arguments)
        except ExtensionError as error:
            return CommandOutcome(message=f"/{name} failed: {error}")
        finally:
            self._state.running -= 1

    async def apply_session_action(self, action: SessionAction) -> str:
        """Carry out a command's session action over the gateway's session store, as
        nimlet does; returns the ``editor_text`` to put in the composer (after ``new``,
        ``fork`` or ``switch``). Raises ``SessionActionError`` with nimlet's wording."""
        return await self._sessions.apply(action)

    # ------------------------------------------------------------------ user messages

    def take_steering(self, mode: QueueMode = "one-at-a-time") -> list[UserMessage]:
        """``user_message`` steering to deliver before the next model request of the
        running turn (after the current tool batch); each is recorded in the session as a
        user message. ``mode``: one message per call, or all."""
        return recorded(self._state.session, self._state.deliveries.take_steering(mode))

    def take_follow_ups(self, mode: QueueMode = "one-at-a-time") -> list[UserMessage]:
        """``user_message`` follow-ups to deliver after the final answer (the run goes on
        with them); recorded in the session like steering."""
        return recorded(self._state.session, self._state.deliveries.take_follow_ups(mode))

    @property
    def pending_user_messages(self) -> list[UserMessage]:
        """Not delivered yet (steering first), left in place."""
        return self._state.deliveries.pending()

    # ------------------------------------------------------------------ lifecycle events

    async def emit(self, event: str, payload: dict[str, Any]) -> EventOutcome:
        """Dispatch one lifecycle event to its subscribers (none in plan mode)."""
        return await self._lifecycle.emit(event, payload)

    # ``payload``: a host in front's (``serve --nimlet``), as it is; None: the gateway's own.
    async def start_session(self, payload: dict[str, Any] | None = None) -> EventOutcome:
        return await self.emit("session_start", payload or self._state.base_payload())

    async def end_session(self, payload: dict[str, Any] | None = None) -> EventOutcome:
        return await self.emit("session_end", payload or self._state.base_payload())

    async def start_turn(self, payload: dict[str, Any] | None = None) -> EventOutcome:
        self._state.turn_open = True
        return await self.emit("turn_start", payload or self._state.base_payload())

    async def end_turn(
        self, interrupted: bool = False, payload: dict[str, Any] | None = None
    ) -> EventOutcome:
        payload = dict(payload) if payload is not None else self._state.base_payload()
        if interrupted:
            payload["interrupted"] = True
        try:
            return await self.emit("turn_end", payload)
        finally:
            self._state.turn_open = False

    async def submit_input(self, text: str, source: str = "interactive") -> InputResult:
        """``input``: a user message before the agent sees it. Subscribers may transform
        the text (chained) or handle the message (then the agent should not run, and later
        subscribers are not asked). ``source``: ``interactive``, ``rpc`` or ``extension``."""
        return await self._lifecycle.submit_input(text, source)

    async def before_agent_start(self, prompt: str, system_prompt: str) -> AgentStartResult:
        """``before_agent_start``: subscribers may replace the system prompt for this run
        (chained) and contribute messages to inject (collected from every subscriber)."""
        return await self._lifecycle.before_agent_start(prompt, system_prompt)

    async def context(
        self, system: Sequence[str], messages: Sequence[dict[str, Any]]
    ) -> ModelContext:
        """``context``, once before each model request (also in plan mode): what to send.
        Runtimes that replace messages (Pi) go first, chained; then nimlet extensions' additions
        are appended, for this request only (never saved)."""
        return await self._lifecycle.context(list(system), list(messages))

    async def build_context(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``context`` with messages only: the messages to send."""
        return (await self.context([], messages)).messages

    async def compact(
        self,
        instruction: str = "",
        tokens_before: int = 0,
        summarizer: Summarizer | None = None,
        *,
        reason: CompactionReason = "manual",
        will_retry: bool = False,
    ) -> CompactionResult:
        """session_before_compact → (custom or built-in) summary → session_compact. ``reason``:
        ``manual`` (asked for), ``threshold`` (the context grew past its limit) or ``overflow``
        (a request overflowed; ``will_retry``: retried after compacting); both reach the
        events' payloads when not the defaults (Pi's ``reason`` and ``willRetry``)."""
        return await self._lifecycle.compact(
            instruction, tokens_before, summarizer, reason=reason, will_retry=will_retry
        )

    # ------------------------------------------------------------------ restarts

    async def load(self) -> None:
        """Discover and start everything (``open_gateway`` calls it once)."""
        await self._inputs.around(self._loader.load)
        await self._policy.load()
        self._settings.remember()
        self._settings.start()

    async def inputs_changed(self) -> bool:
        """Whether what the last (re)load read has changed (needs ``watch_inputs``)."""
        return await self._inputs.changed()

    def use_session(self, session_id: str | None = None) -> None:
        """A new session (or ``session_id`` resumed); nothing restarted, emitted or kept."""
        self._sessions.use(session_id)

    async def warm(self) -> None:
        """Start now every package held dormant (registered from the cache), not at first
        use; one that fails to start is a diagnostic, as at first use."""
        await self._loader.warm()

    async def start_for(self, events: Iterable[str], tools: Iterable[str] = ()) -> None:
        """Start together the dormant subscribers of ``events`` and owners of ``tools``."""
        await self._loader.start_for(events, tools)

    async def reload(self) -> None:
        """Stop everything and start again with a fresh ``initialize`` (same session). Session
        grants end, as when nimlet restarts its extensions; adopted policies are read again."""
        await self._loader.stop()
        self._state.renew_permissions()
        await self._inputs.around(self._loader.load)
        await self._policy.load()
        self._settings.remember()

    async def restart_package(
        self, package_id: str, drain: float = 0, evaluated: Sequence[PackageStatus] | None = None
    ) -> bool:
        """Restart one installed package alone, as it is now (on Linux a gateway does it when
        ``gateway config``/``secret`` change it) or as a caller ``evaluated`` the packages.
        True when it runs again; its calls in flight get ``drain`` s first."""
        restart = functools.partial(self._loader.restart_package, package_id, drain, evaluated)
        restarted = await self._inputs.around(restart)
        self._settings.remember()
        return restarted

    async def new_session(self) -> None:
        await self._sessions.new()

    async def fork(self, message: int) -> None:
        """A new session holding everything before the ``message``-th (1-based) user
        message of this one; the extensions restart on it. ``SessionActionError`` ("fork
        message not found") when there is no such message."""
        await self._sessions.fork(message)

    async def resume(self, session_id: str) -> None:
        await self._sessions.resume(session_id)

    async def set_trust(self, trusted: bool) -> None:
        self._state.trusted = trusted  # a reload: project roots come or go
        await self.reload()

    async def aclose(self) -> None:
        await self._loader.stop()
        self._inputs.close()
        self._state.session.close()
