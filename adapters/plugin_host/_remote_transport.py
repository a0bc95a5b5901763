"""The MCP SDK's HTTP client transports for one remote server, with ``httpx2``: streamable
HTTP, or SSE where the entry declares it, with its headers and, when it has a sign-in, the
bearer of ``_oauth_client``'s ``TokenKeeper`` (``BearerAuth``). Imported once a server was
connected (``_reach``): the SDK's transports and ``httpx2`` cost ~0.9 s of CPU to import."""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2

from adapters.plugin_host._config import RemoteSpec
from adapters.plugin_host._oauth_client import TokenKeeper, origin

__all__ = ["BearerAuth", "streamable", "transport"]

_TIMEOUT = httpx2.Timeout(30.0, read=300.0)
"""The MCP SDK's transport defaults (its ``create_mcp_http_client``, a private module): 30 s
to connect, write and wait for the pool; 300 s to read, as a server may hold a response
stream open. Redirects stay off: the SDK's transport follows them within the origin."""


def transport(spec: RemoteSpec, headers: dict[str, str], keeper: TokenKeeper | None) -> Any:
    """The SDK transport (an async context of the two streams), SSE or streamable HTTP."""
    auth = BearerAuth(keeper, spec.url) if keeper is not None else None
    if spec.transport == "sse":
        from mcp.client.sse import sse_client

        return sse_client(spec.url, headers=headers, timeout=30.0, auth=auth)
    return streamable(spec.url, headers, auth)


@asynccontextmanager
async def streamable(
    url: str, headers: dict[str, str], auth: httpx2.Auth | None
) -> AsyncIterator[Any]:
    from mcp.client.streamable_http import streamable_http_client

    async with (
        httpx2.AsyncClient(headers=headers, auth=auth, timeout=_TIMEOUT) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        yield streams


class BearerAuth(httpx2.Auth):
    """The ``Authorization`` header of every request to the server (never to another
    origin), and one retry with a refreshed token after a 401."""

    def __init__(self, keeper: TokenKeeper, url: str) -> None:
        self.keeper = keeper
        self._origin = origin(url)

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        if origin(str(request.url)) != self._origin:
            yield request
            return
        token = await self.keeper.bearer()
        if token is not None:
            request.headers["Authorization"] = f"Bearer {token}"
        response = yield request
        if response.status_code == 401:
            retry = await self.keeper.rejected(token)
            if retry is not None:
                request.headers["Authorization"] = f"Bearer {retry}"
                response = yield request
        if response.status_code == 403:
            challenge = response.headers.get("WWW-Authenticate", "")
            if _param(challenge, "error") == "insufficient_scope":
                said = _param(challenge, "scope") or _param(challenge, "error_description")
                self.keeper.insufficient(said)


def _param(challenge: str, name: str) -> str | None:
    """A parameter of a ``Bearer`` challenge (RFC 6750 §3), quoted or not."""
    found = re.search(rf'(?:^|[\s,]){name}=(?:"([^"]*)"|([^\s,]+))', challenge)
    return (found.group(1) if found.group(1) is not None else found.group(2)) if found else None
