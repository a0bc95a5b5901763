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

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.sandbox import EGRESS_HOST as EGRESS_HOST
    from gateway.sandbox import EGRESS_PORT as EGRESS_PORT
    from gateway.sandbox.egress._connect import Resolver as Resolver
    from gateway.sandbox.egress._connect import system_resolver as system_resolver
    from gateway.sandbox.egress._environment import PROXY_VARIABLES as PROXY_VARIABLES
    from gateway.sandbox.egress._environment import proxy_environment as proxy_environment
    from gateway.sandbox.egress._proxy import Denial as Denial
    from gateway.sandbox.egress._proxy import Grant as Grant
    from gateway.sandbox.egress._proxy import handle_client as handle_client
    from gateway.sandbox.egress._service import EgressService as EgressService
    from gateway.sandbox.egress._service import Report as Report
    from gateway.sandbox.egress._service import denial_diagnostic as denial_diagnostic
    from gateway.sandbox.egress._service import egress_service as egress_service
    from gateway.sandbox.egress._upstream import UpstreamConfig as UpstreamConfig
    from gateway.sandbox.egress._upstream import UpstreamProxy as UpstreamProxy
    from gateway.sandbox.egress._upstream import (
        upstream_from_environment as upstream_from_environment,
    )

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
