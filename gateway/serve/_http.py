"""``gateway serve --mcp --http [HOST:]PORT``: MCP's streamable HTTP transport.

The official SDK's ``StreamableHTTPSessionManager`` (one MCP session per client, all on
one ``HttpBridge`` and so on one gateway) behind a small ASGI front served by uvicorn:

- ``/mcp``: the MCP endpoint; every request needs ``Authorization: Bearer TOKEN``, a
  token made by ``gateway token create`` (otherwise 401 with ``WWW-Authenticate``); a
  session is bound to the token that opened it;
- ``/healthz``: 200 while the process is up; ``/readyz``: 200 once the gateway is open
  and its registry loaded, 503 before. Neither needs a token.
- with ``--oauth-issuer``, JWT access tokens of that issuer too (``_oauth``), and the
  protected-resource metadata at ``/.well-known/oauth-protected-resource[/mcp]``, which
  every 401 names.

It listens on 127.0.0.1 unless a host is given; on any loopback address (127.0.0.0/8,
``::1``, ``localhost``) the SDK's DNS rebinding protection checks ``Host`` and ``Origin``.
One token (one OAuth user) holds at most ``MAX_SESSIONS_PER_TOKEN`` open sessions, so no
client can take the server's ``MAX_SESSIONS`` from the others. SIGINT or SIGTERM stop it: no new
connection is accepted, calls in flight get ``GRACE`` seconds, then they are cancelled
(their extensions get ``cancel``) and the gateway closes as ``serve --mcp`` closes it.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import signal
import socket
import sys
from collections.abc import Iterator
from typing import Any

import anyio
import anyio.abc
import uvicorn
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, authorization_context
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import Receive, Scope, Send

from gateway.serve._codes import (
    SERVE_HTTP_ADDRESS,
    SERVE_METRICS_ADDRESS,
    SERVE_SESSIONS_PER_TOKEN,
)
from gateway.serve._http_bridge import TOKEN_KEY, HttpBridge
from gateway.serve._metrics_http import METRICS_PATH, MetricsApp
from gateway.serve._oauth import OAuthVerifier, looks_like_jwt
from gateway.serve._observe import answered
from gateway.serve._open import ServeError
from gateway.serve._tokens import TokenError, TokenStore

__all__ = [
    "GRACE",
    "MAX_SESSIONS",
    "MAX_SESSIONS_PER_TOKEN",
    "HttpFront",
    "bind",
    "is_loopback",
    "metrics_listener",
    "parse_address",
    "run_http",
    "security_for",
]

GRACE = 5.0
"""Seconds calls in flight may still take after SIGINT or SIGTERM."""
MAX_SESSIONS = 256
MAX_SESSIONS_PER_TOKEN = 16
"""Open sessions one token (one OAuth user) may hold; the SDK ends a session idle 30 min."""


def parse_address(text: str) -> tuple[str, int]:
    """``PORT``, ``HOST:PORT`` or ``[V6]:PORT`` → (host, port); 127.0.0.1 by default."""
    host, colon, port = text.strip().rpartition(":")
    host = host.removeprefix("[").removesuffix("]") if colon else "127.0.0.1"
    if not port.isdigit() or not 0 <= int(port) <= 65535 or (colon and not host):
        raise ServeError(
            SERVE_HTTP_ADDRESS(
                f"--http {text!r} is not [HOST:]PORT with a port from 0 to 65535",
                hint="e.g. --http 8765 or --http 127.0.0.1:8765",
            )
        )
    return host, int(port)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket, or ``ServeError`` saying why there is none."""
    try:
        family = socket.AF_INET6 if ipaddress.ip_address(host).version == 6 else socket.AF_INET
    except ValueError:
        family = socket.AF_INET  # a name (localhost): resolved by bind
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as error:
        sock.close()
        raise ServeError(
            SERVE_HTTP_ADDRESS(
                f"cannot listen on {host}:{port}: {error.strerror or error}",
                hint="choose another port (0: any free one) or a local address",
            )
        ) from None
    sock.set_inheritable(False)
    return sock


