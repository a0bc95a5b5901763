"""The MCP bridge behind ``serve --mcp --http``: one gateway, many clients, each request
under the bearer token that made it.

The ASGI front (``_http``) checks the token and puts its record on the request's scope
(``TOKEN_KEY``); here each handler reads it from the request and applies it:

- a token scoped to packages sees only their tools and commands in the listings (prompt
  templates and skills, which name no package, are offered only to unscoped tokens), and
  a call of anything else is answered as an unknown tool: nothing runs;
- at most ``max_calls`` calls of one token are in flight, and with ``rate`` at most that
  many calls a minute (a token bucket per token: ``rate`` calls at once, refilled evenly);
  one more is refused with an MCP error;
- every call is a line of the audit trail (``AuditLog``): who, which tool of which package,
  what the gateway decided on the way (hooks, policy), how long; never its arguments
  unless the operator asked for them.

An extension's question goes to the client whose call it is answering: during a 2026-07-28
call, as that call's ``input_required`` result (``_input_required``); else the one client with
calls in flight to the asking package's tools, else the one client with any call in flight
(a hook asking during another package's tool). With several such clients, or none, no one
client can speak for the gateway's shared runtimes, and it is answered cancelled
(``ui.unanswered``). On shutdown ``cancel_calls`` ends the calls still in flight.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Collection, Hashable
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from gateway.base import telemetry
from gateway.base.telemetry import CALL_TRAIL, CallTrail
from gateway.host import ToolFilter
from gateway.serve._audit import AuditLog, AuditRecord, result_text
from gateway.serve._mcp import McpBridge
from gateway.serve._tokens import TokenRecord
from gateway.wire import ExtensionProcess, UiAnswer, UiRequest

__all__ = ["TOKEN_KEY", "HttpBridge"]

TOKEN_KEY = "extension-gateway.token"
"""Where the ASGI front puts the request's ``TokenRecord`` in its scope."""
TOO_MANY_CALLS = -32029
"""The MCP error code of a call refused because its token has too many in flight."""
_TRACEPARENT = re.compile(r"[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}")


def token_of(ctx: ServerRequestContext[Any, Any]) -> TokenRecord:
    """The token the request came with (the ASGI front admits none without one)."""
    scope = getattr(ctx.request, "scope", None)
    record = scope.get(TOKEN_KEY) if isinstance(scope, dict) else None
    if not isinstance(record, TokenRecord):
        raise MCPError(types.INVALID_REQUEST, "no bearer token on this request")
    return record


class _Bucket:
    """A token bucket: ``rate`` calls a minute, as a burst of ``rate`` refilled evenly."""

    def __init__(self, rate: int) -> None:
        self.rate, self.left, self.at = rate, float(rate), time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.left = min(self.rate, self.left + (now - self.at) * self.rate / 60)
        self.at = now
        if self.left < 1:
            return False
        self.left -= 1
        return True


