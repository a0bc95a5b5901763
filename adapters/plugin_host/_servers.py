"""One MCP server: a stdio one started as a child of this process and spoken to by the
lean client (``_stdio_client``: no MCP SDK import), or — a remote one (``_remote``), or a
stdio one that cannot do the classic handshake — through the MCP SDK's client
(``_sdk_client``, which negotiates as the SDK's ``Client(mode="auto")`` does; a remote one
only once a connection to it was made without the SDK, ``_reach``); listed
(tools, prompts, resources, every page: ``_listing``), then held open until the host
stops. Each server lives in a task of its own, because a transport must be entered and
left in the same task; a server that fails, at start or later, fails alone."""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any

import anyio

from adapters.plugin_host import _codes as codes
from adapters.plugin_host._channel import describe_error, log
from adapters.plugin_host._config import RemoteSpec, ServerSpec
from adapters.plugin_host._listing import Listing
from adapters.plugin_host._naming import Namer
from adapters.plugin_host._shapes import Prompt, Resource, Session, Tool
from adapters.plugin_host._stderr_tail import StderrTail
from adapters.plugin_host._stdio_client import StdioSession
from adapters.plugin_host._stdio_link import open_link

TYPE_CHECKING = False
if TYPE_CHECKING:
    from adapters.plugin_host._remote import RemoteLink

__all__ = ["McpServer", "describe_error"]


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
        self.session: Session | None = None
        self.ready = anyio.Event()
        self.finished = anyio.Event()
        self.failure: str | None = None
        self.exited: str | None = None
        self.exit_reported = False
        self.listed = False
        self.tools: list[Tool] = []
        self.prompts: list[Prompt] = []
        self.resources: list[Resource] = []
        self.templates = 0
        self.problems: list[dict[str, Any]] = []
        """Diagnostics found before it was registered (the registry reports them)."""
        self.stderr: StderrTail | None = None
        """A stdio server's stderr, passed on to the log: its last line says why it ended."""
        self.report: Callable[[dict[str, Any]], None] = self.problems.append
        """Where a diagnostic found while running goes (the host's ``update``, once
        registered)."""
        if link is not None and link.keeper is not None:
            link.keeper.report = self._keeper_said

    @property
    def label(self) -> str:
        """What it is, for a person: its command, or its URL."""
        return self.spec.url if isinstance(self.spec, RemoteSpec) else self.spec.command

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
        # The deadline bounds the connection, the handshake and the listing; lifted once
        # listed (a transport's task group must be left inside the scope it entered).
        with anyio.CancelScope(deadline=anyio.current_time() + start_timeout) as start:
            try:
                if self.link is not None:
                    await self.link.reach()  # before the SDK's HTTP client is imported
                    await self._run_sdk(self.link.transport(), stop, start)
                else:
                    await self._run_stdio(stop, start)
            except anyio.get_cancelled_exc_class():
                raise
            except BaseException as error:
                command = getattr(self.spec, "command", None)  # a stdio server's
                self._failed(self._with_stderr(describe_error(error, command)))
        if start.cancelled_caught and not self.listed:
            self._failed(self._with_stderr(f"no MCP handshake within {start_timeout:g} s"))

    def _with_stderr(self, why: str) -> str:
        """``why``, and the last line a stdio server wrote on its stderr, if any."""
        said = self.stderr.last_line() if self.stderr is not None else None
        return why if said is None else f"{why}; it said: {said}"

    async def _run_stdio(self, stop: anyio.Event, start: anyio.CancelScope) -> None:
        spec = self.spec
        assert isinstance(spec, ServerSpec)
        # The host's own environment is already the gateway's allow-listed one; the
        # server's declared variables and PLUGIN_ROOT / PLUGIN_DATA go on top.
        env = {**os.environ, **spec.env}
        async with open_link(spec.name, spec.command, spec.args, env, spec.cwd) as link:
            self.stderr = link.stderr
            session = StdioSession(link)
            refused = await session.handshake()
            if refused is None:
                await self._serve(session, await session.listing(), stop, start, link.closed)
                return
        log(f"{spec.name}: no classic MCP handshake ({refused}); "
            "connecting again with the MCP SDK's client")  # fmt: skip
        from adapters.plugin_host._sdk_client import stdio_transport

        self.stderr = None  # the SDK's client starts it again, its stderr to ours
        await self._run_sdk(stdio_transport(spec), stop, start)

    async def _run_sdk(self, transport: Any, stop: anyio.Event, start: anyio.CancelScope) -> None:
        from adapters.plugin_host._sdk_client import connect

        async with connect(transport) as session:
            await self._serve(session, await session.listing(), stop, start, None)

    async def _serve(
        self,
        session: Session,
        listing: Listing,
        stop: anyio.Event,
        start: anyio.CancelScope,
        closed: anyio.Event | None,
    ) -> None:
        """Listed: ready for calls until the host stops or the server's output ends."""
        self.tools, self.prompts = listing.tools, listing.prompts
        self.resources, self.templates = listing.resources, listing.templates
        for problem in listing.problems:
            self.problems.append({"code": codes.AGENT_PLUGINS_ITEM_INVALID.code,
                                  "message": f"MCP server {self.spec.name!r}: {problem}",
                                  "contribution": self.spec.name})  # fmt: skip
        self.listed, start.deadline = True, math.inf
        self.session = session
        self.ready.set()
        log(f"{self.spec.name}: {len(self.tools)} tools, {len(self.prompts)} prompts")
        keeper = self.link.keeper if self.link is not None else None
        async with anyio.create_task_group() as group:
            if keeper is not None:
                group.start_soon(keeper.keep_fresh)
            if closed is not None:
                group.start_soon(_cancel_when, closed, group.cancel_scope)
            await stop.wait()
            group.cancel_scope.cancel()

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


async def _cancel_when(event: anyio.Event, scope: anyio.CancelScope) -> None:
    await event.wait()
    scope.cancel()
