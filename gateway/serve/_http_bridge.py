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
- every call is a line of the call log (``CallLog``): time, token, tool, outcome,
  duration; never its arguments.

An extension's question goes to the client whose call it is answering: the one client with
calls in flight to the asking package's tools, else the one client with any call in flight
(a hook asking during another package's tool). With several such clients, or none, no one
client can speak for the gateway's shared runtimes, and it is answered cancelled
(``ui.unanswered``). On shutdown ``cancel_calls`` ends the calls still in flight.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.shared.exceptions import MCPError

from gateway.base import private_dir, private_file
from gateway.host import ToolFilter
from gateway.serve._mcp import McpBridge
from gateway.serve._tokens import TokenRecord
from gateway.wire import ExtensionProcess, UiAnswer, UiRequest

__all__ = ["TOKEN_KEY", "CallLog", "HttpBridge"]

TOKEN_KEY = "extension-gateway.token"
"""Where the ASGI front puts the request's ``TokenRecord`` in its scope."""
TOO_MANY_CALLS = -32029
"""The MCP error code of a call refused because its token has too many in flight."""
_TOOL_NAME_LOGGED = 200


class CallLog:
    """``GATEWAY_HOME/logs/calls.jsonl``: one JSON line per tool call, appended with one
    write (O_APPEND), in a private file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def record(self, token: str, tool: str, outcome: str, duration_ms: float) -> None:
        line = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "token": token,
            "tool": tool[:_TOOL_NAME_LOGGED],
            "outcome": outcome,
            "duration_ms": round(duration_ms, 1),
        }
        try:
            if self._fd is None:
                private_dir(self.path.parent)
                self._fd = private_file(self.path, append=True)
            os.write(self._fd, (json.dumps(line, ensure_ascii=False) + "\n").encode())
        except OSError:
            pass  # a full disk must not fail the call; the log is best effort

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


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
        self, *, calls_log: CallLog, max_calls: int = 8, rate: int = 0, **options: Any
    ) -> None:
        super().__init__(**options)
        self.calls_log = calls_log
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

    @property
    def ready(self) -> bool:
        """The gateway is open and its registry loaded (``/readyz``)."""
        return self._ready.is_set()

    async def _remember_session(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        # No one client's session speaks for the server (questions, notifications).
        return await call_next(ctx)

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
    ) -> types.GetPromptResult:
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

    async def _call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        token, tool, started = token_of(ctx), params.name, time.monotonic()

        def log(outcome: str) -> None:
            self.calls_log.record(token.name, tool, outcome, (time.monotonic() - started) * 1e3)

        if token.packages:
            await self._open()
        owner = self._owner_of_tool(tool) if self._opened else None
        if token.packages and not token.allows(owner):
            log("refused")
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {tool}")
        if self.rate and not self._buckets.setdefault(token.name, _Bucket(self.rate)).take():
            log("limited")
            raise MCPError(
                TOO_MANY_CALLS,
                f"too many calls for token {token.name!r} (at most {self.rate} a minute)",
            )
        if self._in_flight[token.name] >= self.max_calls:
            log("limited")
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
        outcome = "failed"
        try:
            with scope:
                result = await super()._call_tool(ctx, params)
                outcome = "error" if result.is_error else "ok"
                return result
            outcome = "cancelled"
            raise MCPError(types.INTERNAL_ERROR, "the server is shutting down; call cancelled")
        except anyio.get_cancelled_exc_class():
            outcome = "cancelled"
            raise
        finally:
            log(outcome)
            self._callers.remove(caller)
            self._scopes.discard(scope)
            self._in_flight[token.name] -= 1
            if not +self._in_flight:
                self._idle.set()

    async def ask(self, process: ExtensionProcess, request: UiRequest) -> UiAnswer:
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


def _distinct(sessions: Any) -> list[Any]:
    """The sessions, each once, in order (sessions compare by identity)."""
    found: list[Any] = []
    for session in sessions:
        if not any(session is seen for seen in found):
            found.append(session)
    return found