class HttpBridge(McpBridge):
    def __init__(
        self, *, audit: AuditLog, max_calls: int = 8, rate: int = 0, **options: Any
    ) -> None:
        super().__init__(**options)
        self.audit = audit
        self.max_calls = max_calls
        self.rate = rate
        """Calls a minute one token may make; 0: no limit."""
        self._buckets: dict[str, _Bucket] = {}
        self._in_flight: Counter[str] = Counter()
        self._scopes: set[anyio.CancelScope] = set()
        self._callers: list[tuple[str | None, Any]] = []
        """(the called tool's owner, the calling client's session) per call in flight."""
        self._idle = anyio.Event()
        self._idle.set()
        self._sessions: dict[str, Any] = {}
        """``Mcp-Session-Id`` → a handshake-era session's last request's ``ServerSession``
        (whose connection's own stream carries list changes)."""
        self.live_sessions: Callable[[], Collection[str]] | None = None
        """The ids of the sessions still open (the server sets it: the SDK's session
        manager knows)."""

    @property
    def ready(self) -> bool:
        """The gateway is open and its registry loaded (``/readyz``)."""
        return self._ready.is_set()

    async def _remember_session(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        # No one client's session speaks for the server (questions); each handshake-era
        # session is told of list changes (on its GET stream, when it keeps one open).
        session = _session_of(ctx)
        if session is not None and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            if session not in self._sessions:
                self._prune()
            self._sessions[session] = ctx.session
        return await call_next(ctx)

    def notified(self) -> list[Any]:
        self._prune()
        return list(self._sessions.values())

    def _prune(self) -> None:
        """Forget the sessions that ended (closed, expired, deleted)."""
        if self.live_sessions is not None:
            live = self.live_sessions()
            for gone in [s for s in self._sessions if s not in live]:
                del self._sessions[gone]

    # ------------------------------------------------------------------ listings

    def _owner_of_tool(self, offered: str) -> str | None:
        name = self._offered(self._gateway).get(offered, offered)
        tool = self._gateway.registry.tool(name)
        return None if tool is None else tool.owner

    def _tool_filter(self, ctx: ServerRequestContext[Any, Any]) -> ToolFilter | None:
        token = token_of(ctx)
        return (lambda tool: token.allows(tool.owner)) if token.packages else None

    def _session_key(self, ctx: ServerRequestContext[Any, Any]) -> Hashable | None:
        # A stateless (2026-07-28) request has no session to remember found tools in.
        headers = getattr(ctx.request, "headers", None)
        session = headers.get(MCP_SESSION_ID_HEADER) if headers is not None else None
        return None if session is None else (token_of(ctx).name, session)

    async def _list_prompts(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        token = token_of(ctx)
        result = await super()._list_prompts(ctx, params)
        if token.packages:
            owners = {c.name: c.owner for c in self._gateway.registry.commands()}
            result.prompts = [
                p for p in result.prompts if p.name in owners and token.allows(owners[p.name])
            ]
        return result

    async def _get_prompt(
        self, ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult | types.InputRequiredResult:
        token = token_of(ctx)
        command = (await self._open()).registry.command(params.name)
        if token.packages and (command is None or not token.allows(command.owner)):
            raise MCPError(types.INVALID_PARAMS, f"Unknown prompt: {params.name}")
        caller = (None if command is None else command.owner, ctx.session)
        self._callers.append(caller)  # a command may ask its caller too
        try:
            return await super()._get_prompt(ctx, params)
        finally:
            self._callers.remove(caller)

    async def _list_resources(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        if token_of(ctx).packages:
            return types.ListResourcesResult(resources=[])
        return await super()._list_resources(ctx, params)

    async def _read_resource(
        self, ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        if token_of(ctx).packages:
            raise MCPError(-32002, f"Resource not found: {params.uri}")
        return await super()._read_resource(ctx, params)

    # ------------------------------------------------------------------ calls

    def _principal(self, ctx: ServerRequestContext[Any, Any]) -> Hashable | None:
        """Only the token whose call asked may answer it."""
        return token_of(ctx).name

    async def _call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        token, tool, started = token_of(ctx), params.name, time.monotonic()
        trail = CALL_TRAIL.get() or CallTrail()
        given = CALL_TRAIL.set(trail)
        result: types.CallToolResult | types.InputRequiredResult | None = None
        try:
            result = await self._admitted_call(ctx, params, token, trail)
            return result
        finally:
            CALL_TRAIL.reset(given)
            self.audit.record(
                AuditRecord(
                    token, tool, trail, time.monotonic() - started,
                    session=_session_of(ctx), protocol=ctx.protocol_version,
                    trace_id=_trace_id(ctx.meta),
                    arguments=params.arguments if self.audit.arguments else None,
                    result=result_text(result)
                    if self.audit.arguments and not isinstance(result, types.InputRequiredResult)
                    else None,
                )
            )  # fmt: skip

    async def _admitted_call(
        self,
        ctx: ServerRequestContext[Any, Any],
        params: types.CallToolRequestParams,
        token: TokenRecord,
        trail: CallTrail,
    ) -> types.CallToolResult | types.InputRequiredResult:
        """The call, once the token's scope and limits admit it (else an MCP error, the
        trail saying ``refused`` or ``limited``)."""
        tool = params.name
        if token.packages:
            await self._open()
        owner = self._owner_of_tool(tool) if self._opened else None
        if token.packages and not token.allows(owner):
            trail.outcome = "refused"
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {tool}")
        if self.rate and not self._buckets.setdefault(token.name, _Bucket(self.rate)).take():
            trail.outcome = "limited"
            raise MCPError(
                TOO_MANY_CALLS,
                f"too many calls for token {token.name!r} (at most {self.rate} a minute)",
            )
        if self._in_flight[token.name] >= self.max_calls:
            trail.outcome = "limited"
            raise MCPError(
                TOO_MANY_CALLS,
                f"too many calls in flight for token {token.name!r} (at most {self.max_calls})",
            )
        self._in_flight[token.name] += 1
        self._idle = anyio.Event() if self._idle.is_set() else self._idle
        scope = anyio.CancelScope()
        self._scopes.add(scope)
        caller = (owner, ctx.session)
        self._callers.append(caller)
        try:
            with scope:
                return await super()._call_tool(ctx, params)
            trail.outcome = "cancelled"
            raise MCPError(types.INTERNAL_ERROR, "the server is shutting down; call cancelled")
        except anyio.get_cancelled_exc_class():
            trail.outcome = "cancelled"
            raise
        finally:
            self._callers.remove(caller)
            self._scopes.discard(scope)
            self._in_flight[token.name] -= 1
            if not +self._in_flight:
                self._idle.set()

    def in_flight(self) -> dict[str, int]:
        """Calls in flight per token name (the ``tokens_in_use`` gauge)."""
        return {name: count for name, count in self._in_flight.items() if count}

    async def ask(self, process: ExtensionProcess, request: UiRequest) -> UiAnswer:
        diagnostics = None if self._opened is None else self._opened.diagnostics
        answer = await self._input.ask(process, request, diagnostics)  # a 2026-07-28 call's
        if answer is not None:
            return answer
        waiting = _distinct(s for owner, s in self._callers if owner == process.name)
        if not waiting:
            waiting = _distinct(s for _, s in self._callers)
        if len(waiting) == 1:
            return await self._ask_client(waiting[0], process, request)
        nobody = (
            f"{len(waiting)} clients have calls in flight, and no one of them speaks for the "
            "gateway's shared runtimes"
            if waiting
            else "no client's call is waiting on it"
        )
        return await self._ask_client(None, process, request, nobody)

    async def wait_idle(self) -> None:
        """Until no call is in flight."""
        await self._idle.wait()

    def cancel_calls(self) -> None:
        """Cancel every call in flight (each extension gets its ``cancel``)."""
        for scope in list(self._scopes):
            scope.cancel()
        self._input.cancel_all()


def _distinct(sessions: Any) -> list[Any]:
    """The sessions, each once, in order (sessions compare by identity)."""
    found: list[Any] = []
    for session in sessions:
        if not any(session is seen for seen in found):
            found.append(session)
    return found


def _session_of(ctx: ServerRequestContext[Any, Any]) -> str | None:
    """The request's ``Mcp-Session-Id`` (None: a 2026-07-28 request, which has none)."""
    headers = getattr(ctx.request, "headers", None)
    found = headers.get("mcp-session-id") if headers is not None else None
    return found[:64] if isinstance(found, str) else None


def _trace_id(meta: Any) -> str | None:
    """The trace the call belongs to: the client's (``_meta.traceparent``, SEP-414), else
    the gateway's own span's when it traces; None when neither."""
    parent = meta.get("traceparent") if isinstance(meta, dict) else None
    if not isinstance(parent, str):
        parent = telemetry.carrier().get("traceparent") if telemetry.tracing() else None
    found = _TRACEPARENT.fullmatch(parent) if isinstance(parent, str) else None
    return found[1] if found else None
