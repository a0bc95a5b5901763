"""Bearer tokens for ``gateway serve --mcp --http``: ``GATEWAY_HOME/tokens.json``.

A token is 32 random bytes (``gw_`` + URL-safe base64), shown once when it is made; the
file keeps only its SHA-256, compared with ``hmac.compare_digest``. Each token has a name
(what ``list``, ``revoke`` and the call log say), the packages it is scoped to (none: every
package served) and an expiry (none: it never expires). The file is private (0600 in a
0700 home) and replaced atomically; a running server reads it again whenever it changes,
so a revoked token stops working at its next request.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gateway.base import Diagnostic, GatewayError, private_dir, private_file
from gateway.serve._codes import (
    SERVE_TOKEN_EXISTS,
    SERVE_TOKEN_INVALID,
    SERVE_TOKEN_UNKNOWN,
    SERVE_TOKENS_UNREADABLE,
)

__all__ = [
    "TOKENS_FILE",
    "TokenError",
    "TokenRecord",
    "TokenStore",
    "parse_duration",
]

TOKENS_FILE = "tokens.json"
_PREFIX = "gw_"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_MAX_SECONDS = 10 * 366 * 86400


class TokenError(GatewayError):
    """A token verb cannot be done; ``diagnostic`` says why (with its code)."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


@dataclass(frozen=True, slots=True)
class TokenRecord:
    name: str
    sha256: str
    packages: tuple[str, ...] = ()
    """The packages whose tools the token sees; () means every package served."""
    created: float = 0.0
    expires: float | None = None
    metrics: bool = False
    """A metrics token (``gateway token create NAME --metrics``): it reads ``/metrics`` of
    a server started with ``--metrics token``, and nothing else (``/mcp`` refuses it)."""
    subject: str | None = None
    """An OAuth access token's ``sub`` (the audit trail's ``subject``); None for a token of
    this file."""
    identity: str = ""
    """Who holds it, when more than the token itself says (an OAuth token's client and
    ``sub``): the identity sessions are bound to beside the name."""

    def expired(self, now: float | None = None) -> bool:
        return self.expires is not None and (time.time() if now is None else now) >= self.expires

    def allows(self, owner: str | None) -> bool:
        """Whether something ``owner`` contributes is within this token's scope."""
        return not self.packages or owner in self.packages

    def public(self) -> dict[str, Any]:
        """What ``gateway token list`` shows: never the hash."""
        return {
            "name": self.name,
            "packages": list(self.packages),
            "created": _iso(self.created),
            "expires": None if self.expires is None else _iso(self.expires),
            "expired": self.expired(),
            "metrics": self.metrics,
        }


def _iso(when: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when))


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def parse_duration(text: str) -> int:
    """``90s``, ``15m``, ``12h``, ``30d``, ``2w`` (or plain seconds) → seconds."""
    match = re.fullmatch(r"\s*(\d{1,9})\s*([smhdw]?)\s*", text)
    seconds = int(match[1]) * _UNITS[match[2] or "s"] if match else 0
    if not match or not 0 < seconds <= _MAX_SECONDS:
        raise TokenError(
            SERVE_TOKEN_INVALID(
                f"--expires {text!r} is not a duration (a number with s, m, h, d or w, "
                "e.g. 30d; at most ten years)"
            )
        )
    return seconds


class TokenStore:
    """The tokens of one gateway home."""

    def __init__(self, home: Path) -> None:
        self.path = home / TOKENS_FILE
        self._seen: tuple[int, int, int] | None = None
        self._records: tuple[TokenRecord, ...] = ()

    # ------------------------------------------------------------------ reading

    def records(self) -> tuple[TokenRecord, ...]:
        """Every token, read again when the file changed since the last read."""
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            self._seen, self._records = None, ()
            return ()
        except OSError as error:
            raise self._unreadable(str(error)) from None
        seen = (info.st_ino, info.st_mtime_ns, info.st_size)
        if seen != self._seen:
            self._records, self._seen = self._read(), seen
        return self._records

    def _read(self) -> tuple[TokenRecord, ...]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return tuple(
                TokenRecord(
                    name=str(item["name"]),
                    sha256=str(item["sha256"]),
                    packages=tuple(str(p) for p in item.get("packages", ())),
                    created=float(item.get("created", 0.0)),
                    expires=None if item.get("expires") is None else float(item["expires"]),
                    metrics=item.get("metrics", False) is True,
                )
                for item in data["tokens"]
            )
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise self._unreadable(f"{type(error).__name__}: {error}") from None

    def _unreadable(self, why: str) -> TokenError:
        return TokenError(
            SERVE_TOKENS_UNREADABLE(
                f"cannot read the tokens in {self.path}: {why}",
                hint=f"fix or remove {self.path} (then make new tokens)",
            )
        )

    def verify(self, token: str) -> TokenRecord | None:
        """The record of ``token`` when it is known and not expired; every record's hash
        is compared in constant time, so the time taken says nothing about which."""
        digest, found = _digest(token), None
        for record in self.records():
            if hmac.compare_digest(digest, record.sha256):
                found = record
        if found is None or not token.startswith(_PREFIX) or found.expired():
            return None
        return found

    # ------------------------------------------------------------------ writing

    def create(
        self,
        name: str,
        packages: tuple[str, ...] = (),
        expires_in: int | None = None,
        metrics: bool = False,
    ) -> tuple[str, TokenRecord]:
        """A new token: (the token itself, shown once; its record). ``metrics``: a token
        that reads ``/metrics`` only."""
        if not _NAME.fullmatch(name):
            raise TokenError(
                SERVE_TOKEN_INVALID(
                    f"token name {name!r} is not valid: 1-64 of A-Z a-z 0-9 _ . -, starting "
                    "with a letter or digit"
                )
            )
        records = self.records()
        if any(record.name == name for record in records):
            raise TokenError(
                SERVE_TOKEN_EXISTS(
                    f"a token named {name!r} exists already",
                    hint=f"gateway token revoke {name}, or choose another name",
                )
            )
        token = _PREFIX + secrets.token_urlsafe(32)
        now = time.time()
        record = TokenRecord(
            name=name,
            sha256=_digest(token),
            packages=tuple(dict.fromkeys(packages)),
            created=now,
            expires=None if expires_in is None else now + expires_in,
            metrics=metrics,
        )
        self._write((*records, record))
        return token, record

    def revoke(self, name: str) -> TokenRecord:
        records = self.records()
        kept = tuple(record for record in records if record.name != name)
        if len(kept) == len(records):
            raise TokenError(
                SERVE_TOKEN_UNKNOWN(
                    f"no token named {name!r}", hint="gateway token list names every token"
                )
            )
        self._write(kept)
        return next(record for record in records if record.name == name)

    def _write(self, records: tuple[TokenRecord, ...]) -> None:
        private_dir(self.path.parent)
        data = {
            "version": 1,
            "tokens": [
                {
                    "name": r.name,
                    "sha256": r.sha256,
                    "packages": list(r.packages),
                    "created": r.created,
                    "expires": r.expires,
                    **({"metrics": True} if r.metrics else {}),
                }
                for r in records
            ],
        }
        temporary = self.path.with_name(f".{TOKENS_FILE}.{os.getpid()}.tmp")
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        fd = private_file(temporary, exclusive=True)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=2)
                handle.write("\n")
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise
        self._seen = None
