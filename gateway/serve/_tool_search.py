"""Tool search for ``gateway serve --mcp`` (stdio and HTTP): when a caller may use more tools
than a model should be handed at once, ``tools/list`` holds only the pinned tools and two
meta-tools, and the rest is found on demand (docs/serve.md).

- ``search_tools {query, limit?}``: the best matches among the tools this caller may use
  (the token's packages over HTTP, plan mode, adopted policies: ``Gateway.tool_search``),
  each with its name, description and ``inputSchema``, as JSON text and as
  ``structuredContent``. The tools found join this session's ``tools/list`` and the client
  is told (``notifications/tools/list_changed`` on the search's own stream; on a 2026-07-28
  stdio connection, on its ``subscriptions/listen`` streams).
- ``call_tool {name, arguments?}``: the call goes on as a ``tools/call`` of that tool —
  the same scope check, limits, call log, hooks and policy as a direct call.

A real tool keeps its name: a meta-tool whose name a tool this caller sees already has is
offered as ``gateway_search_tools`` / ``gateway_call_tool`` (``serve.meta_tool_renamed``).
Mode ``auto`` turns search on for a caller that may use more than ``threshold`` tools; ``on``
always; ``off`` never (the meta-tools are then unknown tools).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, Final

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import InMemorySubscriptionBus, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from gateway.serve._codes import SERVE_META_TOOL_RENAMED
from gateway.serve._search_options import CALL_TOOL, SEARCH_TOOLS, ToolSearchOptions

if TYPE_CHECKING:  # the host is imported while the server already answers
    from gateway.host import Gateway, ToolFilter

__all__ = ["DeferredTools", "listed_tools"]

_SESSIONS_KEPT = 512
"""Sessions whose found tools are remembered (the oldest forgotten first)."""
Describe = Callable[[str, str, str], str]
"""(tool name, owner, description) → the description offered (``--strict`` withholds)."""


class DeferredTools:
    """Tool search for one server and all its clients: which tools each listing holds,
    what each session found, and the meta-tools' calls."""

    def __init__(self, options: ToolSearchOptions) -> None:
        self.options = options
        self._found: OrderedDict[Hashable, set[str]] = OrderedDict()
        self._renamed_said = False
        self._ranking_loaded = False

    def shown(
        self, gateway: Gateway, allowed: ToolFilter | None, session: Hashable | None
    ) -> set[str] | None:
        """The registry names this caller's ``tools/list`` holds in search mode (besides the
        meta-tools); None: search is not on for it, the whole list is shown."""
        if self.options.mode == "off":
            return None
        usable = gateway.tool_search.usable(allowed)
        if self.options.mode == "auto" and len(usable) <= self.options.threshold:
            return None
        kept = gateway.tool_search.pinned(self.options.pins)
        if session is not None:
            kept |= self._found.get(session, set())
        return {tool.name for tool in usable if tool.name in kept}

    def meta_tools(self, gateway: Gateway, offered: dict[str, str]) -> list[types.Tool]:
        """The two meta-tools, named beside the tools this caller is offered."""
        from gateway.host import meta_schemas

        search, call = self._names(gateway, offered)
        tools = []
        for schema in meta_schemas(search, call):
            is_search = schema["name"] == search
            tools.append(
                types.Tool(
                    name=schema["name"],
                    description=schema["description"],
                    input_schema=schema["input_schema"],
                    output_schema=_FOUND_SCHEMA if is_search else None,
                    annotations=types.ToolAnnotations(read_only_hint=is_search),
                )
            )
        return tools

    def _names(self, gateway: Gateway, offered: dict[str, str]) -> tuple[str, str]:
        from gateway.host import meta_names

        search, call = meta_names(offered)
        if (search, call) != (SEARCH_TOOLS, CALL_TOOL) and not self._renamed_said:
            self._renamed_said = True
            gateway.diagnostics.add(
                SERVE_META_TOOL_RENAMED(
                    f"a tool is called search_tools or call_tool: the meta-tools are offered "
                    f"as {search} and {call}"
                )
            )
        return search, call

    def may_answer(self, name: str) -> bool:
        """Whether a call of ``name`` may be a meta-tool's (a cheap first look)."""
        return self.options.mode != "off" and (
            name in (SEARCH_TOOLS, CALL_TOOL) or name.startswith("gateway_")
        )

    def visible(
        self, gateway: Gateway, offered: dict[str, str], allowed: ToolFilter | None
    ) -> dict[str, str]:
        """The offered names (→ registry names) of the tools this caller may see."""
        if allowed is None:
            return offered
        registry = gateway.registry
        return {
            mcp: name
            for mcp, name in offered.items()
            if (tool := registry.tool(name)) is not None and allowed(tool)
        }

    async def call(
        self,
        gateway: Gateway,
        ctx: ServerRequestContext[Any, Any],
        params: types.CallToolRequestParams,
        offered: dict[str, str],
        allowed: ToolFilter | None,
        describe: Describe,
        session: Hashable | None,
        bus: InMemorySubscriptionBus,
    ) -> types.CallToolResult | None:
        """A meta-tool's call: ``search_tools`` is answered here; ``call_tool`` is rewritten
        in ``params`` as a call of the tool it names, and None returned (go on with it, as
        with any call that is no meta-tool's). ``offered``: every offered name → registry
        name; ``allowed``: what this caller may see of them."""
        offered = self.visible(gateway, offered, allowed)
        if params.name in offered:
            return None
        search, call = self._names(gateway, offered)
        arguments = dict(params.arguments or {})
        if params.name == call:
            target, given = arguments.get("name"), arguments.get("arguments", {})
            if not isinstance(target, str) or not isinstance(given, dict):
                raise MCPError(types.INVALID_PARAMS, f"{call} takes a tool name and arguments")
            params.name, params.arguments = target, given
            return None
        if params.name != search:
            return None
        query, limit = arguments.get("query"), arguments.get("limit", 5)
        if not isinstance(query, str) or not isinstance(limit, int) or limit < 1:
            raise MCPError(types.INVALID_PARAMS, f"{search} takes a query and a limit >= 1")
        if not self._ranking_loaded:
            from gateway.model import load_ranking

            # The first search imports bm25s and numpy: off the event loop.
            await anyio.to_thread.run_sync(load_ranking)
            self._ranking_loaded = True
        names = {name: mcp for mcp, name in offered.items()}
        listed, found = [], set()
        for match in gateway.tool_search.search(query, limit, allowed):
            tool = match.tool
            if tool.name not in names:
                continue  # its name was left out of MCP's (serve.tool_name)
            found.add(tool.name)
            listed.append(
                {
                    "name": names[tool.name],
                    "description": describe(tool.name, tool.owner, tool.description),
                    "inputSchema": {"type": "object", **tool.input_schema},
                }
            )
        if session is not None and found:
            before = self._found.setdefault(session, set())
            self._found.move_to_end(session)
            while len(self._found) > _SESSIONS_KEPT:
                self._found.popitem(last=False)
            if not found <= before:
                before |= found
                await _tell_list_changed(ctx, bus)
        text = json.dumps({"tools": listed}, ensure_ascii=False)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content={"tools": listed},
        )


