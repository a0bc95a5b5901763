"""The variables that point a child at the egress proxy on its own loopback."""

from __future__ import annotations

from collections.abc import Iterable

from gateway.sandbox import EGRESS_HOST, EGRESS_PORT, Destination, normal_host

__all__ = ["PROXY_VARIABLES", "proxy_environment"]

PROXY_VARIABLES = (
    "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
    "NO_PROXY", "no_proxy", "NODE_USE_ENV_PROXY", "npm_config_proxy", "npm_config_https_proxy",
)  # fmt: skip
"""What ``proxy_environment`` sets (every proxy variable of the user's is replaced)."""


def proxy_environment(destinations: Iterable[Destination] = ()) -> dict[str, str]:
    """The variables that point a child at the egress proxy on its own loopback.

    The child's loopback is its own namespace's, so its local names stay direct
    (``NO_PROXY``) — except those granted as destinations (``network:127.0.0.1:PORT``, a
    remote MCP server on the user's machine): they mean the machine's loopback, which only
    the proxy reaches."""
    url = f"http://{EGRESS_HOST}:{EGRESS_PORT}"
    granted = {normal_host(d.host) for d in destinations}
    local = ",".join(name for name in ("localhost", "127.0.0.1", "::1") if name not in granted)
    return {
        "HTTP_PROXY": url, "HTTPS_PROXY": url, "ALL_PROXY": url,
        "http_proxy": url, "https_proxy": url, "all_proxy": url,
        "NO_PROXY": local, "no_proxy": local,
        "NODE_USE_ENV_PROXY": "1",
        "npm_config_proxy": url, "npm_config_https_proxy": url,
    }  # fmt: skip
