"""A package's sign-ins to the remote MCP servers it connects to (OAuth 2.1, ``gateway auth``),
kept like its secrets: outside the package, under ``GATEWAY_HOME/sign-ins/`` (a folder only
the owner may enter), one folder per package and one file per server in it, only the owner
may read, replaced atomically. Nothing here prints, logs or returns a token except
``read_sign_in``, whose callers (the package's plugin host, ``gateway auth``) use them;
``SignIn.describe`` says only signed in, until when, and whether it can be refreshed.

The package's folder is the one place its plugin host may write beside its data: the host
refreshes the tokens there, because an authorization server that rotates refresh tokens
spends the old one, and a start that read a spent one would need a person again. Hosts of
the same package in two gateways take ``sign_in_lock`` around a refresh, and each reads
what the other wrote before refreshing itself.

The stamp beside the folder (``<folder>.stamp``), written only by ``gateway auth`` (the host
cannot write there), tells a running gateway that a person signed in: its settings watch
restarts the package, and the server's tools are listed again.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gateway.base import MAX_NAME_BYTES, GatewayError, private_dir, safe_join, write_json_atomically

__all__ = [
    "SignIn",
    "SignInError",
    "Tokens",
    "forget_sign_in",
    "lock_sign_ins",
    "read_sign_in",
    "sign_in_folder",
    "sign_in_lock",
    "sign_in_stamp",
    "sign_ins_dir",
    "stamp_sign_in",
    "write_sign_in",
]

_SLUG_BYTES = MAX_NAME_BYTES - len("-123456789012.stamp")
_FORMAT = 1


class SignInError(GatewayError):
    """A sign-in file that cannot be read or written."""


def sign_ins_dir(home: Path) -> Path:
    return home / "sign-ins"


def _slug(name: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")[:_SLUG_BYTES] or "x"
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{slug}-{digest}"


def sign_in_folder(home: Path, package_id: str) -> Path:
    """``GATEWAY_HOME/sign-ins/<slug>-<digest>/``: any package id maps to one folder."""
    return safe_join(sign_ins_dir(home), _slug(package_id), portable=False)


def sign_in_stamp(home: Path, package_id: str) -> Path:
    """``GATEWAY_HOME/sign-ins/<slug>-<digest>.stamp``, beside the package's folder."""
    return safe_join(sign_ins_dir(home), f"{_slug(package_id)}.stamp", portable=False)


def _record_path(folder: Path, server: str) -> Path:
    return safe_join(folder, f"{_slug(server)}.json", portable=False)


@dataclass(frozen=True, slots=True)
class Tokens:
    access_token: str
    refresh_token: str | None = None
    scope: str | None = None
    expires_at: float | None = None
    """Absolute (seconds since the epoch): what the server's ``expires_in`` meant when the
    tokens arrived. None: the server said nothing, the token is used until refused."""
    obtained_at: float = 0.0
    token_type: str = "Bearer"

    @property
    def lifetime(self) -> float | None:
        if self.expires_at is None:
            return None
        return max(0.0, self.expires_at - self.obtained_at)