def listed_tools(
    gateway: Gateway, deferred: bool, pins: tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    """The ``tools/list`` a client of ``serve --mcp`` gets (as JSON objects): every tool, or
    with ``deferred`` the meta-tools and the pinned tools (the size ``list --tokens``
    reports). Names are those offered; descriptions as they are (``--strict`` aside)."""
    from gateway.serve._mcp_content import mcp_tool
    from gateway.serve._mcp_names import mcp_name

    tools = gateway.tool_search.usable() if deferred else gateway.tools()
    offered = {mcp_name(tool.name): tool for tool in reversed(tools)}  # the first one wins
    kept = [t for t in tools if offered.get(mcp_name(t.name)) is t]
    listed: list[types.Tool] = []
    if deferred:
        pinned = gateway.tool_search.pinned(pins)
        names = {mcp_name(t.name): t.name for t in kept}
        listed = DeferredTools(ToolSearchOptions("on")).meta_tools(gateway, names)
        kept = sorted((t for t in kept if t.name in pinned), key=lambda t: mcp_name(t.name))
    listed += [mcp_tool(tool, mcp_name(tool.name)) for tool in kept]
    return [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in listed]


async def _tell_list_changed(
    ctx: ServerRequestContext[Any, Any], bus: InMemorySubscriptionBus
) -> None:
    """``notifications/tools/list_changed`` on the search's own stream (over HTTP, the
    response stream of that request); a 2026-07-28 connection hears it on its
    ``subscriptions/listen`` streams."""
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        await bus.publish(ToolsListChanged())
    else:
        await ctx.session.send_notification(
            types.ToolListChangedNotification(), related_request_id=ctx.request_id
        )


_FOUND_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "tools": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "description": {"type": "string"},
                    "inputSchema": {"type": "object"},
                },
                "required": ["name", "description", "inputSchema"],
            },
        }
    },
    "required": ["tools"],
}
