"""The server name a TLS ClientHello asks for (its ``server_name`` extension, RFC 6066),
read from the first bytes a client sends through a tunnel — without decrypting anything,
as srt's and ToolHive's egress proxies check it against the CONNECT target's grant.

Hostile input, read defensively: every length is checked against what is there; a record
that is not a handshake, a ClientHello cut short or malformed, or one longer than
``MAX_HELLO`` is said as such, never raised.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

__all__ = ["MAX_HELLO", "Hello", "HelloState", "read_client_hello"]

MAX_HELLO: Final = 64 * 1024
"""Bytes of ClientHello read at most (a post-quantum key share makes one a few KiB)."""

_HANDSHAKE = 0x16
_CLIENT_HELLO = 0x01
_SERVER_NAME = 0x0000
_HOST_NAME = 0x00


class HelloState(enum.Enum):
    NOT_TLS = "not TLS"
    INCOMPLETE = "incomplete"
    MALFORMED = "malformed"
    COMPLETE = "complete"


@dataclass(frozen=True, slots=True)
class Hello:
    state: HelloState
    server_name: str | None = None
    """The host name it asks for; None when it names none (an address, or no SNI)."""


def _u16(data: bytes, at: int) -> int:
    return int.from_bytes(data[at : at + 2], "big")


def _handshake(data: bytes) -> bytes | None:
    """The first handshake message carried by the TLS records at the start of ``data`` (a
    ClientHello may span records), or None while it is incomplete. Raises ``ValueError``
    when another kind of record comes first."""
    out = bytearray()
    at = 0
    while not (len(out) >= 4 and len(out) >= 4 + _len24(out)):
        if at + 5 > len(data):
            return None
        if data[at] != _HANDSHAKE:
            raise ValueError("not a handshake record")
        length = _u16(data, at + 3)
        out += data[at + 5 : at + 5 + length]
        at += 5 + length
        if at > len(data) and not (len(out) >= 4 and len(out) >= 4 + _len24(out)):
            return None  # a record cut short, and what is there is not enough
    return bytes(out)


def _len24(data: bytes | bytearray) -> int:
    return int.from_bytes(data[1:4], "big")


def read_client_hello(data: bytes) -> Hello:
    """What the first bytes a client sent say: not TLS, not complete yet, malformed, or a
    complete ClientHello and the server name it names."""
    if not data:
        return Hello(HelloState.INCOMPLETE)
    if data[0] != _HANDSHAKE:
        return Hello(HelloState.NOT_TLS)
    if len(data) >= 3 and data[1] != 0x03:
        return Hello(HelloState.NOT_TLS)  # not a TLS record version (3.x)
    if len(data) > MAX_HELLO + 5 * 16:
        return Hello(HelloState.MALFORMED)
    try:
        handshake = _handshake(data)
    except ValueError:
        return Hello(HelloState.MALFORMED)
    if handshake is None:
        return Hello(HelloState.INCOMPLETE)
    if handshake[0] != _CLIENT_HELLO:
        return Hello(HelloState.MALFORMED)
    body = handshake[4 : 4 + _len24(handshake)]
    try:
        return Hello(HelloState.COMPLETE, _server_name(body))
    except (IndexError, ValueError):
        return Hello(HelloState.MALFORMED)


def _need(body: bytes, end: int) -> None:
    if end > len(body):
        raise ValueError("truncated")


def _server_name(body: bytes) -> str | None:
    at = 2 + 32  # client_version, random
    _need(body, at + 1)
    at += 1 + body[at]  # session_id
    _need(body, at + 2)
    at += 2 + _u16(body, at)  # cipher_suites
    _need(body, at + 1)
    at += 1 + body[at]  # compression_methods
    if at == len(body):
        return None  # no extensions at all
    _need(body, at + 2)
    end = at + 2 + _u16(body, at)
    _need(body, end)
    at += 2
    while at + 4 <= end:
        kind, length = _u16(body, at), _u16(body, at + 2)
        _need(body, at + 4 + length)
        if kind == _SERVER_NAME:
            return _host_name(body[at + 4 : at + 4 + length])
        at += 4 + length
    return None


def _host_name(extension: bytes) -> str | None:
    _need(extension, 2)
    end = 2 + _u16(extension, 0)
    _need(extension, end)
    at = 2
    while at + 3 <= end:
        kind, length = extension[at], _u16(extension, at + 1)
        _need(extension, at + 3 + length)
        if kind == _HOST_NAME:
            name = extension[at + 3 : at + 3 + length]
            if not name or any(c < 0x21 or c > 0x7E for c in name):
                raise ValueError("not a host name")
            return name.decode("ascii")
        at += 3 + length
    return None
