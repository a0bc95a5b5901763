"""Whether a remote MCP server can be connected at all, asked before the MCP SDK's HTTP
client and ``httpx2`` are imported (~1 s of CPU, paid again at every load by a server that
cannot be connected: a failed start is never served from the registration cache), and
after what that client does before its first request (``_remote``'s ``RemoteLink.reach``:
a sign-in's bearer read, and refreshed when its time has come).

The question is asked on the path the SDK's client (``httpx2``, reading the proxy
variables as it does: ``trust_env``) would take: a resolve and a TCP connect straight to
the server, or — when the environment names a proxy for the URL, as a sandbox with network
grants by destination does (the gateway's egress proxy on the namespace's loopback, which
checks the grant and connects upstream) — a connect to that proxy and ``CONNECT
host:port``, as the client sends it; never around the proxy. A server that cannot be
connected fails its start here with the error the SDK's client would have raised, under
the name ``httpx2`` gives it (``ConnectError: All connection attempts failed``,
``ConnectError: [Errno -2] Name or service not known``, ``ProxyError: 502 Bad Gateway``,
``ProxyError: 403 Forbidden``), so its ``remote_mcp.unreachable`` diagnostic reads as
before. A connected one is closed at once and the SDK's client connects as it always did
(headers, OAuth unchanged).

What is not judged here is left to the SDK's client, as before: a proxy for a plain-HTTP
URL (it forwards the request, and what the client then says depends on the transport), a
proxy that is not plain HTTP or carries credentials, an IPv6 or non-ASCII host behind a
proxy, a ``NO_PROXY`` entry of a form not read here (a network, a port, a URL), and a
proxy that answers something other than an HTTP status line.
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

import anyio
from anyio.abc import SocketStream
from anyio.streams.buffered import BufferedByteReceiveStream

from gateway.base import GatewayError

__all__ = [
    "ConnectError",
    "ConnectTimeout",
    "ProxyError",
    "Route",
    "environment_proxies",
    "network_denied",
    "reach",
    "route",
]

CONNECT_SECONDS = 30.0
"""The SDK transports' connect timeout (``_remote_transport._TIMEOUT``; the SSE client's 30 s)."""
_DEFAULT_PORTS = {"http": 80, "https": 443}
_HEAD_LIMIT = 64 * 1024
_STATUS = re.compile(rb"^HTTP/1\.[01] ([0-9]{3})(?: ([^\r\n]*))?\r\n")
_NAME = re.compile(r"^[a-z0-9.*-]+$")


class ConnectError(GatewayError):
    """The server (or the proxy) could not be connected: ``httpx2.ConnectError``'s name and
    text, which the start's failure shows (``describe_error``)."""


class ConnectTimeout(GatewayError):
    """No connection within ``CONNECT_SECONDS``: ``httpx2.ConnectTimeout``."""


class ProxyError(GatewayError):
    """The proxy refused ``CONNECT`` (its status and reason): ``httpx2.ProxyError``."""


@dataclass(frozen=True, slots=True)
class Route:
    host: str
    port: int
    proxy: tuple[str, int] | None = None
    """The HTTP proxy asked for ``CONNECT host:port``; None: straight to the server."""


def network_denied() -> bool:
    """Whether this process's sandbox refuses it any network (no ``network`` grant)."""
    try:
        socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
    except PermissionError:
        return True
    except OSError:
        return False
    return False


