"""``gateway serve --mcp``: the gateway's tools, commands and skills as an MCP server over
stdio, on the official MCP Python SDK's low-level ``Server``.

- ``tools/list`` is the registry's tools (plan mode filters); each ``tools/call`` goes
  through ``Gateway.call_tool`` (permission rules, every ecosystem's hooks); progress becomes
  ``notifications/progress`` for a ``progressToken``; a cancelled request sends ``cancel``.
- Commands and prompt templates are prompts, skills resources (``skill://NAME/SKILL.md``).
- A registry change is told: ``notifications/tools/list_changed`` (and prompts) on a
  handshake connection, the same events on a 2026-07-28 ``subscriptions/listen`` stream.
- A ``ui_request`` is an elicitation form if the client can answer one, else cancelled; a
  2026-07-28 client is asked through an ``input_required`` result of its call
  (``_input_required``).

The bridge serves before its gateway is open (``attach``): ``initialize`` at once, listings
wait for the registry (the registration cache), calls and commands for ``session_start``.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ToolsListChanged,
)
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from gateway.base import printable
from gateway.model import UnknownTool
from gateway.serve._codes import SERVE_TOOL_NAME
from gateway.serve._elicit import NO_BACK_CHANNEL, NO_ELICITATION, ask_client
from gateway.serve._input_required import (
    InputRequired,
    Progress,
    forward_progress,
    progress_channel,
)
from gateway.serve._mcp_content import (
    mcp_prompt,
    mcp_result,
    mcp_tool,
    read_skill_resource,
    served_templates,
    skill_resources,
    template_prompt,
)
from gateway.serve._mcp_names import mcp_name
from gateway.serve._prompts import prompt_result
from gateway.serve._report import answering
from gateway.serve._search_options import ToolSearchOptions
from gateway.serve._strict import Withholder
from gateway.serve._tool_search import DeferredTools
from gateway.wire import ExtensionProcess, UiAnswer, UiRequest

TYPE_CHECKING = False  # the host is imported while the server already answers
if TYPE_CHECKING:
    from collections.abc import Hashable

    from anyio import AsyncFile
    from mcp_types import InputRequiredResult

    from gateway.host import Gateway, ToolFilter

__all__ = ["McpBridge", "run_mcp_stdio"]


class McpBridge:
    """One MCP server in front of one gateway (given now, or ``attach``-ed once open)."""

    def __init__(
        self,
        gateway: Gateway | None = None,
        name: str = "extension-gateway",
        version: str = "",
        strict: bool = False,
        tool_search: ToolSearchOptions | None = None,
    ) -> None:
        self._withholder = Withholder(strict)
        self._deferred = DeferredTools(tool_search or ToolSearchOptions("off"))
        self._opened: Gateway | None = None
        self._ready = anyio.Event()
        """Set once the gateway is open: listings wait for it."""
        self._started = anyio.Event()
        """Set once ``session_start`` was dispatched: calls and commands wait for it."""
        self.listed = anyio.Event()
        """Set when the client first listed tools (``serve_mcp`` warms the runtimes then)."""
        self._session: ServerSession | None = None
        self._modern = False
        """A 2026-07-28 client has sent a request (it has no session to be asked through)."""
        self._input = InputRequired()
        """The handshake-era connection's session, for notifications outside a request."""
        self._bus = InMemorySubscriptionBus()
        self._changed = anyio.Event()
        self._announced: tuple[list[tuple[str, str, str]], list[tuple[str, str]]] = ([], [])
        self._warned_names: set[str] = set()
        self.server: Server[Any] = Server(
            name,
            version=version,
            instructions="Tools, slash commands (as prompts) and skills (as resources) of "
            "the extension packages behind this gateway." + self._deferred.options.instructions(),
            on_list_tools=self._list_tools,
            on_call_tool=self._on_call_tool,
            on_list_prompts=self._list_prompts,
            on_get_prompt=self._get_prompt,
            on_list_resources=self._list_resources,
            on_read_resource=self._read_resource,
            on_subscriptions_listen=ListenHandler(self._bus),
        )
        self.server.middleware.append(self._remember_session)
        if gateway is not None:
            self.attach(gateway)
            self.started()

    def attach(self, gateway: Gateway) -> None:
        """The gateway is open: listings are answered from its registry now."""
        self._opened = gateway
        self._announced = (self._tool_list(), self._prompt_list())
        gateway.registry.on_change = self._changed.set
        self._ready.set()

    def started(self) -> None:
        """``session_start`` was dispatched: calls and commands may run."""
        self._started.set()

    @property
    def _gateway(self) -> Gateway:
        assert self._opened is not None, "used before attach()"
        return self._opened

    async def _open(self, *, calls: bool = False) -> Gateway:
        """The gateway, once open (and, for ``calls``, once its session started)."""
        await self._ready.wait()
        if calls:
            await self._started.wait()
        return self._gateway

    # ------------------------------------------------------------------ running

    async def run(self, read: Any, write: Any) -> None:
        """Serve until the client closes the connection."""
        options = self.server.create_initialization_options(
            NotificationOptions(prompts_changed=True, tools_changed=True)
        )
        async with anyio.create_task_group() as group:
            group.start_soon(self.background)
            await self.server.run(read, write, options)
            group.cancel_scope.cancel()

    async def background(self) -> None:
        """What runs beside the server: list changes told, 2026-07-28 calls hosted."""
        async with anyio.create_task_group() as group:
            group.start_soon(self.announce_changes)
            group.start_soon(self._input.run)

    async def _remember_session(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            self._modern = True  # asked through its calls' results, never by a request
        elif self._session is None:
            self._session = ctx.session
        return await call_next(ctx)

    # ------------------------------------------------------------------ list changes

    def _tool_list(self) -> list[tuple[str, str, str]]:
        return [
            (t.name, t.description, json.dumps(t.input_schema, sort_keys=True))
            for t in self._gateway.tools()
        ]

    def _prompt_list(self) -> list[tuple[str, str]]:
        return [(c.name, c.description) for c in self._gateway.registry.commands()]

    async def announce_changes(self) -> None:
        """Tell the clients when what they listed changed; several registry changes in a row
        (a reload) make one notification each for tools and prompts."""
        await self._ready.wait()
        while True:
            await self._changed.wait()
            self._changed = anyio.Event()
            self._gateway.registry.on_change = self._changed.set
            tools, prompts = self._tool_list(), self._prompt_list()
            tools_changed = tools != self._announced[0]
            prompts_changed = prompts != self._announced[1]
            self._announced = (tools, prompts)
            if tools_changed:
                await self._bus.publish(ToolsListChanged())
                await self._tell(ServerSession.send_tool_list_changed)
            if prompts_changed:
                await self._bus.publish(PromptsListChanged())
                await self._tell(ServerSession.send_prompt_list_changed)

    async def _tell(self, send: Callable[[ServerSession], Awaitable[None]]) -> None:
        for session in self.notified():  # one gone or not reading keeps no other waiting
            with anyio.move_on_after(5), contextlib.suppress(Exception):
                await send(session)

    def notified(self) -> list[ServerSession]:
        """The handshake-era sessions told of list changes (stdio: the one connection)."""
        return [self._session] if self._session else []

    # ------------------------------------------------------------------ tools

    async def _list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        gateway = await self._open()
        self.listed.set()
        by_name = {tool.name: tool for tool in gateway.tools()}
        allowed = self._tool_filter(ctx)
        offered = self._deferred.visible(gateway, self._offered(gateway), allowed)
        shown = self._deferred.shown(gateway, allowed, self._session_key(ctx))
        tools = [] if shown is None else self._deferred.meta_tools(gateway, offered)
        # Tool search: the pinned and found tools, by name (not by which runtime came first).
        listed = offered.items() if shown is None else sorted(offered.items())
        for mcp, name in listed:
            tool = by_name[name]
            if shown is not None and name not in shown:
                continue
            text = self._said(gateway, "tool", name, tool.owner, tool.description)
            tools.append(mcp_tool(tool, mcp, text))
        return types.ListToolsResult(tools=tools)

    def _said(self, gateway: Gateway, kind: str, name: str, owner: str | None, text: str) -> str:
        return self._withholder.description(gateway.diagnostics, kind, name, owner, text)

    def _offered(self, gateway: Gateway) -> dict[str, str]:
        """The name each tool is offered under → its name in the registry: MCP's rule
        holds for every offered name (``mcp_name``), and a renamed or left-out tool is
        said once (``serve.tool_name``)."""
        offered: dict[str, str] = {}
        for tool in gateway.tools():
            name = mcp_name(tool.name)
            taken = offered.get(name)
            if taken is None:
                offered[name] = tool.name
            if name == tool.name or tool.name in self._warned_names:
                continue
            self._warned_names.add(tool.name)
            said = f"offered as {name!r}" if taken is None else f"left out: {name!r} is {taken!r}'s"
            gateway.diagnostics.add(
                SERVE_TOOL_NAME(
                    f"tool {printable(tool.name)!r} of {tool.owner} does not fit MCP's "
                    f"tool-name rule; {said}",
                    package=tool.owner,
                    contribution=tool.name,
                )
            )
        return offered

    def _tool_filter(self, ctx: ServerRequestContext[Any, Any]) -> ToolFilter | None:
        """Which tools this request's caller may see (None: every tool offered)."""
        return None

    def _session_key(self, ctx: ServerRequestContext[Any, Any]) -> Hashable | None:
        """Whose list the tools a search found join (stdio: the one client)."""
        return "stdio"

    async def _on_call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | InputRequiredResult:
        """A tool search meta-tool's call is answered (or made a call of its tool) first."""
        if self._deferred.may_answer(params.name):
            gateway = await self._open()
            answer = await self._deferred.call(
                gateway, ctx, params, self._offered(gateway), self._tool_filter(ctx),
                functools.partial(self._said, gateway, "tool"), self._session_key(ctx), self._bus,
            )  # fmt: skip
            if answer is not None:
                return answer
        return await self._call_tool(ctx, params)

    def _principal(self, ctx: ServerRequestContext[Any, Any]) -> Hashable | None:
        """Who may answer a 2026-07-28 call's question (stdio: its one client)."""
        return None

    async def _call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | InputRequiredResult:
        gateway = await self._open(calls=True)
        params.name = self._offered(gateway).get(params.name, params.name)
        tool = gateway.registry.tool(params.name)
        if tool is None or (gateway.plan and not tool.plan_safe):
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}")
        name, arguments = params.name, dict(params.arguments or {})

        async def run(progress: Progress | None) -> types.CallToolResult:
            try:
                with answering():
                    return mcp_result(await gateway.call_tool(name, arguments, progress=progress))
            except UnknownTool:
                raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {name}") from None

        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return await self._input.call(  # type: ignore[no-any-return]
                ctx, params, run, owner=tool.owner, principal=self._principal(ctx)
            )
        progress, receive, close = progress_channel()
        with receive:
            async with anyio.create_task_group() as group:
                group.start_soon(forward_progress, ctx, receive)
                try:
                    result = await run(progress)
                finally:
                    close()
        return result

    # ------------------------------------------------------------------ prompts

    async def _list_prompts(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        gateway = await self._open()
        commands = [
            mcp_prompt(c, self._said(gateway, "command", c.name, c.owner, c.description))
            for c in gateway.registry.commands()
        ]
        templates = [template_prompt(t) for t in served_templates(gateway)]
        return types.ListPromptsResult(prompts=[*commands, *templates])

    async def _get_prompt(
        self, ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult | InputRequiredResult:
        gateway = await self._open(calls=True)
        command = gateway.registry.command(params.name)

        async def run(progress: Progress | None) -> types.GetPromptResult:
            return await prompt_result(gateway, params)

        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            owner = command.owner if command is not None else None
            return await self._input.call(  # type: ignore[no-any-return]
                ctx, params, run, owner=owner, principal=self._principal(ctx)
            )
        return await run(None)

    # ------------------------------------------------------------------ resources

    async def _list_resources(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        gateway = await self._open()
        return skill_resources(gateway, functools.partial(self._said, gateway, "skill"))

    async def _read_resource(
        self, ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return await read_skill_resource(await self._open(), str(params.uri))

    # ------------------------------------------------------------------ questions

    async def ask(self, process: ExtensionProcess, request: UiRequest) -> UiAnswer:
        """An extension's ``ui_request``: through its 2026-07-28 call's result, or as an
        elicitation form when the client declared it can answer one; otherwise cancelled
        (``ui.unanswered``)."""
        diagnostics = None if self._opened is None else self._opened.diagnostics
        answer = await self._input.ask(process, request, diagnostics)
        if answer is not None:
            return answer
        if self._session is None and self._modern:
            return await ask_client(None, process, request, diagnostics, NO_BACK_CHANNEL)
        return await self._ask_client(self._session, process, request)

    async def _ask_client(
        self,
        session: ServerSession | None,
        process: ExtensionProcess,
        request: UiRequest,
        nobody: str = NO_ELICITATION,
    ) -> UiAnswer:
        """Ask ``session``'s client; ``nobody``: why no one was asked when it is None."""
        diagnostics = None if self._opened is None else self._opened.diagnostics
        return await ask_client(session, process, request, diagnostics, nobody)


async def run_mcp_stdio(
    bridge: McpBridge, stdin: AsyncFile[str] | None = None, stdout: AsyncFile[str] | None = None
) -> None:
    """Serve on this process's stdin and stdout, or on the text streams given, until the
    client goes — closing our stdout too (a broken pipe: nothing is left to tell it)."""
    try:
        async with stdio_server(stdin, stdout) as (read, write):
            await bridge.run(read, write)
    except* BrokenPipeError:
        pass
