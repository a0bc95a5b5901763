"""Claude Code's remote MCP server entries (``.mcp.json``, ``mcpServers``): ``type`` ``http``
(streamable HTTP) or ``sse``, ``url``, ``headers`` (values may name ``${VAR}`` /
``${VAR:-default}``), ``oauth`` (``clientId``, ``callbackPort``, ``scopes``,
``authServerMetadataUrl``), ``headersHelper``. Read into the plugin host's remote shape
(``adapters.plugin_host._remote_spec``); ``ws`` is listed, never connected."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import urlsplit

from adapters._files import Inspection
from adapters.claude_plugins import _codes as codes
from adapters.claude_plugins._user_config import REFERENCE
from adapters.plugin_host import url_problem

__all__ = ["REMOTE_TYPES", "fill_url", "read_remote", "url_option_problem"]

REMOTE_TYPES: Final = ("http", "sse", "ws", "streamable-http")
_TRANSPORT: Final = {"http": "streamable-http", "streamable-http": "streamable-http", "sse": "sse"}


def read_remote(
    inspection: Inspection, where: str, server: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The server in the remote shape, or None (each problem already a diagnostic)."""
    kind = server.get("type", "http")
    if kind == "ws":
        inspection.add(codes.REMOTE_TRANSPORT_UNSUPPORTED(
            f"{where} is a WebSocket (ws) MCP server: listed, never connected; the plugin host "
            "speaks streamable HTTP and SSE"
        ))  # fmt: skip
        return None
    url, headers, oauth = server.get("url"), server.get("headers", {}), server.get("oauth")
    problem = None
    if kind not in _TRANSPORT:
        problem = f"`type` {kind!r} is not one of http, sse, ws"
    elif not isinstance(url, str) or not url:
        problem = "no `url`"
    elif not isinstance(headers, Mapping) or not all(isinstance(v, str) for v in headers.values()):
        problem = "`headers` is not an object of strings"
    else:
        problem = url_problem(url, headers)
    read_oauth, oauth_problem = _oauth(oauth)
    problem = problem or oauth_problem
    if problem is not None:
        inspection.add(codes.CLAUDE_MCP_INVALID(f"{where}: {problem}; skipped"))
        return None
    ignored = [f"`{key}`" for key in ("headersHelper",) if key in server]
    ignored += [f"`oauth.{key}`" for key in ("scopes", "authServerMetadataUrl")
                if isinstance(oauth, Mapping) and key in oauth]  # fmt: skip
    if ignored:
        inspection.add(codes.REMOTE_FIELD_IGNORED(
            f"{where}: {', '.join(ignored)} read, not applied"
        ))  # fmt: skip
    remote: dict[str, Any] = {"transport": _TRANSPORT[str(kind)], "url": url,
                              "headers": dict(headers)}  # fmt: skip
    if read_oauth:
        remote["oauth"] = read_oauth
    return remote


def _oauth(value: object) -> tuple[dict[str, Any], str | None]:
    if value is None:
        return {}, None
    if not isinstance(value, Mapping):
        return {}, "`oauth` is not an object"
    found: dict[str, Any] = {}
    client_id = value.get("clientId")
    if client_id is not None:
        if not isinstance(client_id, str) or not client_id:
            return {}, "`oauth.clientId` is not a non-empty string"
        found["client_id"] = client_id
    port = value.get("callbackPort")
    if port is not None:
        if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
            return {}, "`oauth.callbackPort` is not a port number"
        found["callback_port"] = port
    return found, None


def url_option_problem(url: str, options: Mapping[str, Mapping[str, Any]]) -> str | None:
    """Why ``${user_config.KEY}`` in a remote server's ``url`` cannot be filled (None: it
    names only declared, non-sensitive options, in the path or query)."""
    named = REFERENCE.findall(url)
    if not named:
        return None
    if REFERENCE.search(f"{urlsplit(url).scheme}://{urlsplit(url).netloc}"):
        return "names an option in its scheme, host or port (its host is its network grant)"
    unknown = sorted({key for key in named if key not in options})
    if unknown:
        return f"names {', '.join(unknown)}, not declared in userConfig"
    secret = sorted({key for key in named if options[key].get("sensitive")})
    if secret:
        return f"names the sensitive option {', '.join(secret)} (put a secret in a header)"
    return None


def fill_url(url: str, values: Mapping[str, str]) -> str:
    """``url`` with each ``${user_config.KEY}`` filled (an option without a value: empty,
    as Claude Code fills an optional blank one)."""
    return REFERENCE.sub(lambda match: values.get(match.group(1), ""), url)
