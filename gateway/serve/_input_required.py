"""The calls of MCP 2026-07-28 clients, and the questions their extensions ask answered
through ``input_required`` results.

The 2026-07-28 revision has no server-initiated requests: a server that needs the client's
input answers the client's request with an ``InputRequiredResult`` — the requests it would
have sent (here one elicitation form, under ``input_requests["answer"]``) and an opaque
``requestState`` — and the client answers them and sends the same request again with its
``inputResponses`` and the state echoed (SEP-2322, as the MCP SDK 2.3 implements the
revision: ``mcp_types.InputRequiredResult``, ``InputResponseRequestParams``).

An extension's question arrives in the middle of its call, so such a call runs here in the
background, outliving the request that started it: each request (a *leg*) waits for the
call's next event — its result, or a question, which becomes the leg's
``InputRequiredResult`` with a fresh random state naming the waiting call. The retry
carrying that state gives the question its answer and waits again. The state is a lookup
key, bound to the caller that got it (the HTTP token); it is good once, and for
``RETRY_WITHIN`` seconds: then the question is answered cancelled (``ui.unanswered``) and the
call runs on. A leg whose caller goes away cancels its call.
"""

from __future__ import annotations

import contextlib
import math
import secrets
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.jsonrpc_dispatcher import progress_token_from_params

from gateway.base import Diagnostics
from gateway.serve._elicit import (
    NO_ELICITATION,
    answer_from_elicitation,
    elicitation_schema,
    unanswered,
)
from gateway.serve._progress import progress_message
from gateway.wire import ExtensionProcess, UiAnswer, UiRequest

__all__ = ["ANSWER_KEY", "RETRY_WITHIN", "InputRequired", "Progress", "forward_progress"]

Progress = Callable[[str, dict[str, Any]], None]
"""What ``Gateway.call_tool`` reports a tool's progress to: (owner, item)."""

ANSWER_KEY = "answer"
"""The key of the one input request a question becomes, and of its response."""

RETRY_WITHIN = 600.0
"""Seconds a question waits for the client's retry before it is answered cancelled."""

PROGRESS_BACKLOG = 256
"""Progress items waiting to be sent for one call; past it the oldest news is dropped."""

GONE = "no retry of the call came with its requestState within {:.0f} s"


async def forward_progress(
    ctx: ServerRequestContext[Any, Any], receive: MemoryObjectReceiveStream[dict[str, Any]]
) -> None:
    """Each progress item as ``notifications/progress`` of this request, when it asked for
    them (a ``progressToken``); until ``receive`` ends or the caller stops it."""
    if progress_token_from_params(ctx.params) is None:
        return
    count = 0
    async for item in receive:
        count += 1
        await ctx.session.report_progress(count, None, progress_message(item) or None)


def progress_channel() -> tuple[
    Progress, MemoryObjectReceiveStream[dict[str, Any]], Callable[[], None]
]:
    """A ``Progress`` that never blocks (a slow reader misses some news), what it sends, and
    how to close it."""
    send, receive = anyio.create_memory_object_stream[dict[str, Any]](PROGRESS_BACKLOG)

    def progress(owner: str, item: dict[str, Any]) -> None:
        with contextlib.suppress(
            anyio.WouldBlock, anyio.ClosedResourceError, anyio.BrokenResourceError
        ):
            send.send_nowait(item)

    return progress, receive, send.close


@dataclass(eq=False)
class _Question:
    request: UiRequest
    schema: dict[str, Any]
    answered: anyio.Event = field(default_factory=anyio.Event)
    answer: UiAnswer = field(default_factory=lambda: UiAnswer(cancelled=True))


@dataclass(eq=False)
class _Call:
    owner: str | None
    principal: Hashable | None
    can_ask: bool
    events_in: MemoryObjectSendStream[_Question | None]
    events: MemoryObjectReceiveStream[_Question | None]
    progress: MemoryObjectReceiveStream[dict[str, Any]]
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    outcome: Any = None
    failure: Exception | None = None
    waiting: _Question | None = None
    attended: bool = False
    """A leg waits on the call's events (and closes them once it ends)."""

    def close(self) -> None:
        self.events.close()
        self.progress.close()


