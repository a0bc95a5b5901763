"""One MCP server: a stdio one started with the official SDK's client as a child of this
process, or a remote one connected (``_remote``); its protocol revision negotiated as the
SDK's ``Client`` does (``server/discover`` for 2026-07-28, else the ``initialize``
handshake), listed (tools, prompts, resources, every page), then held open until the host
stops. Each server lives in a task of its own, because the SDK's transport must be entered
and left in the same task; a server that fails, at start or later, fails alone."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from mcp import Client, ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client

from adapters.plugin_host._channel import describe_error, log
from adapters.plugin_host._config import RemoteSpec, ServerSpec
from adapters.plugin_host._naming import Namer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from adapters.plugin_host._remote import RemoteLink

__all__ = ["McpServer", "describe_error"]


async def _pages(list_page: Callable[..., Awaitable[Any]], attribute: str) -> list[Any]:
    items: list[Any] = []
    cursor: str | None = None
    for _ in range(1000):  # a server that pages forever is cut off
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        result = await list_page(params=params)
        items += getattr(result, attribute)
        cursor = result.next_cursor
        if not cursor:
            break
    return items


class McpServer:
    """A server's state: ``ready`` is set once it is listed or has failed (``failure``)."""

    def __init__(
        self, spec: ServerSpec | RemoteSpec, names: Namer, link: RemoteLink | None = None
    ) -> None:
        self.spec = spec
        self.names = names
        """The gateway name of one of its items (``_naming``)."""
        self.link = link
        """How a remote server is reached (None: a stdio server)."""
        self.session: ClientSession | None = None
        self.ready = anyio.Event()
        self.finished = anyio.Event()
        self.failure: str | None = None
        self.exited: str | None = None
        self.exit_reported = False
        self.tools: list[types.Tool] = []
        self.prompts: list[types.Prompt] = []
        self.resources: list[types.Resource] = []
        self.templates = 0
        self.problems: list[dict[str, Any]] = []
        """Diagnostics found before it was registered (the registry reports them)."""
        self.report: Callable[[dict[str, Any]], None] = self.problems.append
        """Where a diagnostic found while running goes (the host's ``update``, once
        registered)."""
        if link is not None and link.keeper is not None:
            link.keeper.report = self._keeper_said

    @property
    def label(self) -> str:
        """What it is, for a person: its command, or its URL."""
        return self.spec.url if isinstance(self.spec, RemoteSpec) else self.spec.command

    def parameters(self) -> StdioServerParameters:
        assert isinstance(self.spec, ServerSpec)
        # The host's own environment is already the gateway's allow-listed one; the
        # server's declared variables and PLUGIN_ROOT / PLUGIN_DATA go on top.
        env = {**os.environ, **self.spec.env}
        return StdioServerParameters(
            command=self.spec.command, args=self.spec.args, env=env, cwd=self.spec.cwd
        )

    def _transport(self) -> Any:
        if self.link is not None:
            return self.link.transport()
        return stdio_client(self.parameters(), errlog=sys.stderr)

    def _keeper_said(self, code: str, message: str) -> None:
        log(f"{self.spec.name}: {code}: {message}")
        if self.link is not None and self.link.needs_sign_in is not None:
            message = f"{message}; run `gateway auth {self.link.package}`"
        self.report({"code": code, "message": message, "contribution": self.spec.name})

    async def run(self, stop: anyio.Event, start_timeout: float) -> None:
        try:
            await self._run(stop, start_timeout)
        finally:
            self.session = None
            self.ready.set()
            self.finished.set()

    async def _run(self, stop: anyio.Event, start_timeout: float) -> None:
        problem = self.link.problem() if self.link is not None else None
        if problem is not None:
            self._failed(problem[1], problem[0])
            return
        listed = False
        # The deadline bounds the connection, the handshake and the listing; lifted once
        # listed (the transport's task group must be left inside the scope it entered).
        with anyio.CancelScope(deadline=anyio.current_time() + start_timeout) as start:
            try:
                async with Client(self._transport(), mode="auto", cache=None) as client:
                    await self._list(client)
                    listed, start.deadline = True, math.inf
                    self.session = client.session
                    self.ready.set()
                    log(f"{self.spec.name}: {len(self.tools)} tools, {len(self.prompts)} prompts")
                    keeper = self.link.keeper if self.link is not None else None
                    async with anyio.create_task_group() as group:
                        if keeper is not None:
                            group.start_soon(keeper.keep_fresh)
                        await stop.wait()
                        group.cancel_scope.cancel()
            except anyio.get_cancelled_exc_class():
                raise
            except BaseException as error:
                self._failed(describe_error(error))
        if start.cancelled_caught and not listed:
            self._failed(f"no MCP handshake within {start_timeout:g} s")

    def mark_exited(self, problem: str) -> bool:
        """A call found the server gone; True the first time (to report it once)."""
        if self.exited is None:
            self.exited = problem
        self.session = None
        if self.exit_reported:
            return False
        self.exit_reported = True
        return True

    def _failed(self, problem: str, code: str | None = None) -> None:
        if self.ready.is_set():
            self.exited = problem
            log(f"{self.spec.name}: exited: {problem}")
            return
        self.failure = problem
        log(f"{self.spec.name}: failed to start: {problem}")
        if self.link is not None:
            if code is None and self.link.needs_sign_in is not None:
                return  # the sign-in's keeper said why already (``_keeper_said``)
            code, message = (code, problem) if code else self.link.failure(problem)
            self.problems.append({"code": code, "message": message,
                                  "contribution": self.spec.name})  # fmt: skip

    async def _list(self, client: Client) -> None:
        session = client.session
        capabilities = client.server_capabilities
        if capabilities.tools is not None:
            self.tools = await _pages(session.list_tools, "tools")
        if capabilities.prompts is not None:
            self.prompts = await _pages(session.list_prompts, "prompts")
        if capabilities.resources is not None:
            self.resources = await _pages(session.list_resources, "resources")
            try:
                self.templates = len(
                    await _pages(session.list_resource_templates, "resource_templates")
                )
            except Exception:
                self.templates = 0
