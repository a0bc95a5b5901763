"""Builders for the remote-server tests: a plugin whose ``mcp.json`` names a loopback server,
a person signing in to it (the adapter's own sign-in, with ``browse`` as the browser), and
the plugin host configured for it as ``_remote_plan`` plans it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio

from adapters.agent_plugins.adapter import AgentPluginsAdapter
from gateway.model import CatalogEntry, SignedIn, SignInPrompt
from gateway.packages.sign_ins import SignIn, read_sign_in, sign_in_folder
from tests.agent_plugins._helpers import host_config, write_plugin

from ._server import OAuthServer, browse

PACKAGE = "remote-demo"


def remote_plugin(tmp: Path, server: OAuthServer, **entry: Any) -> CatalogEntry:
    kind = "sse" if server.url.endswith("/sse") else "streamable-http"
    root = write_plugin(
        tmp / "src" / PACKAGE, servers={"calc": {"type": kind, "url": server.url, **entry}}
    )
    return AgentPluginsAdapter().inspect(root)


def sign_in(entry: CatalogEntry, home: Path, timeout: float = 30.0) -> SignedIn:
    from adapters.plugin_host.signing import sign_in as run

    return anyio.run(run, entry, home, "calc", SignInPrompt(show=browse, timeout=timeout))


def kept(home: Path) -> SignIn:
    record = read_sign_in(sign_in_folder(home, PACKAGE), "calc")
    assert record is not None and record.tokens is not None
    return record


def remote_host_config(
    tmp: Path,
    server: OAuthServer | str,
    home: Path | None = None,
    headers: dict[str, str] | None = None,
) -> Path:
    """The plugin host's configuration with the one remote server ``calc`` (a fixture
    server, or a URL), signed in under ``home`` when given."""
    url = server if isinstance(server, str) else server.url
    path = host_config(tmp / "host.json", tmp / "data", {}, package=PACKAGE)
    document = json.loads(path.read_text())
    kind = "sse" if url.endswith("/sse") else "streamable-http"
    document["remote"] = {"calc": {"transport": kind, "url": url, "headers": headers or {},
                                   "grant": "network:127.0.0.1:1"}}  # fmt: skip
    if home is not None:
        document["sign_ins"] = str(sign_in_folder(home, PACKAGE))
    path.write_text(json.dumps(document))
    return path
