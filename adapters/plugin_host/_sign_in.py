"""A person signing in to a package's remote MCP server (``gateway auth``), with the MCP
SDK's OAuth 2.1 client (``OAuthClientProvider``): the server's 401 names its protected
resource metadata (RFC 9728), that names the authorization server, whose metadata
(RFC 8414) gives the endpoints; the client is the one registered before (when its redirect
still fits), Claude Code's pre-registered ``oauth.clientId``, a client ID metadata document
(``GATEWAY_OAUTH_CLIENT_METADATA_URL``, where the server supports them) or a dynamic
registration (RFC 7591); then the authorization code with PKCE (S256) through a loopback
redirect (``_loopback``), and the RFC 8707 resource. Runs unconfined, in the person's own
process — never in the package's.

What is kept (``gateway.packages.sign_ins``): the tokens with their absolute expiry, the
client, the token endpoint, the issuer and the resource — what the plugin host needs to
refresh them. The stamp beside the package's sign-ins tells a running gateway to restart it.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.sse import sse_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from adapters.plugin_host import _codes as codes
from adapters.plugin_host._config import RemoteSpec
from adapters.plugin_host._loopback import LoopbackRedirect
from adapters.plugin_host._remote import expand_headers
from adapters.plugin_host._remote_spec import network_grant
from adapters.plugin_host._remote_transport import streamable
from gateway.base import printable
from gateway.model import CatalogEntry, SignedIn, SignInFailed, SignInPrompt
from gateway.packages.secrets import SecretsError, read_secrets
from gateway.packages.sign_ins import (
    SignIn,
    SignInError,
    Tokens,
    read_sign_in,
    sign_in_folder,
    sign_in_lock,
    stamp_sign_in,
    write_sign_in,
)

__all__ = ["CLIENT_METADATA_URL", "sign_in"]

CLIENT_METADATA_URL = "GATEWAY_OAUTH_CLIENT_METADATA_URL"
"""An HTTPS URL where the operator publishes the gateway's OAuth client metadata document
(used instead of a registration where the authorization server supports them)."""
CLIENT_NAME = "Extension Gateway"


class _Memory:
    """The SDK's ``TokenStorage`` for one sign-in: a client it may reuse, never old tokens
    (a person asked to sign in again)."""

    def __init__(self, client: OAuthClientInformationFull | None) -> None:
        self.client = client
        self.tokens: OAuthToken | None = None
        self.tokens_at: float | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens, self.tokens_at = tokens, time.time()

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


def _known_client(
    previous: SignIn | None, oauth: Mapping[str, Any], redirect: str
) -> OAuthClientInformationFull | None:
    """The client registered before when its redirects include this one, else the
    pre-registered ``client_id`` of the entry, else none (the SDK registers one)."""
    if previous is not None and previous.client:
        try:
            client = OAuthClientInformationFull.model_validate(previous.client)
        except ValueError:
            client = None
        if client is not None and redirect in [str(u) for u in client.redirect_uris or []]:
            return client
    if oauth.get("client_id"):
        return OAuthClientInformationFull(
            client_id=str(oauth["client_id"]),
            redirect_uris=[redirect],  # type: ignore[list-item]
            token_endpoint_auth_method="none",
        )
    return None


def _headers(entry: CatalogEntry, home: Path, remote: Mapping[str, Any]) -> dict[str, str]:
    try:
        stored = read_secrets(home, entry.id)
    except SecretsError:
        stored = {}
    headers, _ = expand_headers(remote.get("headers") or {}, {**os.environ, **stored})
    return {key: value for key, value in headers.items() if value}


async def sign_in(entry: CatalogEntry, home: Path, server: str, prompt: SignInPrompt) -> SignedIn:
    # The SDK logs its flow's failures with a traceback; the person gets the reason instead.
    logging.getLogger("mcp").addHandler(logging.NullHandler())
    remotes: Mapping[str, Mapping[str, Any]] = entry.metadata.get("remote_servers") or {}
    remote = remotes.get(server)
    if remote is None:
        raise SignInFailed(f"{entry.id} has no remote MCP server {server!r}", _FAILED)
    spec = RemoteSpec(server, str(remote["transport"]), str(remote["url"]),
                      grant=network_grant(str(remote["url"])))  # fmt: skip
    oauth: Mapping[str, Any] = remote.get("oauth") or {}
    folder = sign_in_folder(home, entry.id)
    try:
        previous = read_sign_in(folder, server)
    except SignInError:
        previous = None
    port = int(oauth.get("callback_port") or 0)
    async with LoopbackRedirect(port) as redirect:
        host = "localhost" if port else "127.0.0.1"  # Claude Code registers localhost
        uri = f"http://{host}:{redirect.port}/callback"
        memory = _Memory(_known_client(previous, oauth, uri))

        async def callback() -> AuthorizationCodeResult:
            try:
                with anyio.fail_after(prompt.timeout):
                    got = await redirect.wait()
            except TimeoutError:
                message = f"no redirect came back within {prompt.timeout:g} s"
                raise SignInFailed(message, _FAILED) from None
            if got.error or not got.code:
                said = printable(f"{got.error or 'no code'}: {got.error_description or ''}")
                message = f"the authorization server refused: {said.strip(': ')}"
                raise SignInFailed(message, _FAILED)
            return AuthorizationCodeResult(code=got.code, state=got.state, iss=got.iss)

        async def show(url: str) -> None:
            prompt.show(url)

        metadata = OAuthClientMetadata(
            client_name=CLIENT_NAME,
            redirect_uris=[uri],  # type: ignore[list-item]
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
        )
        provider = OAuthClientProvider(
            spec.url, metadata, memory, redirect_handler=show, callback_handler=callback,
            client_metadata_url=os.environ.get(CLIENT_METADATA_URL) or None,
        )  # fmt: skip
        headers = _headers(entry, home, remote)
        transport: Any = (
            sse_client(spec.url, headers=headers, timeout=30.0, auth=provider)
            if spec.transport == "sse"
            else streamable(spec.url, headers, provider)
        )
        try:
            with anyio.fail_after(prompt.timeout + 60):
                async with Client(transport, mode="auto", cache=None) as client:
                    tools = await client.list_tools()
        except SignInFailed:
            raise
        except BaseException as error:
            if isinstance(error, anyio.get_cancelled_exc_class()):
                raise
            raise _failure(error, spec.url) from None
    if memory.tokens is None:
        return SignedIn(server, needed=False, tools=len(tools.tools))
    record = _record(spec, provider, memory)
    try:
        with sign_in_lock(folder):
            write_sign_in(folder, record)
        stamp_sign_in(home, entry.id)
    except (SignInError, OSError) as error:
        raise SignInFailed(f"the tokens could not be kept: {error}", _FAILED) from None
    assert record.tokens is not None
    return SignedIn(server, needed=True, tools=len(tools.tools),
                    expires_at=record.tokens.expires_at,
                    refreshable=record.tokens.refresh_token is not None)  # fmt: skip


def _record(spec: RemoteSpec, provider: OAuthClientProvider, memory: _Memory) -> SignIn:
    context = provider.context  # what the flow discovered: public fields of the SDK's
    tokens = memory.tokens
    assert tokens is not None
    asm = context.oauth_metadata
    resource = (
        context.get_resource_url()
        if context.should_include_resource_param(context.protocol_version)
        else None
    )
    client = memory.client.model_dump(mode="json", exclude_none=True) if memory.client else {}
    now = memory.tokens_at or time.time()
    return SignIn(
        server=spec.name,
        url=spec.url,
        token_endpoint=str(asm.token_endpoint) if asm is not None else None,
        issuer=str(asm.issuer) if asm is not None else None,
        resource=resource,
        client=client,
        tokens=Tokens(
            access_token=tokens.access_token,
            refresh_token=tokens.refresh_token,
            scope=tokens.scope,
            expires_at=context.token_expiry_time,
            obtained_at=now,
        ),
        signed_in_at=time.time(),
    )


_FAILED = codes.REMOTE_SIGN_IN_FAILED.code


def _failure(error: BaseException, url: str) -> SignInFailed:
    """The innermost reason of what the flow raised, with its code: a server that cannot
    be reached at all is ``remote_mcp.unreachable``, anything else a failed sign-in."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    if isinstance(error, SignInFailed):
        return error
    text = printable(str(error).strip().splitlines()[0] if str(error).strip() else "")
    reason = f"{type(error).__name__}: {text}" if text else type(error).__name__
    if isinstance(error, httpx2.TransportError | OSError):
        return SignInFailed(f"{url} could not be reached ({reason})", codes.REMOTE_UNREACHABLE.code)
    return SignInFailed(reason, _FAILED)
