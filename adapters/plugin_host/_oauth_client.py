"""The plugin host's OAuth 2.1 client for a remote MCP server: the sign-in ``gateway auth``
made (``gateway.packages.sign_ins``) kept usable for as long as the host runs.

The MCP SDK's own client (``OAuthClientProvider``) refreshes only lazily, on the first
request after expiry, by a clock it keeps in memory; tokens it loads at start count as
valid until a 401, and a 401 starts the interactive flow, which a headless host cannot
finish. So here:

- the absolute expiry is stored with the tokens; a token is refreshed **before** it
  expires — by a timer at ``expires_at - lead`` (``lead``: a fifth of its lifetime, at most
  five minutes), and at use when that moment has passed (a host that slept);
- a 401 refreshes once and retries (the server may have expired it early);
- a refresh the authorization server refuses (``invalid_grant``: revoked or expired) ends
  the sign-in: the server's tools stay listed, each call says ``gateway auth ID``, and one
  diagnostic says so at once (``remote_mcp.sign_in_required``) — never a tool that
  silently vanished;
- a refresh that fails otherwise (unreachable) keeps the current token and is tried again;
- a 403 ``insufficient_scope`` (the sign-in has fewer scopes than the server needs) holds
  the server's calls back the same way (``remote_mcp.scope_insufficient``): widening a
  sign-in takes a person.

Hosts of the same package in two gateways share the sign-in file: a refresh reads it under
``lock_sign_ins`` first and takes a token another host already refreshed. The access token
is sent only to the origin of the URL it was signed in for (``_remote_transport``'s
``BearerAuth``). ``httpx2`` is imported by a refresh, not with this module: a host whose
server cannot be connected never needs it.
"""

from __future__ import annotations

import base64
import json
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import quote, urlsplit

import anyio

from adapters.plugin_host import _codes as codes
from adapters.plugin_host._channel import log
from gateway.base import printable
from gateway.packages.sign_ins import (
    SignIn,
    SignInError,
    Tokens,
    lock_sign_ins,
    read_sign_in,
    write_sign_in,
)

