"""HTTP/1.x request heads as the egress proxy reads them: ``CONNECT host:port`` and
absolute-form requests (``GET http://host/path``) from a client that uses it as its proxy,
and a plain request's ``Host`` inside a tunnel. What a package sends is hostile: a head is
bounded (``MAX_HEAD``), must be ASCII text in HTTP's shape, and anything else is a
``HeadError`` the proxy answers with 400."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from gateway.base import GatewayError

__all__ = [
    "MAX_HEAD",
    "HeadError",
    "RequestHead",
    "absolute_target",
    "looks_like_http",
    "parse_head",
    "split_authority",
]

MAX_HEAD: Final = 16 * 1024
_METHOD = re.compile(rb"^[A-Z]{3,12} ")
_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_HOP_BY_HOP = frozenset({"proxy-connection", "proxy-authorization", "connection", "keep-alive"})


class HeadError(GatewayError, ValueError):
    """Not an HTTP request head the proxy can act on."""


@dataclass(frozen=True, slots=True)
class RequestHead:
    method: str
    target: str
    version: str
    headers: tuple[tuple[str, str], ...]

    def header(self, name: str) -> str | None:
        wanted = name.lower()
        return next((v for k, v in self.headers if k.lower() == wanted), None)

    def forwarded(self, target: str, extra: tuple[tuple[str, str], ...] = ()) -> bytes:
        """This head with ``target`` as its request target, the proxy's hop-by-hop headers
        dropped, ``Connection: close`` (one request per connection: a second one on it
        could name another host) and ``extra`` headers added."""
        lines = [f"{self.method} {target} {self.version}"]
        lines += [f"{k}: {v}" for k, v in self.headers if k.lower() not in _HOP_BY_HOP]
        lines += [f"{k}: {v}" for k, v in extra]
        lines.append("Connection: close")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def looks_like_http(data: bytes) -> bool:
    """Whether the first bytes sent through a tunnel start an HTTP/1 request."""
    return bool(_METHOD.match(data[:16]))


def parse_head(data: bytes) -> RequestHead:
    """The head (through its blank line) of one request. Raises ``HeadError``."""
    if len(data) > MAX_HEAD:
        raise HeadError(f"request head over {MAX_HEAD} bytes")
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        raise HeadError("request head is not ASCII") from None
    if not text.endswith("\r\n\r\n"):
        raise HeadError("request head does not end with a blank line")
    request_line, *lines = text[:-4].split("\r\n")
    parts = request_line.split(" ")
    if len(parts) != 3 or not _TOKEN.match(parts[0]) or not parts[2].startswith("HTTP/1."):
        raise HeadError(f"not an HTTP/1 request line: {request_line[:80]!r}")
    headers: list[tuple[str, str]] = []
    for line in lines:
        name, colon, value = line.partition(":")
        if not colon or not _TOKEN.match(name) or any(ord(c) < 0x20 for c in value if c != "\t"):
            raise HeadError(f"not a header line: {line[:80]!r}")
        headers.append((name, value.strip()))
    return RequestHead(parts[0], parts[1], parts[2], tuple(headers))


def split_authority(text: str, default_port: int | None) -> tuple[str, int]:
    """``host:port``, ``[v6]:port`` or, with ``default_port``, a bare host. Raises
    ``HeadError``."""
    raw = text.strip()
    if raw.startswith("["):
        host, bracket, rest = raw[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            raise HeadError(f"not host:port: {text[:80]!r}")
        port_text = rest[1:]
    elif raw.count(":") == 1:
        host, _, port_text = raw.partition(":")
    elif ":" in raw:
        raise HeadError(f"an IPv6 address goes in brackets: {text[:80]!r}")
    else:
        host, port_text = raw, ""
    if not host:
        raise HeadError(f"no host in {text[:80]!r}")
    if not port_text:
        if default_port is None:
            raise HeadError(f"no port in {text[:80]!r}")
        return host, default_port
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise HeadError(f"not a port: {text[:80]!r}")
    return host, int(port_text)


def absolute_target(target: str) -> tuple[str, int, str]:
    """(host, port, origin-form path) of an absolute-form ``http://`` target. Raises
    ``HeadError`` (an ``https://`` target is a CONNECT's business)."""
    try:
        parts = urlsplit(target)
        port = parts.port
    except ValueError:
        raise HeadError(f"not a URL: {target[:80]!r}") from None
    if parts.scheme != "http" or not parts.hostname or parts.username or parts.password:
        raise HeadError(f"a plain-HTTP proxy request needs an http:// URL, not {target[:80]!r}")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return parts.hostname, port or 80, path
