"""What an adapter whose packages have remote MCP servers gives ``gateway auth``
(``gateway.model.SignsIn``): the servers, read from the catalog entry's ``remote_servers``
(``_remote_spec``'s shape), and a sign-in (``_sign_in``, loaded only when one runs: it
brings the MCP SDK's OAuth client)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adapters.plugin_host._remote_spec import network_grant
from gateway.model import CatalogEntry, RemoteServer, SignedIn, SignInPrompt

__all__ = ["remote_servers", "sign_in"]


def remote_servers(entry: CatalogEntry) -> list[RemoteServer]:
    servers: dict[str, Any] = entry.metadata.get("remote_servers") or {}
    return [
        RemoteServer(name, str(s["url"]), str(s["transport"]), network_grant(str(s["url"])))
        for name, s in servers.items()
    ]


async def sign_in(entry: CatalogEntry, home: Path, server: str, prompt: SignInPrompt) -> SignedIn:
    from adapters.plugin_host._sign_in import sign_in as run

    return await run(entry, home, server, prompt)
