"""The plugin host's lean MCP client for stdio servers (``_stdio_link``: the process and
JSON-RPC over its pipes): the classic ``initialize`` handshake at protocol revision
2025-11-25 (a server may answer with an earlier revision the SDK also negotiates this
way), ``notifications/initialized``, then the requests the host makes — ``tools/call``
(with the request's ``_meta`` and, when progress is wanted, a ``progressToken``),
``resources/read``, ``prompts/get`` — and the listing (``_listing``).

A server that cannot do the classic handshake (it answers ``initialize`` with an error, or
with a revision this client does not speak) is refused (``handshake`` says why): the host then
connects to it with the MCP SDK's client (``_sdk_client``), which also speaks the
stateless revision 2026-07-28."""

from __future__ import annotations

from typing import Any

from adapters.plugin_host._listing import Listing, list_server
from adapters.plugin_host._shapes import (
    CallResult,
    InvalidResult,
    MCPError,
    Progress,
    PromptResult,
    ResourceResult,
    read_call_result,
    read_prompt_result,
    read_resource_result,
)
from adapters.plugin_host._stdio_link import Link

__all__ = ["HANDSHAKE_VERSIONS", "PROTOCOL_VERSION", "StdioSession"]

PROTOCOL_VERSION = "2025-11-25"
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""The revisions reached by the ``initialize`` handshake (the SDK's
``HANDSHAKE_PROTOCOL_VERSIONS``): an answer naming one of them is accepted."""
CLIENT_INFO = {"name": "extension-gateway-plugin-host", "version": "1"}


class StdioSession:
    """One connected stdio server, after ``handshake``."""

    def __init__(self, link: Link) -> None:
        self.link = link
        self.capabilities: dict[str, Any] = {}
        self.version = ""

    async def handshake(self) -> str | None:
        """None once the server is initialized; else why it refused the classic handshake
        (another client may succeed). ``MCPError`` when the server is gone."""
        params = {"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
                  "clientInfo": CLIENT_INFO}  # fmt: skip
        try:
            result = await self.link.request("initialize", params)
        except MCPError as error:
            if self.link.closed.is_set():
                raise  # the server is gone: no other client would do better
            return f"initialize answered {error.code}: {error.message[:200]}"
        if not isinstance(result, dict):
            return "initialize answered something that is not an object"
        version = result.get("protocolVersion")
        if version not in HANDSHAKE_VERSIONS:
            return f"the server answered protocol revision {repr(version)[:60]}"
        capabilities = result.get("capabilities")
        if not isinstance(capabilities, dict):
            raise InvalidResult("the initialize result's capabilities is not an object")
        self.version, self.capabilities = str(version), capabilities
        await self.link.notify("notifications/initialized")
        return None

    async def _page(self, method: str, cursor: str | None) -> Any:
        return await self.link.request(method, {"cursor": cursor} if cursor else {})

    async def listing(self) -> Listing:
        return await list_server(self._page, self.capabilities)

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        progress: Progress | None,
        meta: dict[str, Any] | None,
    ) -> CallResult:
        params: dict[str, Any] = {"name": name, "arguments": arguments}
        if meta:
            params["_meta"] = dict(meta)
        return read_call_result(await self.link.request("tools/call", params, progress))

    async def read_resource(self, uri: str, meta: dict[str, Any] | None) -> ResourceResult:
        params: dict[str, Any] = {"uri": uri, **({"_meta": dict(meta)} if meta else {})}
        return read_resource_result(await self.link.request("resources/read", params))

    async def get_prompt(
        self, name: str, arguments: dict[str, str], meta: dict[str, Any] | None
    ) -> PromptResult:
        params: dict[str, Any] = {"name": name, "arguments": arguments}
        if meta:
            params["_meta"] = dict(meta)
        return read_prompt_result(await self.link.request("prompts/get", params))
