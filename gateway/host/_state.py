"""The state one open gateway shares between its parts.

``Gateway`` owns this object and hands it, with explicit arguments, to the parts it builds
(``Loader``, ``Projector``, ``HostRequestHandler``, …). Each part owns the state that is
only its own (the projector its per-owner bookkeeping, the loader's starter its crash
history); what several parts read or change lives here, and nowhere else.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import TaskGroup

from gateway.base import Diagnostics, GatewayConfig
from gateway.host._delivery import Deliveries
from gateway.host._permissions import PermissionPolicy
from gateway.model import AgentLink, Discovery, EventCatalogue, Registry, Session, SessionEffect
from gateway.packages import PackageStatus
from gateway.runtime import child_environment
from gateway.wire import DeadlinePause, ExtensionProcess, Transport

__all__ = ["CALL_PROGRESS", "ExecPolicy", "GatewayState", "ProgressListener"]

ProgressListener = Callable[[str, dict[str, Any]], None]
"""Called with (owner, progress item) for each ``tool.progress`` update."""
CALL_PROGRESS: ContextVar[ProgressListener | None] = ContextVar("call_progress", default=None)
"""The progress listener of the tool call running in this task (``call_tool(progress=)``):
the request is built in the caller's task, so its id is tied to the caller's listener."""
ExecPolicy = Callable[[str, str, list[str]], bool]
"""Decides ``host.request`` ``exec`` calls: (owner, command, args) → allowed."""


@dataclass(slots=True)
class GatewayState:
    workspace: Path
    trusted: bool
    plan: bool
    config: GatewayConfig
    catalogue: EventCatalogue
    tasks: TaskGroup
    """Where background work runs (readers, restarts); cancelled when the gateway closes."""
    session: Session
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    registry: Registry = field(default_factory=Registry)
    discovery: Discovery = field(default_factory=Discovery)
    processes: list[ExtensionProcess] = field(default_factory=list)
    """Running processes in startup order."""
    owners: dict[ExtensionProcess, str] = field(default_factory=dict)
    """The registry owner of each running process (its name, or ``name#N``)."""
    discovered_grants: dict[str, frozenset[str]] = field(default_factory=dict)
    """What the store grants each discovered extension (by id), read once per load."""
    owner_packages: dict[str, str] = field(default_factory=dict)
    """The package (the id its grants and pins are kept under) of each registry owner that
    is not that id itself: ``name#N``, a shared process's members, per-call tools."""
    packages: list[PackageStatus] = field(default_factory=list)
    started: set[str] = field(default_factory=set)
    """Names of the processes started (or tried) since the extensions last stopped."""
    load_failures: dict[str, str] = field(default_factory=dict)
    """Package (or process) name → why its code did not load when it started here: its
    process did not start, or its runtime reported an error as it registered."""
    progress_listener: ProgressListener | None = None
    exec_policy: ExecPolicy | None = None
    """None allows every command (outside plan mode)."""
    requested_actions: list[tuple[str, str]] = field(default_factory=list)
    """(owner, action) pairs a runtime asked for through ``host.actions``."""
    session_listener: Callable[[SessionEffect], None] | None = None
    agent: AgentLink = field(default_factory=AgentLink)
    """What the embedding agent provides (model, messages, editor, approvals, …)."""
    transport: Transport | None = None
    """How its processes are reached (None: child processes over their pipes)."""
    pause: DeadlinePause = field(default_factory=DeadlinePause)
    """Paused while any extension waits on the user or the host."""
    dialog: anyio.Lock = field(default_factory=anyio.Lock)
    """Held while the user is asked something (a question, the editor): one at a time, in
    the order asked — the subscribers of an event sent to all at once may ask together."""
    turn_open: bool = False
    """Between ``start_turn`` and ``end_turn``."""
    running: int = 0
    """Commands and tool calls in progress."""
    deliveries: Deliveries = field(init=False)
    """``user_message`` side effects waiting to be delivered."""
    permissions: PermissionPolicy = field(init=False)
    """Permission grants (session and project), renewed when the extensions restart."""
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def __post_init__(self) -> None:
        self.deliveries = Deliveries(self.diagnostics)
        self.renew_permissions()

    def renew_permissions(self) -> None:
        """Session grants end, project grants are read again (nimlet renews its policy
        whenever the extensions restart)."""
        self.permissions = PermissionPolicy(self.workspace, self.trusted, self.diagnostics)
        self.discovered_grants = {}

    @property
    def in_progress(self) -> bool:
        """A turn, a command or a tool call runs: the time nimlet answers an extension's
        questions and host requests."""
        return self.turn_open or self.running > 0

    def model_messages(self) -> list[dict[str, Any]]:
        """The effective model context: the embedding agent's, else the session's."""
        if self.agent.messages is not None:
            return list(self.agent.messages())
        return self.session.model_messages()

    def next_id(self) -> str:
        """Request ids come from one counter, so they are unique across extensions."""
        return str(next(self._ids))

    def owner_of(self, process: ExtensionProcess) -> str:
        return self.owners.get(process, process.name)

    def package_of(self, owner: str) -> str:
        """The package a registry owner belongs to (``owner_packages``, else itself)."""
        return self.owner_packages.get(owner, owner)

    @property
    def env(self) -> dict[str, str]:
        """The allow-listed environment every child starts from."""
        return child_environment(self.config.passthrough_env)

    def base_payload(self) -> dict[str, Any]:
        return {"session_id": self.session.id, "workspace": str(self.workspace)}
