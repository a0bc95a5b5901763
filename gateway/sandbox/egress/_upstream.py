"""The user's own proxy (a corporate one), which the egress proxy chains to: its settings
are read from the gateway's environment as curl and Python's ``urllib`` read them —
``https_proxy``/``HTTPS_PROXY`` for tunnels, ``http_proxy``/``HTTP_PROXY`` for plain HTTP,
``all_proxy``/``ALL_PROXY`` for both, ``no_proxy``/``NO_PROXY`` for the hosts that go
direct (a name and its subdomains, ``*``, an address or a CIDR range). Credentials in the
proxy's URL become its ``Proxy-Authorization``.

Packages never see these settings: each gets the gateway's proxy, and this is how the
gateway's proxy goes out.
"""

from __future__ import annotations

import base64
import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

__all__ = ["UpstreamConfig", "UpstreamProxy", "upstream_from_environment"]


@dataclass(frozen=True, slots=True)
class UpstreamProxy:
    host: str
    port: int
    tls: bool = False
    """``https://``: the connection to the proxy itself is TLS."""
    authorization: str | None = field(default=None, repr=False)
    """``Proxy-Authorization`` (Basic) from the URL's credentials."""


@dataclass(frozen=True, slots=True)
class UpstreamConfig:
    tunnel: UpstreamProxy | None = None
    """For CONNECT tunnels (HTTPS and anything else)."""
    http: UpstreamProxy | None = None
    """For plain HTTP requests."""
    no_proxy: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    """Settings that could not be used (``sandbox.egress_upstream``)."""

    def _direct(self, host: str) -> bool:
        name = host.lower().rstrip(".").strip("[]")
        for entry in self.no_proxy:
            if entry == "*":
                return True
            try:
                if ipaddress.ip_address(name) in ipaddress.ip_network(entry, strict=False):
                    return True
                continue
            except ValueError:
                pass
            suffix = entry.lstrip("*").lstrip(".")
            if name == suffix or name.endswith("." + suffix):
                return True
        return False

    def for_tunnel(self, host: str) -> UpstreamProxy | None:
        return None if self.tunnel is None or self._direct(host) else self.tunnel

    def for_http(self, host: str) -> UpstreamProxy | None:
        return None if self.http is None or self._direct(host) else self.http


def _first(env: Mapping[str, str], *names: str) -> str | None:
    for name in names:
        value = env.get(name)
        if value:
            return value.strip()
    return None


def _proxy(value: str | None, problems: list[str], name: str) -> UpstreamProxy | None:
    if not value:
        return None
    url = value if "://" in value else f"http://{value}"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        problems.append(f"{name}: not a URL")
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        problems.append(f"{name}: {parts.scheme}:// proxies are not supported (http, https)")
        return None
    authorization = None
    if parts.username is not None:
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        authorization = "Basic " + base64.b64encode(pair).decode("ascii")
    default = 443 if parts.scheme == "https" else 80
    return UpstreamProxy(parts.hostname, port or default, parts.scheme == "https", authorization)


def upstream_from_environment(env: Mapping[str, str]) -> UpstreamConfig:
    """The user's proxy settings from ``env`` (the gateway's own environment)."""
    problems: list[str] = []
    every = _first(env, "all_proxy", "ALL_PROXY")
    tunnel = _proxy(_first(env, "https_proxy", "HTTPS_PROXY") or every, problems, "HTTPS_PROXY")
    http = _proxy(_first(env, "http_proxy", "HTTP_PROXY") or every, problems, "HTTP_PROXY")
    raw = _first(env, "no_proxy", "NO_PROXY") or ""
    entries = tuple(e.strip().lower() for e in raw.split(",") if e.strip())
    return UpstreamConfig(tunnel, http, entries, tuple(dict.fromkeys(problems)))
