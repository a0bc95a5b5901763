"""The gateway's egress proxy: how a package granted network access by destination
(``network:HOST[:PORT]``) reaches those hosts and nothing else.

Such a package runs in a network namespace of its own (``gateway.sandbox._namespaces``)
whose only open door is a listener on its loopback, served here from the gateway's side:
HTTP ``CONNECT`` checked by its target and the TLS server name of what goes through it,
plain HTTP by its URL and ``Host``; everything else refused with a 403 and a
``sandbox.network_denied`` diagnostic naming the host. The proxy chains to the user's own
proxy (``HTTPS_PROXY`` …) when one is set. The child finds it in the usual variables
(``proxy_environment``), which Python's ``urllib``/``requests``/``httpx``, curl, git and
Node ≥ 24 (with ``NODE_USE_ENV_PROXY=1``) honour.

- :class:`EgressService` / :func:`egress_service`: the proxy of this gateway process;
- :class:`Grant`: whose connections and where they may go; :class:`Denial`;
- :func:`proxy_environment`: the variables a child gets.
"""

from __future__ import annotations

from collections.abc import Iterable

from gateway.sandbox import EGRESS_HOST, EGRESS_PORT, Destination, normal_host
from gateway.sandbox.egress._connect import Resolver, system_resolver
from gateway.sandbox.egress._proxy import Denial, Grant, handle_client
from gateway.sandbox.egress._service import (
    EgressService,
    Report,
    denial_diagnostic,
    egress_service,
)
from gateway.sandbox.egress._upstream import (
    UpstreamConfig,
    UpstreamProxy,
    upstream_from_environment,
)

__all__ = [
    "EGRESS_HOST",
    "EGRESS_PORT",
    "PROXY_VARIABLES",
    "Denial",
    "EgressService",
    "Grant",
    "Report",
    "Resolver",
    "UpstreamConfig",
    "UpstreamProxy",
    "denial_diagnostic",
    "egress_service",
    "handle_client",
    "proxy_environment",
    "system_resolver",
    "upstream_from_environment",
]

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
