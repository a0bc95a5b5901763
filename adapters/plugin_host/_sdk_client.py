"""The MCP SDK's client, for the servers the lean stdio client (``_stdio_client``) does
not reach: remote servers (``_remote``: streamable HTTP, SSE, OAuth) and a stdio server
that cannot do the classic handshake. It negotiates as the SDK's ``Client(mode="auto")``
does (``server/discover`` for 2026-07-28, else ``initialize``); its pydantic results are
dumped (``model_dump(by_alias=True, mode="json")``) and read by the same readers as the
lean client's (``_shapes``, ``_listing``). Importing this module imports the SDK (~0.8 s
of CPU): only a plugin host with such a server pays it."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, cast

from mcp import Client, ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError as SdkError

from adapters.plugin_host._config import ServerSpec
from adapters.plugin_host._listing import Listing, list_server
from adapters.plugin_host._shapes import (
    CallResult,
    MCPError,
    Progress,
    PromptResult,
    ResourceResult,
    read_call_result,
    read_prompt_result,
    read_resource_result,
)

__all__ = ["SdkSession", "connect", "stdio_transport"]


def _dump(model: Any) -> Any:
    return model.model_dump(by_alias=True, mode="json")


def stdio_transport(spec: ServerSpec) -> Any:
    # The host's own environment is already the gateway's allow-listed one; the
    # server's declared variables and PLUGIN_ROOT / PLUGIN_DATA go on top.
    env = {**os.environ, **spec.env}
    parameters = StdioServerParameters(command=spec.command, args=spec.args, env=env, cwd=spec.cwd)
    return stdio_client(parameters, errlog=sys.stderr)


class SdkSession:
    """A connected server through the SDK's session, answering in ``_shapes``' terms."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.session: ClientSession = client.session

    async def listing(self) -> Listing:
        session = self.session
        pages = {
            "tools/list": session.list_tools,
            "prompts/list": session.list_prompts,
            "resources/list": session.list_resources,
            "resources/templates/list": session.list_resource_templates,
        }

        async def fetch(method: str, cursor: str | None) -> Any:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            return _dump(await pages[method](params=params))

        return await list_server(fetch, _dump(self.client.server_capabilities))

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        progress: Progress | None,
        meta: dict[str, Any] | None,
    ) -> CallResult:
        try:
            result = await self.session.call_tool(
                name, arguments, progress_callback=cast(Any, progress), meta=_meta(meta)
            )
        except SdkError as error:
            raise MCPError(error.code, error.error.message) from error
        return read_call_result(_dump(result))

    async def read_resource(self, uri: str, meta: dict[str, Any] | None) -> ResourceResult:
        try:
            result = await self.session.read_resource(uri, meta=_meta(meta))
        except SdkError as error:
            raise MCPError(error.code, error.error.message) from error
        return read_resource_result(_dump(result))

    async def get_prompt(
        self, name: str, arguments: dict[str, str], meta: dict[str, Any] | None
    ) -> PromptResult:
        try:
            result = await self.session.get_prompt(name, arguments, meta=_meta(meta))
        except SdkError as error:
            raise MCPError(error.code, error.error.message) from error
        return read_prompt_result(_dump(result))


def _meta(meta: dict[str, Any] | None) -> types.RequestParamsMeta | None:
    return cast("types.RequestParamsMeta", meta) if meta else None


@asynccontextmanager
async def connect(transport: Any) -> AsyncIterator[SdkSession]:
    """The SDK's client over ``transport``, its revision negotiated (``mode="auto"``)."""
    async with Client(transport, mode="auto", cache=None) as client:
        yield SdkSession(client)
