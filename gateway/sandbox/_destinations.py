"""Network grants by destination: the permission ``network:HOST[:PORT]``.

``network:api.example.com`` lets a package reach that host (any port);
``network:api.example.com:443`` that port only; ``network:*.example.com`` every subdomain
of ``example.com`` (``a.example.com``, ``a.b.example.com``) but not ``example.com`` itself;
``network:10.0.0.5:8080`` and ``network:[::1]:8080`` an address. Plain ``network`` (TCP and
UDP to anywhere) stays, the wide grant it is; nanobot's ``network.<anything>`` means it too.

A package granted destinations runs in a network namespace of its own whose only way out is
the gateway's egress proxy (``egress``), which lets through what these allow. This module is
the grant's vocabulary only: parsing, the canonical text, matching.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from gateway.base import GatewayError

__all__ = [
    "NETWORK_GRANT_PREFIX",
    "Destination",
    "DestinationError",
    "destination_grant",
    "destinations_from",
    "is_wide_network",
    "parse_destination",
]

NETWORK_GRANT_PREFIX: Final = "network:"
_LABEL = re.compile(r"^(?!-)[a-z0-9_-]{1,63}(?<!-)$")
_MAX_HOST = 253


class DestinationError(GatewayError, ValueError):
    """A ``network:`` grant that names no destination; the message says why."""


@dataclass(frozen=True, slots=True, order=True)
class Destination:
    """A host (a name, ``*.`` a parent name for its subdomains, or an address) and a port
    (None: any)."""

    host: str
    port: int | None = None

    @property
    def wildcard(self) -> bool:
        return self.host.startswith("*.")

    @property
    def address(self) -> bool:
        """The grant names an IP address, not a name."""
        return _address(self.host) is not None

    def allows(self, host: str, port: int) -> bool:
        """Whether a connection to ``host`` (a name or an address, as a client asked for
        it) on ``port`` is within this grant."""
        if self.port is not None and port != self.port:
            return False
        wanted = normal_host(host)
        if wanted is None:
            return False
        if self.wildcard:
            return wanted.endswith(self.host[1:]) and _address(wanted) is None
        return wanted == self.host

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port is None else f"{host}:{self.port}"

    @property
    def grant(self) -> str:
        """The permission that grants it: ``network:HOST[:PORT]``."""
        return f"{NETWORK_GRANT_PREFIX}{self}"


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def normal_host(host: str) -> str | None:
    """A host as the grants compare it: lower case, no trailing dot, international names
    in their ASCII (punycode) form, an IPv6 address without brackets and compressed; None
    when it is no host name at all."""
    text = host.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    found = _address(text)
    if found is not None:
        return found.compressed
    text = text.rstrip(".").lower()
    if not text or len(text) > _MAX_HOST:
        return None
    try:
        text = text.encode("idna").decode("ascii") if not text.isascii() else text
    except UnicodeError:
        return None
    if not all(_LABEL.match(label) for label in text.split(".")):
        return None
    return text


def _split(text: str) -> tuple[str, str | None]:
    """``host``, ``host:port``, ``[v6]``, ``[v6]:port``, a bare v6 address."""
    if text.startswith("["):
        host, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            raise DestinationError(f"{text!r}: an IPv6 address goes in brackets, [::1]:8080")
        return host, rest[1:] if rest else None
    if text.count(":") > 1:
        return text, None  # an IPv6 address without a port
    host, colon, port = text.partition(":")
    return host, port if colon else None


def parse_destination(text: str) -> Destination:
    """A destination from ``HOST[:PORT]`` (no ``network:`` before it). Raises
    ``DestinationError``."""
    raw = text.strip()
    if not raw or any(c.isspace() or ord(c) < 0x20 for c in raw) or "/" in raw or "@" in raw:
        raise DestinationError(f"{text!r} is not HOST[:PORT] (e.g. api.example.com:443)")
    host, port_text = _split(raw)
    port: int | None = None
    if port_text is not None:
        if not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise DestinationError(f"{text!r}: the port must be a number 1..65535")
        port = int(port_text)
    wildcard = host.startswith("*.")
    name = normal_host(host[2:] if wildcard else host)
    if name is None or "*" in host[2 if wildcard else 0 :]:
        raise DestinationError(
            f"{text!r}: not a host name or address (a wildcard is a leading '*.', "
            "as in *.example.com)"
        )
    if wildcard:
        if _address(name) is not None:
            raise DestinationError(f"{text!r}: a wildcard needs a name, not an address")
        if "." not in name:
            raise DestinationError(f"{text!r}: a wildcard over a top-level domain is too wide")
        name = "*." + name
    return Destination(name, port)


def destination_grant(name: str) -> Destination | None:
    """The destination a permission ``network:HOST[:PORT]`` grants; None for any other
    permission. Raises ``DestinationError`` for a ``network:`` that names none."""
    if not name.startswith(NETWORK_GRANT_PREFIX):
        return None
    return parse_destination(name[len(NETWORK_GRANT_PREFIX) :])


def is_wide_network(name: str) -> bool:
    """Plain ``network`` (and its older spellings: ``net``, nanobot's ``network.*``)."""
    return name in ("network", "net") or name.startswith(("network.", "net."))


def destinations_from(granted: Iterable[str]) -> tuple[Destination, ...]:
    """The valid destinations among ``granted``, sorted and without repeats (a grant
    that names none counts as none)."""
    found: set[Destination] = set()
    for name in granted:
        try:
            destination = destination_grant(name)
        except DestinationError:
            continue
        if destination is not None:
            found.add(destination)
    return tuple(sorted(found))
