"""Moving the gateway to another session: a new one, a fork of this one, or a saved one
resumed. Each ends the current session, restarts the extensions on the next (they are
initialized with its id) and starts it; a command's session action picks one of them.
``session_end`` and ``session_start`` then carry a ``reason`` (``new``, ``fork`` or
``resume``), which Pi's ``session_start``/``session_shutdown`` have."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from gateway.host._lifecycle import Lifecycle
from gateway.host._state import GatewayState
from gateway.model import SESSION_ID, Session, SessionAction, SessionActionError, SessionNotFound

__all__ = ["SessionSwitch"]


class SessionSwitch:
    """Switches sessions for the ``Gateway``: session events go through its ``Lifecycle``,
    and ``reload`` is its own reload (extensions restarted, permissions renewed)."""

    def __init__(
        self, state: GatewayState, lifecycle: Lifecycle, reload: Callable[[], Awaitable[None]]
    ) -> None:
        self._state = state
        self._lifecycle = lifecycle
        self._reload = reload

    def use(self, session_id: str | None) -> None:
        """``Gateway.use_session``: the next session, the extensions as they are."""
        state = self._state
        if session_id is None:
            session = Session.create(state.config.sessions_dir, state.workspace, None)
        else:
            session = Session.resume(state.config.sessions_dir, session_id, state.diagnostics)
        state.session.close()
        session.listener = state.session_listener
        state.session = session
        state.deliveries.clear()
        state.requested_actions.clear()
        state.turn_open = False

    async def new(self) -> None:
        state = self._state
        await self._end("new")
        await self._begin(Session.create(state.config.sessions_dir, state.workspace, None), "new")

    async def fork(self, message: int) -> None:
        """``SessionActionError`` ("fork message not found") when this session has no
        ``message``-th (1-based) user message."""
        state = self._state
        try:
            forked = state.session.fork(state.config.sessions_dir, message)
        except SessionNotFound as error:
            raise SessionActionError(str(error)) from None
        await self._end("fork")
        await self._begin(forked, "fork")

    async def resume(self, session_id: str) -> None:
        state = self._state
        # Loaded first: a session that is not there ends nothing.
        session = Session.resume(state.config.sessions_dir, session_id, state.diagnostics)
        await self._end("resume")
        await self._begin(session, "resume")

    async def apply(self, action: SessionAction) -> str:
        """A command's session action (``Gateway.apply_session_action``); the
        ``editor_text`` to put in the composer."""
        if action.action == "new":
            await self.new()
        elif action.action == "fork":
            await self.fork(action.message or 0)
        elif action.action == "switch":
            if not action.id or not SESSION_ID.match(action.id):
                raise SessionActionError("Invalid session ID.")
            try:
                await self.resume(action.id)
            except SessionNotFound:
                raise SessionActionError(f"Session not found: {action.id}") from None
        elif action.action == "compact":
            summarizer = self._state.agent.summarizer
            await self._lifecycle.compact(action.instruction, 0, summarizer)
            return ""
        else:
            raise SessionActionError(f"unknown session action: {action.action}")
        return action.editor_text

    async def _end(self, reason: str) -> None:
        await self._lifecycle.emit("session_end", {**self._state.base_payload(), "reason": reason})

    async def _begin(self, session: Session, reason: str) -> None:
        state = self._state
        state.session.close()
        session.listener = state.session_listener
        state.session = session
        await self._reload()
        await self._lifecycle.emit("session_start", {**state.base_payload(), "reason": reason})