@dataclass(frozen=True, slots=True)
class SignIn:
    """One server's sign-in: where to refresh, as whom, and the tokens."""

    server: str
    url: str
    """The MCP server's URL the tokens are for: never sent anywhere else."""
    token_endpoint: str | None = None
    issuer: str | None = None
    resource: str | None = None
    """The RFC 8707 resource indicator sent at sign-in (sent again on refresh), if any."""
    client: dict[str, Any] = field(default_factory=dict)
    """The OAuth client as registered (``client_id``, ``client_secret``,
    ``token_endpoint_auth_method``, ``redirect_uris``…): the SDK's client information."""
    tokens: Tokens | None = None
    refused: str | None = None
    """Why the authorization server refused the last refresh (the tokens are then gone)."""
    signed_in_at: float | None = None

    def with_tokens(self, tokens: Tokens | None, refused: str | None = None) -> SignIn:
        return replace(self, tokens=tokens, refused=refused)

    def describe(self, now: float | None = None) -> dict[str, Any]:
        """What may be shown: never a token or a client secret."""
        now = time.time() if now is None else now
        tokens = self.tokens
        state = "signed-in" if tokens is not None else "refused" if self.refused else "signed-out"
        if tokens is not None and tokens.expires_at is not None and tokens.expires_at <= now:
            state = "expired" if tokens.refresh_token is None else "signed-in"
        described: dict[str, Any] = {
            "server": self.server,
            "url": self.url,
            "state": state,
            "issuer": self.issuer,
            "expires_at": tokens.expires_at if tokens else None,
            "refreshable": bool(tokens and tokens.refresh_token),
            "signed_in_at": self.signed_in_at,
        }
        if self.refused:
            described["refused"] = self.refused
        return described

    def to_json(self) -> dict[str, Any]:
        tokens = self.tokens
        return {
            "format": _FORMAT,
            "server": self.server,
            "url": self.url,
            "token_endpoint": self.token_endpoint,
            "issuer": self.issuer,
            "resource": self.resource,
            "client": self.client,
            "tokens": None if tokens is None else {
                "access_token": tokens.access_token, "refresh_token": tokens.refresh_token,
                "scope": tokens.scope, "expires_at": tokens.expires_at,
                "obtained_at": tokens.obtained_at, "token_type": tokens.token_type,
            },
            "refused": self.refused,
            "signed_in_at": self.signed_in_at,
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: object) -> SignIn:
        """Raises ``SignInError`` for anything but this module's own shape."""
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            raise SignInError("not a sign-in file")
        text = _texts(data, ("server", "url"), required=True)
        optional = _texts(data, ("token_endpoint", "issuer", "resource", "refused"))
        client = data.get("client") or {}
        if not isinstance(client, dict):
            raise SignInError("client is not an object")
        raw = data.get("tokens")
        tokens = None
        if raw is not None:
            if not isinstance(raw, dict):
                raise SignInError("tokens is not an object")
            names = _texts(raw, ("access_token",), required=True)
            extra = _texts(raw, ("refresh_token", "scope", "token_type"))
            tokens = Tokens(
                access_token=names["access_token"],
                refresh_token=extra["refresh_token"],
                scope=extra["scope"],
                expires_at=_number(raw.get("expires_at")),
                obtained_at=_number(raw.get("obtained_at")) or 0.0,
                token_type=extra["token_type"] or "Bearer",
            )
        return cls(
            server=text["server"], url=text["url"], token_endpoint=optional["token_endpoint"],
            issuer=optional["issuer"], resource=optional["resource"], client=dict(client),
            tokens=tokens, refused=optional["refused"],
            signed_in_at=_number(data.get("signed_in_at")),
        )  # fmt: skip


def _texts(
    data: dict[str, Any], keys: tuple[str, ...], *, required: bool = False
) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key in keys:
        value = data.get(key)
        if value is None and not required:
            found[key] = None
        elif not isinstance(value, str) or not value:
            raise SignInError(f"{key} is not a non-empty string")
        else:
            found[key] = value
    return found


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def read_sign_in(folder: Path, server: str) -> SignIn | None:
    """The server's sign-in (None when there is none). Raises ``SignInError``."""
    path = _record_path(folder, server)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise SignInError(f"{path}: cannot be read ({type(error).__name__})") from None
    try:
        record = SignIn.from_json(json.loads(text))
    except ValueError:
        raise SignInError(f"{path}: not JSON") from None
    except SignInError as error:
        raise SignInError(f"{path}: {error}") from None
    if record.server != server:
        raise SignInError(f"{path}: holds the sign-in of another server")
    return record


def write_sign_in(folder: Path, record: SignIn) -> None:
    """Replace the server's sign-in (0600, flushed to the disk: a refresh token the
    authorization server rotated exists nowhere else). Raises ``SignInError``."""
    try:
        private_dir(folder)
        write_json_atomically(_record_path(folder, record.server), record.to_json(), durable=True)
    except OSError as error:
        raise SignInError(f"{folder}: cannot be written ({error.strerror or error})") from None


def forget_sign_in(folder: Path, server: str) -> bool:
    """Remove the server's sign-in; True when there was one."""
    try:
        _record_path(folder, server).unlink()
    except FileNotFoundError:
        return False
    return True


def stamp_sign_in(home: Path, package_id: str) -> None:
    """Say that a person signed in (``gateway auth``): a running gateway restarts the package."""
    stamp = sign_in_stamp(home, package_id)
    private_dir(stamp.parent)
    write_json_atomically(stamp, {"signed_in_at": time.time(), "nonce": os.urandom(8).hex()})


def lock_sign_ins(folder: Path) -> int:
    """Take the package's sign-in lock, waiting for it: the descriptor that holds it (the
    lock is the open file's, so it may be taken in a worker thread and given back, by
    closing the descriptor, in the event loop). Held while a sign-in is read, refreshed and
    written back, so two hosts of the same package never spend one refresh token twice."""
    private_dir(folder)
    fd = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except BaseException:
        os.close(fd)
        raise
    return fd


@contextlib.contextmanager
def sign_in_lock(folder: Path) -> Iterator[None]:
    """``lock_sign_ins`` as a context (blocking: from a thread in async code)."""
    fd = lock_sign_ins(folder)
    try:
        yield
    finally:
        os.close(fd)  # closing releases the lock
