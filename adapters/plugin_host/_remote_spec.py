"""A remote MCP server as the adapters read it (Agent Plugins' ``streamable-http`` / ``sse``
entries, Claude Code's ``.mcp.json`` ``url`` entries) and the plugin host connects to it:
one shape for both, kept in the catalog entry's metadata (``remote_servers``) and described
by its ``mcp_server`` contribution (what ``gateway auth`` signs in to).

``{"transport": "streamable-http" | "sse", "url": …, "headers": {name: value},
"oauth": {"client_id", "callback_port", "scopes", "auth_server_metadata_url"}}``

Header values may name variables, ``${NAME}`` or ``${NAME:-default}`` (Claude Code's
syntax): the plugin host fills them from the package's secrets (``gateway secret set ID
NAME``) or a variable granted with ``env:NAME``; the names become the entry's ``secrets``.
The server's host and port are the package's **network grant**, ``network:HOST:PORT``
(``network_grant``): an optional permission, so the rest of the package runs without it and
only that server waits for it.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import urlsplit

from gateway.model import Contribution, Permission

__all__ = [
    "TRANSPORTS",
    "VARIABLE",
    "header_variables",
    "is_loopback",
    "network_grant",
    "remote_contribution",
    "remote_permissions",
    "remote_secrets",
    "url_problem",
]

TRANSPORTS: Final = ("streamable-http", "sse")
VARIABLE: Final = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_HEADER_VALUE = re.compile(r"^[\t\x20-\x7e\x80-\U0010ffff]*$")
_DEFAULT_PORTS: Final = {"http": 80, "https": 443}


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_problem(url: str, headers: Mapping[str, str]) -> str | None:
    """Agent Plugins §7.2.1, for every remote entry: an absolute http(s) URL, HTTPS unless
    the host is loopback (tokens never cross a network in clear), without user information
    or a fragment; valid header fields, no name twice in any casing."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        has_user = parts.username is not None or parts.password is not None
        parts.port  # noqa: B018 - raises for a port that is not a number
    except ValueError as error:
        return f"url {url!r} does not parse: {error}"
    if parts.scheme not in ("http", "https") or not host:
        return f"url {url!r} is not an absolute HTTP or HTTPS URL"
    if parts.scheme == "http" and not is_loopback(host):
        return f"url {url!r}: plain HTTP is allowed only to a loopback host"
    if has_user:
        return f"url {url!r} carries user information"
    if parts.fragment or "#" in url:
        return f"url {url!r} has a fragment"
    seen: set[str] = set()
    for name, value in headers.items():
        if not _HEADER_NAME.match(name) or not _HEADER_VALUE.match(value):
            return f"header {name!r} is not a valid HTTP header field"
        if name.lower() in seen:
            return f"header {name!r} appears twice (names are case-insensitive)"
        seen.add(name.lower())
    return None


def network_grant(url: str) -> str:
    """``network:HOST:PORT`` for a URL ``url_problem`` accepted (the scheme's port when the
    URL names none; an IPv6 host in brackets)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or _DEFAULT_PORTS.get(parts.scheme, 443)
    shown = f"[{host}]" if ":" in host else host
    return f"network:{shown}:{port}"


def header_variables(headers: Mapping[str, str]) -> list[str]:
    """The variables header values name, in order, each once."""
    names: list[str] = []
    for value in headers.values():
        for match in VARIABLE.finditer(value):
            if match.group(1) not in names:
                names.append(match.group(1))
    return names


def remote_contribution(name: str, remote: Mapping[str, Any], path: str) -> Contribution:
    transport = str(remote["transport"])
    detail: dict[str, Any] = {
        "transport": transport,
        "url": remote["url"],
        "host": urlsplit(str(remote["url"])).hostname or "?",
        "grant": network_grant(str(remote["url"])),
        "path": path,
    }
    headers = remote.get("headers") or {}
    if headers:
        detail["headers"] = sorted(headers)  # the names only: a value may be a key
    if remote.get("oauth"):
        detail["oauth"] = dict(remote["oauth"])
    return Contribution(
        kind="mcp_server",
        name=name,
        description=f"{transport} MCP server at {detail['host']}",
        detail=detail,
    )


def remote_permissions(remotes: Mapping[str, Mapping[str, Any]]) -> list[Permission]:
    """One optional ``network:HOST:PORT`` permission per destination the servers need."""
    found: dict[str, Permission] = {}
    for name, remote in remotes.items():
        grant = network_grant(str(remote["url"]))
        if grant not in found:
            reason = f"connects to the remote MCP server {name!r} ({remote['url']})"
            found[grant] = Permission(grant, reason=reason, optional=True)
    return list(found.values())


def remote_secrets(remotes: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The variables the servers' headers name: the package's secrets."""
    names: list[str] = []
    for remote in remotes.values():
        names += [n for n in header_variables(remote.get("headers") or {}) if n not in names]
    return names