def is_loopback(host: str) -> bool:
    """``localhost``, or an address of 127.0.0.0/8 or ``::1`` (also IPv4-mapped)."""
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return bool(address.is_loopback or (mapped is not None and mapped.is_loopback))


def metrics_listener(where: str) -> socket.socket:
    """The bound socket of ``--metrics [HOST:]PORT``; ``ServeError`` when there is none."""
    try:
        return bind(*parse_address(where))
    except ServeError as error:
        raise ServeError(
            SERVE_METRICS_ADDRESS(
                f"--metrics {where!r}: {error.diagnostic.message}",
                hint="e.g. --metrics 127.0.0.1:9464, or --metrics token with --http",
            )
        ) from None


def security_for(host: str, port: int) -> TransportSecuritySettings:
    """DNS rebinding protection on every loopback address (a web page's requests to it
    come with another Host or Origin); an address meant for other machines has no one host."""
    if not is_loopback(host):
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    shown = f"[{host}]" if ":" in host else host
    hosts = list(
        dict.fromkeys(
            [f"{shown}:{port}", f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"]
        )
    )
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"http://{h}" for h in hosts],
    )


async def _respond(
    send: Send, status: int, body: dict[str, Any], headers: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    data = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                (b"cache-control", b"no-store"),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})


class HttpFront:
    """The ASGI app: routes, the bearer check, and the requests to cancel on shutdown."""

    def __init__(self, manager: StreamableHTTPSessionManager, bridge: HttpBridge,
                 tokens: TokenStore, oauth: OAuthVerifier | None = None,
                 metrics: MetricsApp | None = None) -> None:  # fmt: skip
        self.manager, self.bridge, self.tokens, self.oauth = manager, bridge, tokens, oauth
        self.metrics = metrics
        """``--metrics token``: ``/metrics`` here, for metrics tokens only."""
        self._requests: set[anyio.CancelScope] = set()
        self._said_unreadable = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        path = scope.get("path", "")
        if path == "/healthz":
            await _respond(send, 200, {"status": "ok"})
        elif path == "/readyz":
            ready = self.bridge.ready
            await _respond(send, 200 if ready else 503, {"ready": ready})
        elif path in ("/mcp", "/mcp/"):
            await self._mcp(scope, receive, send)
        elif self.oauth is not None and path in _METADATA_PATHS:
            await _respond(send, 200, self.oauth.metadata())
        elif path == METRICS_PATH and self.metrics is not None:
            await self._metrics(scope, receive, send)
        else:
            await _respond(send, 404, {"error": "not found; the MCP endpoint is /mcp"})

    async def _mcp(self, scope: Scope, receive: Receive, send: Send) -> None:
        given = _bearer(scope)
        error, description = "invalid_token", "unknown, revoked or expired"
        if given is not None and self.oauth is not None and looks_like_jwt(given):
            verdict = await self.oauth.verify(given)
            record, error, description = verdict.record, verdict.error, verdict.description
        else:
            try:
                record = None if given is None else self.tokens.verify(given)
            except TokenError as problem:
                if not self._said_unreadable:
                    self._said_unreadable = True
                    print(
                        f"gateway serve: error [{problem.diagnostic.code}] {problem}",
                        file=sys.stderr,
                    )
                await _respond(send, 503, {"error": "the server cannot read its tokens"})
                return
        if record is not None and record.metrics:
            record, description = None, "a metrics token reads /metrics only"
        if record is None:
            await self._refuse(send, given, error, description)
            return
        user = AuthenticatedUser(
            AccessToken(token="", client_id=record.name, scopes=list(record.packages),
                        subject=record.identity or record.sha256[:16])
        )  # fmt: skip
        if _session_id(scope) is None and self._sessions_of(user) >= MAX_SESSIONS_PER_TOKEN:
            refused = SERVE_SESSIONS_PER_TOKEN(
                f"{record.name} already holds {MAX_SESSIONS_PER_TOKEN} open sessions"
            )
            await _respond(
                send, 429,
                {"error": "too_many_sessions", "code": refused.code,
                 "error_description": refused.message},
            )  # fmt: skip
            return
        with self._cancellable():
            await answered(self.manager.handle_request,
                           {**scope, "user": user, TOKEN_KEY: record}, receive, send)  # fmt: skip

    def _sessions_of(self, user: AuthenticatedUser) -> int:
        """The open sessions bound to ``user``'s identity. The SDK keeps who opened each
        session only in ``_session_owners`` (it compares them there too); a test holds this
        to the SDK version in use."""
        owners: dict[str, Any] = getattr(self.manager, "_session_owners", {})
        identity = authorization_context(user)
        return sum(1 for owner in owners.values() if owner == identity)

    async def _metrics(self, scope: Scope, receive: Receive, send: Send) -> None:
        """``/metrics`` to a metrics token (``gateway token create NAME --metrics``)."""
        assert self.metrics is not None
        given = _bearer(scope)
        try:
            record = None if given is None else self.tokens.verify(given)
        except TokenError:
            await _respond(send, 503, {"error": "the server cannot read its tokens"})
            return
        if record is None or not record.metrics:
            description = "unknown, revoked or expired" if record is None else "not a metrics token"
            await self._refuse(send, given, "invalid_token", description)
            return
        await self.metrics(scope, receive, send)

    async def _refuse(self, send: Send, given: str | None, error: str, description: str) -> None:
        """401 (no token, or one that is not valid) or 403 (valid, without the scope)."""
        challenge = 'Bearer realm="extension-gateway"'
        if self.oauth is not None:
            resource = self.oauth.settings.resource
            base = resource.split("/", 3)
            where = "/".join(base[:3]) + _METADATA_PATHS[1] if len(base) >= 3 else resource
            challenge += f', resource_metadata="{where}"'
            if self.oauth.settings.required_scope:
                challenge += f', scope="{self.oauth.settings.required_scope}"'
        if given is not None:
            challenge += f', error="{error}", error_description="{description}"'
        status = 403 if error == "insufficient_scope" else 401
        hint = "a bearer token from `gateway token create`" + (
            " or the OAuth issuer" if self.oauth is not None else ""
        )
        await _respond(
            send, status,
            {"error": error if given else "unauthorized",
             "error_description": description if given else f"{hint} is required"},
            ((b"www-authenticate", challenge.encode()),),
        )  # fmt: skip

    @contextlib.contextmanager
    def _cancellable(self) -> Iterator[anyio.CancelScope]:
        with anyio.CancelScope() as cancel:
            self._requests.add(cancel)
            try:
                yield cancel
            finally:
                self._requests.discard(cancel)

    def cancel_requests(self) -> None:
        """End every request still open (the clients' event streams among them)."""
        for cancel in list(self._requests):
            cancel.cancel()


