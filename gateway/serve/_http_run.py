"""``serve_mcp_http``: open the gateway once, serve it to every HTTP client, close in order.

The address is checked and bound before anything else starts, and the token file read,
so a port in use or an unreadable token file stops the server at once with its code. The
gateway opens as ``serve_mcp`` opens it (listings from the registration cache, then every
runtime warmed in the background) while the endpoint already answers ``/healthz``.
"""

from __future__ import annotations

import sys
from dataclasses import replace

import anyio

from gateway.base import gateway_version
from gateway.serve._oauth import OAuthSettings, OAuthVerifier
from gateway.serve._open import ServeError, ServeOptions, serve_bridge, stopped
from gateway.serve._tokens import TokenError, TokenStore

__all__ = ["serve_mcp_http"]


async def serve_mcp_http(
    options: ServeOptions,
    address: str,
    max_calls: int = 8,
    oauth: OAuthSettings | None = None,
    rate: int = 0,
) -> int:
    """An MCP server on streamable HTTP at ``address`` (``[HOST:]PORT``) until SIGINT or
    SIGTERM; 0 then, 1 when it could not start (the reason is on stderr). ``oauth``: also
    accept that issuer's JWT access tokens (its ``resource`` empty: this server's URL)."""
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    from gateway.serve._audit import AUDIT_LOG, AuditLog
    from gateway.serve._http import (
        MAX_SESSIONS,
        HttpFront,
        bind,
        metrics_listener,
        parse_address,
        run_http,
        security_for,
    )
    from gateway.serve._http_bridge import HttpBridge
    from gateway.serve._metrics_http import MetricsApp, serve_metrics
    from gateway.serve._observe import http_gauges, start_observing

    report = options.report()  # the gateway's start held, what precedes it said at once
    tokens = TokenStore(options.config.home)
    metrics_sock = None
    try:
        host, port = parse_address(address)
        tokens.records()
        if options.metrics not in (None, "token"):
            metrics_sock = metrics_listener(options.metrics)
        sock = bind(host, port)
    except (ServeError, TokenError) as error:
        if metrics_sock is not None:
            metrics_sock.close()
        report(error.diagnostic)
        return 1
    audit = AuditLog(options.config.home / "logs" / AUDIT_LOG, arguments=options.audit_arguments)
    bridge = HttpBridge(
        version=gateway_version(), strict=options.strict, tool_search=options.tool_search,
        audit=audit, max_calls=max_calls, rate=rate,
    )  # fmt: skip
    manager = StreamableHTTPSessionManager(
        bridge.server,
        security_settings=security_for(host, sock.getsockname()[1]),
        max_sessions=MAX_SESSIONS,
    )
    # The SDK's session manager keeps its open sessions privately; without them no
    # handshake-era session is told of list changes (2026-07-28 clients still are).
    sessions: dict[str, object] = getattr(manager, "_server_instances", {})
    bridge.live_sessions = lambda: sessions
    observed = start_observing(
        bridge, http_gauges(manager, bridge), prometheus=options.metrics is not None,
        transport="tcp", report=report,
    )  # fmt: skip
    metrics = None
    if observed.prometheus is not None:
        from gateway.serve._prometheus import CONTENT_TYPE

        metrics = MetricsApp(observed.prometheus.render, CONTENT_TYPE)
    bound_host, bound_port = sock.getsockname()[:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    verifier = None
    if oauth is not None:
        resource = oauth.resource or f"http://{shown}:{bound_port}/mcp"
        verifier = OAuthVerifier(replace(oauth, resource=resource))
        try:
            await verifier.start()
        except ServeError as error:
            sock.close()
            if metrics_sock is not None:
                metrics_sock.close()
            observed.close()
            report(error.diagnostic)
            return 1
    front = HttpFront(
        manager, bridge, tokens, verifier, metrics if options.metrics == "token" else None
    )
    if metrics_sock is not None:
        where = metrics_sock.getsockname()
        print(f"gateway serve: metrics on http://{where[0]}:{where[1]}/metrics",
              file=sys.stderr, flush=True)  # fmt: skip
    print(f"gateway serve: MCP on http://{shown}:{bound_port}/mcp", file=sys.stderr, flush=True)
    if not tokens.records() and verifier is None:
        print(
            "gateway serve: no token can reach /mcp yet: make one with `gateway token create NAME`",
            file=sys.stderr,
            flush=True,
        )
    failure: list[ServeError] = []
    stop, served = anyio.Event(), anyio.Event()
    try:
        async with anyio.create_task_group() as group:

            async def serve_gateway() -> None:
                try:
                    await serve_bridge(options, bridge, report, stop=stop)
                except ServeError as error:
                    failure.append(error)
                    group.cancel_scope.cancel()  # nothing to serve: the server stops too
                finally:
                    served.set()

            group.start_soon(serve_gateway)
            group.start_soon(bridge.background)
            if metrics_sock is not None and metrics is not None:
                group.start_soon(serve_metrics, metrics, metrics_sock)
            await run_http(front, sock)
            await stopped(stop, served)
            group.cancel_scope.cancel()
    finally:
        sock.close()
        if metrics_sock is not None:
            metrics_sock.close()
        audit.close()
        observed.close()
    if failure:
        report(failure[0].diagnostic)
        return 1
    return 0