def environment_proxies(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The proxies ``urllib.request.getproxies()`` reads (what ``httpx2`` uses), read here
    without importing ``urllib.request`` (~20 ms) where it reads only the environment (not
    macOS or Windows): every ``*_proxy`` variable, any case, the lower-case one winning;
    ``HTTP_PROXY`` not in a CGI request (``REQUEST_METHOD`` set)."""
    if env is None and sys.platform in ("darwin", "win32"):
        import urllib.request

        return urllib.request.getproxies()
    env = os.environ if env is None else env
    found: dict[str, str] = {}
    for name, value in env.items():
        if value and name.lower().endswith("_proxy"):
            found[name.lower()[:-6]] = value
    if "REQUEST_METHOD" in env:
        found.pop("http", None)
    for name, value in env.items():
        if name[-6:] == "_proxy":
            if value:
                found[name.lower()[:-6]] = value
            else:
                found.pop(name.lower()[:-6], None)
    return found


def _no_proxy_matches(host: str, listed: str) -> bool | None:
    """Whether ``NO_PROXY`` sends ``host`` straight (``httpx2``'s reading of it: ``*``; an
    address or ``localhost``, exactly; ``.name`` or ``*.name``, its subdomains; ``name``,
    it and its subdomains); None when an entry is of a form not read here."""
    matched = False
    for entry in (item.strip().lower() for item in listed.split(",")):
        if not entry:
            continue
        if entry == "*":
            return True
        if "/" in entry or "[" in entry or "%" in entry:
            return None  # a network, a URL, a bracketed address: left to the client
        try:
            address = ipaddress.ip_address(entry)
        except ValueError:
            address = None
        if address is not None or entry == "localhost":
            matched = matched or host == entry
            continue
        if not _NAME.match(entry) or "*" in entry.removeprefix("*."):
            return None  # a port, a star elsewhere: what the client may read otherwise
        if entry.startswith(("*.", ".")):
            matched = matched or host.endswith(entry.removeprefix("*"))
        else:
            matched = matched or host == entry or host.endswith("." + entry)
    return matched


def route(url: str, proxies: Mapping[str, str] | None = None) -> Route | None:
    """How the SDK's client would reach ``url`` given the proxy settings (``proxies``:
    ``urllib.request.getproxies()``'s reading of the environment, which ``httpx2`` uses:
    ``environment_proxies``);
    None when that is not judged here (the module's docstring)."""
    proxies = environment_proxies() if proxies is None else proxies
    parts = urlsplit(url)
    host, scheme = (parts.hostname or "").lower(), parts.scheme
    if not host or not host.isascii() or scheme not in _DEFAULT_PORTS:
        return None
    port = parts.port or _DEFAULT_PORTS[scheme]
    proxy = proxies.get(scheme) or proxies.get("all")
    if proxy:
        straight = _no_proxy_matches(host, proxies.get("no", ""))
        if straight is None:
            return None
        if straight:
            proxy = None
    if not proxy:
        return Route(host, port)
    if scheme != "https" or ":" in host:
        return None  # a plain-HTTP URL is forwarded, not tunnelled; an IPv6 target
    via = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
    if via.scheme != "http" or via.username is not None or not via.hostname:
        return None
    try:
        return Route(host, port, (via.hostname, via.port or 80))
    except ValueError:  # a proxy port that is not a number
        return None


async def _connect(host: str, port: int) -> SocketStream:
    """A TCP connection as ``httpcore2``'s anyio backend makes one (``anyio.connect_tcp``,
    within the connect timeout), its failures named as the client names them."""
    try:
        with anyio.fail_after(CONNECT_SECONDS):
            return await anyio.connect_tcp(host, port)
    except TimeoutError as error:
        raise ConnectTimeout(str(error)) from error
    except OSError as error:
        raise ConnectError(str(error)) from error


async def _tunnel(route: Route) -> None:
    """``CONNECT host:port`` through the proxy, as ``httpcore2`` asks it; a status outside
    2xx is the client's ``ProxyError``; an answer that is not a status line, the client's
    to judge."""
    assert route.proxy is not None
    target = f"{route.host}:{route.port}".encode("ascii")
    async with await _connect(*route.proxy) as stream:
        reader = BufferedByteReceiveStream(stream)
        try:
            await stream.send(b"CONNECT %s HTTP/1.1\r\nHost: %s\r\nAccept: */*\r\n\r\n"
                              % (target, target))  # fmt: skip
            head = await reader.receive_until(b"\r\n\r\n", _HEAD_LIMIT)
        except (anyio.EndOfStream, anyio.IncompleteRead, anyio.DelimiterNotFound,
                anyio.BrokenResourceError, OSError):  # fmt: skip
            return
        answered = _STATUS.match(head + b"\r\n")
        if answered is None:
            return
        status, reason = int(answered.group(1)), (answered.group(2) or b"")
        if not 200 <= status <= 299:
            raise ProxyError(f"{status} {reason.decode('ascii', 'ignore')}")


async def reach(url: str, proxies: Mapping[str, str] | None = None) -> None:
    """Connect to the server (or through its proxy) and close again; raise what the SDK's
    client would when it cannot be connected. Returns when connected or not judged here."""
    found = route(url, proxies)
    if found is None:
        return
    if found.proxy is not None:
        await _tunnel(found)
        return
    stream = await _connect(found.host, found.port)
    await stream.aclose()