class InputRequired:
    """The 2026-07-28 calls in flight or waiting for an answer; ``run`` hosts them."""

    def __init__(self) -> None:
        self._group: TaskGroup | None = None
        self._ready = anyio.Event()
        self._running: list[_Call] = []
        self._waiting: dict[str, _Call] = {}

    async def run(self) -> None:
        """Host the calls for the server's lifetime (cancelled with it, and they with it)."""
        async with anyio.create_task_group() as group:
            self._group = group
            self._ready.set()
            await anyio.sleep_forever()

    def cancel_all(self) -> None:
        for call in list(self._running):
            call.scope.cancel()

    async def call(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: types.InputResponseRequestParams,
        run: Callable[[Progress], Awaitable[Any]],
        *,
        owner: str | None,
        principal: Hashable | None,
    ) -> Any:
        """One leg: start ``run`` (or, for a retry carrying a ``requestState``, answer the
        question its call waits on), then its result or an ``InputRequiredResult``."""
        if params.request_state is not None:
            call = self._resume(params.request_state, principal, params.input_responses)
        else:
            call = await self._start(run, owner, principal, _can_elicit(ctx))
        return await self._leg(ctx, call)

    async def _start(
        self,
        run: Callable[[Progress], Awaitable[Any]],
        owner: str | None,
        principal: Hashable | None,
        can_ask: bool,
    ) -> _Call:
        await self._ready.wait()
        assert self._group is not None
        events_in, events = anyio.create_memory_object_stream[_Question | None](math.inf)
        progress, receive, close = progress_channel()
        call = _Call(owner, principal, can_ask, events_in, events, receive)
        self._running.append(call)
        self._group.start_soon(self._run_call, call, run, progress, close)
        return call

    async def _run_call(
        self,
        call: _Call,
        run: Callable[[Progress], Awaitable[Any]],
        progress: Progress,
        close: Callable[[], None],
    ) -> None:
        try:
            with call.scope:
                call.outcome = await run(progress)
        except Exception as error:  # the leg waiting on it raises it to its caller
            call.failure = error
        finally:
            self._running.remove(call)
            close()
            call.events_in.send_nowait(None)
            call.events_in.close()
            if not call.attended:  # its question expired, or its caller went away
                call.close()

    async def _leg(self, ctx: ServerRequestContext[Any, Any], call: _Call) -> Any:
        call.attended = True
        async with anyio.create_task_group() as group:
            group.start_soon(forward_progress, ctx, call.progress)
            try:
                question = await call.events.receive()
            except anyio.EndOfStream:
                question = None
            except anyio.get_cancelled_exc_class():
                call.attended = False
                call.scope.cancel()  # its caller went away: nobody can answer or read it
                raise
            group.cancel_scope.cancel()
        call.attended = False
        if question is None:
            call.close()
            if call.failure is not None:
                raise call.failure
            if call.outcome is None:
                raise MCPError(types.INTERNAL_ERROR, "the call was cancelled")
            return call.outcome
        state = secrets.token_urlsafe(24)
        call.waiting = question
        self._waiting[state] = call
        form = types.ElicitRequestFormParams(
            message=question.request.prompt or "Answer", requested_schema=question.schema
        )
        return types.InputRequiredResult(
            input_requests={ANSWER_KEY: types.ElicitRequest(params=form)}, request_state=state
        )

    def _resume(
        self, state: str, principal: Hashable | None, responses: types.InputResponses | None
    ) -> _Call:
        call = self._waiting.get(state)
        if call is None or call.principal != principal or call.waiting is None:
            raise MCPError(
                types.INVALID_PARAMS,
                "requestState names no call waiting for an answer (answered already, "
                "expired, or another caller's)",
            )
        del self._waiting[state]
        question, call.waiting = call.waiting, None
        response = (responses or {}).get(ANSWER_KEY)
        if isinstance(response, types.ElicitResult):
            question.answer = answer_from_elicitation(question.request, response)
        question.answered.set()
        return call

    async def ask(
        self, process: ExtensionProcess, request: UiRequest, diagnostics: Diagnostics | None
    ) -> UiAnswer | None:
        """The answer to ``process``'s question through its 2026-07-28 call (the one call of
        its package in flight, else the one call in flight); None when no such call runs."""
        calls = [c for c in self._running if c.owner == process.name] or list(self._running)
        if not calls:
            return None
        schema = elicitation_schema(request)
        if len(calls) > 1:
            why = f"{len(calls)} calls of MCP 2026-07-28 clients could be the one it is part of"
            return unanswered(process, request, diagnostics, why)
        if schema is None or not calls[0].can_ask:
            return unanswered(process, request, diagnostics, NO_ELICITATION)
        call, question = calls[0], _Question(request, schema)
        await call.events_in.send(question)
        with anyio.move_on_after(RETRY_WITHIN):
            await question.answered.wait()
        if not question.answered.is_set():
            for state in [s for s, c in self._waiting.items() if c is call]:
                del self._waiting[state]
            call.waiting = None
            return unanswered(process, request, diagnostics, GONE.format(RETRY_WITHIN))
        return question.answer


def _can_elicit(ctx: ServerRequestContext[Any, Any]) -> bool:
    """The request declared (in its ``_meta``) that its client answers elicitation forms."""
    return ctx.session.check_client_capability(
        types.ClientCapabilities(elicitation=types.ElicitationCapability())
    )
