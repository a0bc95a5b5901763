"""How the egress proxy reaches a granted host: directly — resolving the name itself and
refusing an address a name must not stand for — or through the user's own proxy
(``_upstream``), with a CONNECT of its own for a tunnel.

A granted *name* that resolves to a loopback, link-local (cloud metadata at
169.254.169.254 among them), unspecified or multicast address is refused: a name the user
granted for a public API must not become a way to the machine's own services (DNS
rebinding). An address or ``localhost`` granted as such is the user's word and is let
through.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import anyio
from anyio.abc import ByteStream
from anyio.streams.buffered import BufferedByteReceiveStream

from gateway.base import GatewayError
from gateway.sandbox.egress._http import MAX_HEAD
from gateway.sandbox.egress._upstream import UpstreamConfig, UpstreamProxy

__all__ = ["Connection", "Refused", "Resolver", "Unreachable", "open_http", "open_tunnel"]

Resolver = Callable[[str, int], Awaitable[list[str]]]
"""Host and port to the addresses to try, in order."""

_CONNECT_TIMEOUT = 30.0


class Refused(GatewayError):
    """The destination is granted, but where it leads is not (answered 403)."""


class Unreachable(GatewayError):
    """The destination cannot be reached (answered 502)."""


@dataclass(slots=True)
class Connection:
    stream: ByteStream
    leftover: bytes = b""
    """Bytes the upstream already sent past its CONNECT answer."""
    via: UpstreamProxy | None = None


async def system_resolver(host: str, port: int) -> list[str]:
    found = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in found))


def _literal(host: str) -> bool:
    name = host.strip("[]").rstrip(".").lower()
    if name == "localhost":
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _inward(address: str) -> bool:
    """An address a public name must not stand for."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return True
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast


async def _direct(host: str, port: int, resolve: Resolver) -> ByteStream:
    try:
        with anyio.fail_after(_CONNECT_TIMEOUT):
            addresses = await resolve(host.strip("[]"), port)
    except (OSError, TimeoutError) as error:
        raise Unreachable(f"cannot resolve {host}: {error}") from None
    allowed = addresses if _literal(host) else [a for a in addresses if not _inward(a)]
    if not allowed:
        raise Refused(f"{host} resolves to {', '.join(addresses) or 'nothing'}, an address of "
                      "this machine or its link, not a granted host's")  # fmt: skip
    last: Exception | None = None
    for address in allowed:
        try:
            with anyio.fail_after(_CONNECT_TIMEOUT):
                return await anyio.connect_tcp(address, port)
        except (OSError, TimeoutError) as error:
            last = error
    raise Unreachable(f"cannot connect to {host}:{port}: {last}")


async def _to_proxy(proxy: UpstreamProxy) -> ByteStream:
    try:
        with anyio.fail_after(_CONNECT_TIMEOUT):
            if proxy.tls:
                return await anyio.connect_tcp(proxy.host, proxy.port, tls=True)
            return await anyio.connect_tcp(proxy.host, proxy.port)
    except (OSError, TimeoutError) as error:
        where = f"{proxy.host}:{proxy.port}"
        raise Unreachable(f"cannot reach the upstream proxy {where}: {error}") from None


async def _tunnel_through(proxy: UpstreamProxy, host: str, port: int) -> Connection:
    stream = await _to_proxy(proxy)
    authority = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    lines = [f"CONNECT {authority} HTTP/1.1", f"Host: {authority}"]
    if proxy.authorization:
        lines.append(f"Proxy-Authorization: {proxy.authorization}")
    try:
        await stream.send(("\r\n".join(lines) + "\r\n\r\n").encode("ascii"))
        reader = BufferedByteReceiveStream(stream)
        with anyio.fail_after(_CONNECT_TIMEOUT):
            head = await reader.receive_until(b"\r\n\r\n", MAX_HEAD)
    except (anyio.EndOfStream, anyio.IncompleteRead, anyio.DelimiterNotFound, OSError,
            TimeoutError, anyio.BrokenResourceError) as error:  # fmt: skip
        await stream.aclose()
        raise Unreachable(f"the upstream proxy did not answer the tunnel: {error!r}") from None
    status = head.split(b"\r\n", 1)[0].split(b" ")
    if len(status) < 2 or not status[1].startswith(b"2"):
        await stream.aclose()
        answer = head.split(b"\r\n", 1)[0].decode("latin-1")[:120]
        raise Unreachable(f"the upstream proxy refused the tunnel to {authority}: {answer}")
    return Connection(stream, bytes(reader.buffer), proxy)


async def open_tunnel(
    host: str, port: int, upstream: UpstreamConfig, resolve: Resolver
) -> Connection:
    """A byte stream to ``host:port`` for a CONNECT: through the user's proxy when one
    applies, else directly. Raises ``Refused`` or ``Unreachable``."""
    proxy = upstream.for_tunnel(host)
    if proxy is not None:
        return await _tunnel_through(proxy, host, port)
    return Connection(await _direct(host, port, resolve))


async def open_http(
    host: str, port: int, upstream: UpstreamConfig, resolve: Resolver
) -> Connection:
    """A byte stream for one plain HTTP request to ``host:port``: to the user's HTTP proxy
    when one applies (``via`` says so: the request keeps its absolute form), else to the
    host. Raises ``Refused`` or ``Unreachable``."""
    proxy = upstream.for_http(host)
    if proxy is not None:
        return Connection(await _to_proxy(proxy), via=proxy)
    return Connection(await _direct(host, port, resolve))
