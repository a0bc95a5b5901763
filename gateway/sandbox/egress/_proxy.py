"""One client connection to the egress proxy: what it asks for, checked against the
package's grants, then relayed.

- ``CONNECT host:port`` (HTTPS, and anything a client tunnels): the target must be
  granted; then the first bytes the client sends through the tunnel are read before any of
  them go on — a TLS ClientHello's server name (SNI) must be granted too (a CONNECT to a
  granted host of a CDN must not carry a handshake for another of its hosts), a plain HTTP
  request's ``Host`` likewise; other protocols go on as they are.
- an absolute-form request (``GET http://host/path``): its host (and its ``Host`` header,
  which must name the same) must be granted; it goes on in origin form with
  ``Connection: close``, so a second request cannot ride the connection to another host.

What it cannot see is said in docs/security.md: inside an allowed TLS connection, a
request for another name the server also answers to.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream, ByteStream
from anyio.streams.buffered import BufferedByteReceiveStream

from gateway.sandbox import Destination, normal_host
from gateway.sandbox.egress._connect import (
    Connection,
    Refused,
    Resolver,
    Unreachable,
    open_http,
    open_tunnel,
)
from gateway.sandbox.egress._http import (
    MAX_HEAD,
    HeadError,
    RequestHead,
    absolute_target,
    looks_like_http,
    parse_head,
    split_authority,
)
from gateway.sandbox.egress._sni import HelloState, read_client_hello
from gateway.sandbox.egress._upstream import UpstreamConfig

__all__ = ["Denial", "Grant", "handle_client"]

_HEAD_TIMEOUT = 30.0
_CHUNK = 64 * 1024
_GONE = (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError)
_RECEIVE_ERRORS = (anyio.EndOfStream, anyio.IncompleteRead, anyio.DelimiterNotFound, *_GONE,
                   TimeoutError)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Grant:
    """Whose connections these are, and where they may go."""

    label: str
    destinations: tuple[Destination, ...]

    def allows(self, host: str, port: int) -> bool:
        return any(d.allows(host, port) for d in self.destinations)


@dataclass(frozen=True, slots=True)
class Denial:
    label: str
    host: str
    port: int
    reason: str


Deny = Callable[[Denial], None]


async def _answer(client: ByteSendStream, status: str, text: str) -> None:
    body = (text + "\n").encode("utf-8", "replace")
    head = (f"HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n")  # fmt: skip
    with contextlib.suppress(*_GONE):
        await client.send(head.encode("latin-1") + body)


async def _pump(source: ByteReceiveStream, sink: ByteStream) -> None:
    try:
        async for chunk in source:
            await sink.send(chunk)
    except _GONE:
        pass
    finally:
        with contextlib.suppress(*_GONE):
            await sink.send_eof()


async def _relay(client: ByteStream, reader: ByteReceiveStream, upstream: Connection) -> None:
    """Both directions until each ends; what either side sent first is sent first."""
    if upstream.leftover:
        await client.send(upstream.leftover)
    async with anyio.create_task_group() as group:
        group.start_soon(_pump, reader, upstream.stream)
        group.start_soon(_pump, upstream.stream, client)


async def _first_bytes(reader: BufferedByteReceiveStream) -> bytes:
    """What the client sends first through a tunnel, read until it can be judged: a whole
    ClientHello, a whole request head, or one chunk of anything else."""
    data = b""
    with anyio.fail_after(_HEAD_TIMEOUT):
        while True:
            data += await reader.receive(_CHUNK)
            hello = read_client_hello(data)
            if hello.state is HelloState.INCOMPLETE and len(data) < 4 * _CHUNK:
                continue
            if looks_like_http(data) and b"\r\n\r\n" not in data and len(data) < MAX_HEAD:
                continue
            return data


def _inner_host(data: bytes) -> tuple[str | None, str]:
    """(the host the first bytes of a tunnel name, what named it): None when they name
    none (another protocol, a ClientHello without a server name), "" when they are TLS or
    HTTP that cannot be read."""
    hello = read_client_hello(data)
    if hello.state is HelloState.COMPLETE:
        return hello.server_name, "its TLS server name"
    if hello.state in (HelloState.MALFORMED, HelloState.INCOMPLETE):
        return "", "a TLS handshake it could not read"
    if looks_like_http(data):
        try:
            head = parse_head(data[: data.index(b"\r\n\r\n") + 4])
        except (HeadError, ValueError):
            return "", "an HTTP request it could not read"
        host = head.header("host")
        return (split_authority(host, 80)[0] if host else ""), "its HTTP Host header"
    return None, ""


async def _tunnel(client: ByteStream, reader: BufferedByteReceiveStream, head: RequestHead,
                  grant: Grant, deny: Deny, upstream: UpstreamConfig,
                  resolve: Resolver) -> None:  # fmt: skip
    host, port = split_authority(head.target, None)
    if not grant.allows(host, port):
        return await _refuse(client, grant, deny, host, port, "not among its network grants")
    connection = await _open(client, grant, deny, host, port, open_tunnel, upstream, resolve)
    if connection is None:
        return
    async with connection.stream:
        await client.send(b"HTTP/1.1 200 Connection established\r\n\r\n")
        try:
            first = await _first_bytes(reader)
        except _RECEIVE_ERRORS:
            return
        inner, what = _inner_host(first)
        if inner is not None and not (
            inner and (normal_host(inner) == normal_host(host) or grant.allows(inner, port))
        ):
            shown = inner or "?"
            deny(Denial(grant.label, shown, port, f"{what} ({shown}) is not the granted {host}"))
            return
        await connection.stream.send(first)
        await _relay(client, reader, connection)


async def _plain(client: ByteStream, reader: BufferedByteReceiveStream, head: RequestHead,
                 grant: Grant, deny: Deny, upstream: UpstreamConfig,
                 resolve: Resolver) -> None:  # fmt: skip
    host, port, path = absolute_target(head.target)
    named = head.header("host")
    if named and normal_host(split_authority(named, 80)[0]) != normal_host(host):
        return await _refuse(client, grant, deny, split_authority(named, 80)[0], port,
                             f"its Host header is not the URL's host {host}")  # fmt: skip
    if not grant.allows(host, port):
        return await _refuse(client, grant, deny, host, port, "not among its network grants")
    connection = await _open(client, grant, deny, host, port, open_http, upstream, resolve)
    if connection is None:
        return
    async with connection.stream:
        if connection.via is not None:
            auth = connection.via.authorization
            extra = (("Proxy-Authorization", auth),) if auth else ()
            await connection.stream.send(head.forwarded(head.target, extra))
        else:
            await connection.stream.send(head.forwarded(path))
        await _relay(client, reader, connection)


async def _refuse(client: ByteStream, grant: Grant, deny: Deny, host: str, port: int,
                  reason: str) -> None:  # fmt: skip
    deny(Denial(grant.label, host, port, reason))
    await _answer(client, "403 Forbidden", f"gateway sandbox: {host}:{port} refused: {reason}")


async def _open(client: ByteStream, grant: Grant, deny: Deny, host: str, port: int,
                opener: Callable[..., object], upstream: UpstreamConfig,
                resolve: Resolver) -> Connection | None:  # fmt: skip
    try:
        connection = await opener(host, port, upstream, resolve)  # type: ignore[misc]
    except Refused as error:
        await _refuse(client, grant, deny, host, port, str(error))
        return None
    except Unreachable as error:
        await _answer(client, "502 Bad Gateway", f"gateway sandbox: {error}")
        return None
    assert isinstance(connection, Connection)
    return connection


async def handle_client(
    client: ByteStream, grant: Grant, deny: Deny, upstream: UpstreamConfig, resolve: Resolver
) -> None:
    """Serve one connection of a confined child to its end."""
    async with client:
        reader = BufferedByteReceiveStream(client)
        try:
            with anyio.fail_after(_HEAD_TIMEOUT):
                head = parse_head(await reader.receive_until(b"\r\n\r\n", MAX_HEAD) + b"\r\n\r\n")
        except HeadError as error:
            return await _answer(client, "400 Bad Request", f"gateway sandbox: {error}")
        except _RECEIVE_ERRORS:
            return
        try:
            if head.method == "CONNECT":
                await _tunnel(client, reader, head, grant, deny, upstream, resolve)
            elif head.target.startswith("http://"):
                await _plain(client, reader, head, grant, deny, upstream, resolve)
            else:
                await _answer(client, "400 Bad Request", "gateway sandbox: the egress proxy "
                              "takes CONNECT and http:// requests")  # fmt: skip
        except HeadError as error:
            await _answer(client, "400 Bad Request", f"gateway sandbox: {error}")
