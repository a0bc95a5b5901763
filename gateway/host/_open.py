"""Opening a gateway: the run prepared (the sandbox's process flags), the workspace's trust
decided, the session created or resumed, and one task group for everything the gateway
starts, cancelled when it closes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio

from gateway.base import Diagnostic, Diagnostics, GatewayConfig
from gateway.host._confinement import prepare_run
from gateway.host._gateway import Gateway
from gateway.host._state import GatewayState
from gateway.model import CANONICAL_EVENTS, AgentLink, EventCatalogue, Session, SessionEffect
from gateway.packages.trust import is_workspace_trusted
from gateway.wire import Transport, UiHandler

__all__ = ["open_gateway"]


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
    on_effect: Callable[[SessionEffect], None] | None = None,
    on_diagnostic: Callable[[Diagnostic], None] | None = None,
    catalogue: EventCatalogue = CANONICAL_EVENTS,
    agent: AgentLink | None = None,
    transport: Transport | None = None,
) -> AsyncIterator[Gateway]:
    """Open a gateway: discover, start extensions, yield; stop everything on exit.

    ``trust=None`` uses the persisted workspace trust (``gateway trust DIR``); True or False
    decides for this run only. With the sandbox on (``GatewayConfig.sandbox``) the calling
    process is made non-dumpable (docs/security.md). Raises ``HomeUnusable`` when
    ``GATEWAY_HOME`` cannot be used. ``session_id`` resumes that session. ``agent`` is what the
    embedding agent provides (model, messages, editor, approvals; ``gateway.model.agent``).
    ``transport`` reaches the extensions (default: child processes over their pipes;
    ``gateway.wire.MemoryTransport`` runs them as tasks of this process, for tests).
    """
    config = config or GatewayConfig()
    prepared = await anyio.to_thread.run_sync(prepare_run, config)
    root, trusted, problem = await anyio.to_thread.run_sync(
        _resolve_trust, Path(workspace), config, trust
    )
    diagnostics = Diagnostics(listener=on_diagnostic)
    for diagnostic in [*prepared, *([problem] if problem is not None else [])]:
        diagnostics.add(diagnostic)
    if session_id is None:
        session = Session.create(config.sessions_dir, root, None)
    else:
        session = Session.resume(config.sessions_dir, session_id, diagnostics)
    session.listener = on_effect
    try:
        async with anyio.create_task_group() as tasks:
            state = GatewayState(
                workspace=root,
                trusted=trusted,
                plan=plan,
                config=config,
                catalogue=catalogue,
                tasks=tasks,
                session=session,
                diagnostics=diagnostics,
                session_listener=on_effect,
                agent=agent or AgentLink(),
                transport=transport,
            )
            gateway = Gateway(state, ui)
            try:
                await gateway.load()
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
