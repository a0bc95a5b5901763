"""``serve --http --oauth-issuer URL``: the MCP server as an OAuth 2.1 resource server.

MCP's authorization spec (2025-06-18 onwards) has the MCP server validate access tokens an
authorization server issued, and publish where that server is (RFC 9728 protected-resource
metadata, linked from every 401's ``WWW-Authenticate``). Here:

- a bearer that is a JWT is checked against the issuer's JWKS (PyJWT's ``PyJWKClient``,
  keys cached): signature with an asymmetric algorithm only (never ``none`` or a shared
  secret), ``iss`` = the issuer, ``aud`` = this resource, ``exp`` required, 30 s leeway;
- ``--oauth-scope`` names a scope every token must carry (else 403 ``insufficient_scope``);
  scopes ``package:ID`` limit the token to those packages, as ``gateway token create
  --package`` does;
- the JWKS address comes from ``--oauth-jwks``, or from the issuer's metadata
  (``/.well-known/oauth-authorization-server``, then ``openid-configuration``) at start;
- the gateway's own tokens (``gateway token create``) keep working beside OAuth.

The token's name in the call log and for the per-token limits (calls, rate, sessions) is
``oauth:`` and the user it was issued for (``sub``), or its client (``client_id``, ``azp``)
when it names no user: two users of one client are two identities, and a session opened by
one is not found by the other (the session is bound to the client and the ``sub``).
"""

from __future__ import annotations

import json
import urllib.request
from dataclasses import dataclass
from typing import Any

import anyio
import jwt

from gateway.base import printable
from gateway.serve._codes import SERVE_OAUTH_UNAVAILABLE
from gateway.serve._open import ServeError
from gateway.serve._tokens import TokenRecord

__all__ = ["ALGORITHMS", "OAuthSettings", "OAuthVerdict", "OAuthVerifier", "looks_like_jwt"]

ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA")
"""Asymmetric only: a shared-secret (HS*) or unsigned token is never accepted."""
PACKAGE_SCOPE = "package:"
_LEEWAY = 30
_FETCH_TIMEOUT = 10
_NAME_MAX = 80


def looks_like_jwt(token: str) -> bool:
    return token.count(".") == 2 and all(token.split("."))


@dataclass(frozen=True, slots=True)
class OAuthSettings:
    issuer: str
    resource: str
    """This server's MCP URL as clients reach it: the audience tokens must name."""
    jwks_url: str | None = None
    required_scope: str | None = None
    audience: str | None = None
    """Another audience than ``resource`` (an authorization server that names APIs)."""


@dataclass(frozen=True, slots=True)
class OAuthVerdict:
    record: TokenRecord | None
    error: str = ""
    """``invalid_token`` or ``insufficient_scope`` when ``record`` is None."""
    description: str = ""


class OAuthVerifier:
    """Checks JWT access tokens against one issuer's keys (``start`` first)."""

    def __init__(self, settings: OAuthSettings) -> None:
        self.settings = settings
        self._keys: jwt.PyJWKClient | None = None

    async def start(self) -> None:
        """Find the JWKS (``ServeError`` ``serve.oauth_unavailable`` when it cannot)."""
        url = self.settings.jwks_url
        if not url:
            url = await anyio.to_thread.run_sync(self._discover)
        self._keys = jwt.PyJWKClient(url, cache_keys=True, lifespan=300, timeout=_FETCH_TIMEOUT)

    def _discover(self) -> str:
        issuer = self.settings.issuer.rstrip("/")
        tried = []
        for well_known in ("oauth-authorization-server", "openid-configuration"):
            url = f"{issuer}/.well-known/{well_known}"
            tried.append(url)
            try:
                with urllib.request.urlopen(url, timeout=_FETCH_TIMEOUT) as response:
                    document = json.loads(response.read(1 << 20))
            except (OSError, ValueError):
                continue
            found = document.get("jwks_uri") if isinstance(document, dict) else None
            if isinstance(found, str) and found.startswith(("https://", "http://")):
                return found
        raise ServeError(
            SERVE_OAUTH_UNAVAILABLE(
                f"no JWKS address for issuer {printable(issuer)}: none of {', '.join(tried)} "
                "answered with a jwks_uri",
                hint="give the issuer's key set with --oauth-jwks URL",
            )
        )

    def metadata(self) -> dict[str, Any]:
        """RFC 9728 protected-resource metadata."""
        scopes = [self.settings.required_scope] if self.settings.required_scope else []
        return {
            "resource": self.settings.resource,
            "authorization_servers": [self.settings.issuer],
            "bearer_methods_supported": ["header"],
            "scopes_supported": scopes,
        }

    async def verify(self, token: str) -> OAuthVerdict:
        keys = self._keys
        if keys is None:
            return OAuthVerdict(None, "invalid_token", "the server has no keys yet")
        try:
            key = await anyio.to_thread.run_sync(keys.get_signing_key_from_jwt, token)
            claims = jwt.decode(
                token,
                key.key,
                algorithms=list(ALGORITHMS),
                audience=self.settings.audience or self.settings.resource,
                issuer=self.settings.issuer,
                leeway=_LEEWAY,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.PyJWKClientConnectionError:
            return OAuthVerdict(None, "invalid_token", "the issuer's keys cannot be fetched")
        except (jwt.PyJWTError, ValueError, TypeError) as error:
            return OAuthVerdict(None, "invalid_token", _reason(error))
        scopes = _scopes(claims)
        wanted = self.settings.required_scope
        if wanted and wanted not in scopes:
            return OAuthVerdict(None, "insufficient_scope", f"the token lacks scope {wanted}")
        packages = tuple(s[len(PACKAGE_SCOPE) :] for s in scopes if s.startswith(PACKAGE_SCOPE))
        client = claims.get("client_id") or claims.get("azp")
        subject = claims.get("sub")
        who = subject or client or "unknown"
        name = "oauth:" + printable(str(who))[:_NAME_MAX]
        expires = claims.get("exp")
        record = TokenRecord(
            name=name,
            sha256="",
            packages=packages,
            expires=float(expires) if isinstance(expires, int | float) else None,
            identity=f"{client or ''}\x00{subject or ''}",
            subject=printable(str(claims["sub"]))[:_NAME_MAX] if claims.get("sub") else None,
        )
        return OAuthVerdict(record)


def _scopes(claims: dict[str, Any]) -> list[str]:
    raw = claims.get("scope", claims.get("scp", ""))
    if isinstance(raw, str):
        return raw.split()
    if isinstance(raw, list):
        return [s for s in raw if isinstance(s, str)]
    return []


def _reason(error: Exception) -> str:
    """What was wrong, without echoing the token."""
    if isinstance(error, jwt.ExpiredSignatureError):
        return "the token has expired"
    if isinstance(error, jwt.InvalidAudienceError):
        return "the token is for another resource"
    if isinstance(error, jwt.InvalidIssuerError):
        return "the token is from another issuer"
    if isinstance(error, jwt.InvalidAlgorithmError):
        return "the token's algorithm is not accepted"
    if isinstance(error, jwt.PyJWKClientError):
        return "the token's signing key is not in the issuer's key set"
    if isinstance(error, jwt.InvalidSignatureError):
        return "the token's signature does not verify"
    return "the token is not valid"