_METADATA_PATHS = (
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-protected-resource/mcp",
)


def _session_id(scope: Scope) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == b"mcp-session-id":
            return bytes(value).decode("latin-1")
    return None


def _bearer(scope: Scope) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == b"authorization":
            scheme, _, token = bytes(value).decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                found: str = token.strip()
                return found
    return None


class _Server(uvicorn.Server):
    """uvicorn without its own signal handlers: ``run_http`` handles the signals."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def run_http(front: HttpFront, sock: socket.socket) -> None:
    """Serve ``front`` on ``sock`` until SIGINT or SIGTERM, then shut down in order."""
    config = uvicorn.Config(
        front, lifespan="off", log_config=None, log_level="warning", access_log=False,
        timeout_graceful_shutdown=int(GRACE) + 2, server_header=False,
    )  # fmt: skip
    server = _Server(config)

    def stop_now() -> None:
        front.bridge.cancel_calls()
        front.cancel_requests()

    async def wind_down() -> None:
        with anyio.move_on_after(GRACE):
            await front.bridge.wait_idle()
        stop_now()

    async def on_signals(group: anyio.abc.TaskGroup) -> None:
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for _ in signals:
                if server.should_exit:  # a second signal: stop now
                    server.force_exit = True
                    stop_now()
                else:  # stop accepting; calls in flight get GRACE seconds
                    server.should_exit = True
                    group.start_soon(wind_down)

    async with front.manager.run(), anyio.create_task_group() as group:
        group.start_soon(on_signals, group)
        try:
            await server.serve(sockets=[sock])
        finally:
            stop_now()
            group.cancel_scope.cancel()