__all__ = ["TokenKeeper", "origin", "refresh_lead"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    import httpx2

LEAD_MAX = 300.0
LEAD_SHARE = 0.2
TIMER_MIN_LIFETIME = 10.0
"""A token that lives shorter than this is refreshed at use only (a timer would spin)."""
RETRY_SECONDS = 30.0
REQUEST_SECONDS = 30.0
_REFUSALS = frozenset({"invalid_grant", "invalid_client", "unauthorized_client"})

Report = Callable[[str, str], None]
Sleep = Callable[[float], Awaitable[None]]


def refresh_lead(lifetime: float) -> float:
    return min(LEAD_MAX, max(0.0, lifetime) * LEAD_SHARE)


def origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme, parts.netloc.lower()


class TokenKeeper:
    """One server's tokens: the bearer to send, refreshed in time; why none can be sent."""

    def __init__(
        self,
        folder: Path,
        server: str,
        url: str,
        *,
        clock: Callable[[], float] = time.time,
        http: Callable[[], httpx2.AsyncClient] | None = None,
    ) -> None:
        self._folder, self._server, self._url = folder, server, url
        self._clock = clock
        self._http = http or _client
        self._record: SignIn | None = None
        self._loaded = False
        self._lock = anyio.Lock()
        self._changed = anyio.Event()
        self._failing = False
        self.needs_sign_in: str | None = None
        """Why a person must sign in again (None: they need not, as far as is known)."""
        self.needs_code = codes.REMOTE_SIGN_IN_REQUIRED.code
        """The diagnostic code of ``needs_sign_in``."""
        self.report: Report = lambda code, message: log(f"{code}: {message}")
        """Called with each new problem (set by the host: an ``update`` diagnostic)."""
        self.refreshes = 0

    # -- what is held -----------------------------------------------------------------

    @property
    def tokens(self) -> Tokens | None:
        return self._record.tokens if self._record is not None else None

    def refresh_at(self) -> float | None:
        """When the timer refreshes the current token (None: it does not)."""
        tokens = self.tokens
        if tokens is None or tokens.expires_at is None or tokens.refresh_token is None:
            return None
        lifetime = tokens.lifetime or 0.0
        if lifetime < TIMER_MIN_LIFETIME:
            return None
        return tokens.expires_at - refresh_lead(lifetime)

    def _due(self, tokens: Tokens) -> bool:
        if tokens.expires_at is None or tokens.refresh_token is None:
            return False
        return self._clock() >= tokens.expires_at - refresh_lead(tokens.lifetime or 0.0)

    async def load(self, *, again: bool = False) -> None:
        """Read the sign-in (once; ``again``: what ``gateway auth`` or another host wrote
        since)."""
        if self._loaded and not again:
            return
        self._loaded = True
        record = await anyio.to_thread.run_sync(self._read)
        if record is not None and record.url == self._url and record.tokens is not None:
            held = self._record.tokens if self._record is not None else None
            if record.tokens != held:
                self.needs_sign_in = None  # a person signed in again
        self._adopt(record)

    def _read(self) -> SignIn | None:
        try:
            return read_sign_in(self._folder, self._server)
        except SignInError as error:
            log(f"{self._server}: the sign-in cannot be read: {error}")
            return None

    def _adopt(self, record: SignIn | None) -> None:
        if record is not None and record.url != self._url:
            record = None  # made for another URL: its token is never sent here
        self._record = record
        self._changed.set()
        self._changed = anyio.Event()

    # -- what the transport asks ---------------------------------------------------------

    async def bearer(self) -> str | None:
        """The access token to send now, refreshed first when its time has come."""
        await self.load(again=self.tokens is None and self._loaded)
        tokens = self.tokens
        if tokens is not None and self._due(tokens):
            await self.refresh(tokens.access_token)
            tokens = self.tokens
        return tokens.access_token if tokens is not None else None

    async def rejected(self, sent: str | None) -> str | None:
        """The server answered 401 to ``sent``: another token to try once, or None (then
        ``needs_sign_in`` says why, unless the refresh only failed for now)."""
        tokens = self.tokens
        if tokens is not None and tokens.access_token != sent:
            return tokens.access_token  # refreshed meanwhile
        if tokens is None or tokens.refresh_token is None:
            record = self._record
            if record is not None and record.refused:
                self._sign_in_needed(record.refused)
            elif tokens is None:
                self._sign_in_needed("the server asks for a sign-in and none was made")
            else:
                self._sign_in_needed("the access token was refused and cannot be refreshed")
            return None
        await self.refresh(tokens.access_token, rejected=True)
        fresh = self.tokens
        return fresh.access_token if fresh is not None and fresh.access_token != sent else None

    async def refresh(self, stale: str, *, rejected: bool = False) -> bool:
        """Refresh ``stale`` unless another caller already did; True when a fresh token is
        held afterwards."""
        async with self._lock:
            tokens = self.tokens
            if tokens is None or tokens.access_token != stale:
                return tokens is not None
            try:
                fd: int | None = await anyio.to_thread.run_sync(lock_sign_ins, self._folder)
            except OSError as error:
                log(f"{self._server}: refreshing without the sign-in lock: {error}")
                fd = None
            try:
                on_disk = await anyio.to_thread.run_sync(self._read)
                held = on_disk.tokens if on_disk is not None and on_disk.url == self._url else None
                if held is not None and held.access_token != stale and not self._due(held):
                    self._adopt(on_disk)  # another host refreshed it
                    return True
                return await self._refresh(on_disk or self._record, rejected)
            finally:
                if fd is not None:
                    os.close(fd)

    # -- the refresh grant (RFC 6749 §6) ---------------------------------------------------

    async def _refresh(self, record: SignIn | None, rejected: bool) -> bool:
        tokens = record.tokens if record is not None else None
        if record is None or tokens is None or tokens.refresh_token is None:
            self._sign_in_needed("the sign-in has no refresh token")
            return False
        client_id = str(record.client.get("client_id") or "")
        data = {"grant_type": "refresh_token", "refresh_token": tokens.refresh_token,
                "client_id": client_id}  # fmt: skip
        if record.resource:
            data["resource"] = record.resource
        headers = {"Accept": "application/json"}
        secret = record.client.get("client_secret")
        method = record.client.get("token_endpoint_auth_method")
        if isinstance(secret, str) and secret and method == "client_secret_basic":
            pair = f"{quote(client_id, safe='')}:{quote(secret, safe='')}"
            headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
        elif isinstance(secret, str) and secret and method == "client_secret_post":
            data["client_secret"] = secret
        endpoint = record.token_endpoint or "{}://{}/token".format(*origin(record.url))
        why = "after a 401" if rejected else "before it expires"
        import httpx2  # here: a host whose server is never connected does not import it

        try:
            async with self._http() as http:
                response = await http.post(endpoint, data=data, headers=headers)
            body = response.content
        except (httpx2.HTTPError, OSError) as error:
            return self._failed(f"the token endpoint could not be reached ({error})")
        answer = _json(body)
        if response.status_code != 200:
            kind = str(answer.get("error") or "")
            if response.status_code in (400, 401) and kind in _REFUSALS:
                said = printable(str(answer.get("error_description") or "")[:200])
                refused = f"the refresh token was refused ({kind}{': ' + said if said else ''})"
                self._store(record.with_tokens(None, refused))
                self._sign_in_needed(refused)
                return False
            return self._failed(f"the token endpoint answered HTTP {response.status_code}")
        access = answer.get("access_token")
        expires_in = answer.get("expires_in")
        if not isinstance(access, str) or not access:
            return self._failed("the token endpoint's answer has no access_token")
        now = self._clock()
        fresh = Tokens(
            access_token=access,
            # RFC 6749 §6: a refresh token and scope left out are the old ones.
            refresh_token=_text(answer.get("refresh_token")) or tokens.refresh_token,
            scope=_text(answer.get("scope")) or tokens.scope,
            expires_at=now + expires_in
            if isinstance(expires_in, int | float) and not isinstance(expires_in, bool)
            else None,
            obtained_at=now,
        )
        self._store(record.with_tokens(fresh))
        self._failing = False
        self.refreshes += 1
        log(f"{self._server}: access token refreshed {why}")
        return True

    def _store(self, record: SignIn) -> None:
        self._adopt(record)
        try:
            write_sign_in(self._folder, record)
        except SignInError as error:
            log(f"{self._server}: the refreshed sign-in could not be written: {error}")

    def _failed(self, why: str) -> bool:
        if not self._failing:
            self._failing = True
            message = f"MCP server {self._server!r}: refreshing its access token failed: {why}"
            self.report(codes.REMOTE_REFRESH_FAILED.code, message)
        return False

    def insufficient(self, scope: str | None) -> None:
        """The server answered 403 ``insufficient_scope`` (naming the scope, or describing
        it, if it did)."""
        named = f" (it says {printable(scope[:200])!r})" if scope else ""
        why = f"the server needs scopes the sign-in was not granted{named}"
        self._sign_in_needed(why, codes.REMOTE_SCOPE_INSUFFICIENT.code)

    def _sign_in_needed(self, why: str, code: str = codes.REMOTE_SIGN_IN_REQUIRED.code) -> None:
        if self.needs_sign_in is None:
            self.needs_sign_in, self.needs_code = why, code
            message = f"MCP server {self._server!r} needs a person to sign in: {why}"
            self.report(code, message)

    # -- the timer ---------------------------------------------------------------------------

    async def keep_fresh(self, sleep: Sleep = anyio.sleep) -> None:
        """Refresh each token at its ``refresh_at``, for as long as the host runs."""
        await self.load()
        while True:
            at = self.refresh_at()
            tokens = self.tokens
            if at is None or tokens is None:
                await self._changed.wait()
                continue
            await sleep(max(0.0, at - self._clock()))
            if self.tokens is tokens and not await self.refresh(tokens.access_token):
                if self.needs_sign_in is not None:
                    continue  # parked on the next change (a record adopted)
                await sleep(RETRY_SECONDS)


def _client() -> httpx2.AsyncClient:
    import httpx2

    return httpx2.AsyncClient(timeout=REQUEST_SECONDS)


def _json(body: bytes) -> dict[str, object]:
    try:
        value = json.loads(body)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
