"""What ``gateway auth`` asks an adapter whose packages connect to remote MCP servers a
person signs in to (OAuth 2.1): the servers, and one sign-in at a time (``SignsIn``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gateway.base import GatewayError

__all__ = ["RemoteServer", "SignInFailed", "SignInPrompt", "SignedIn"]


@dataclass(frozen=True, slots=True)
class RemoteServer:
    name: str
    url: str
    transport: str
    grant: str
    """The permission that opens the package's sandbox to it (``network:HOST:PORT``)."""


@dataclass(frozen=True, slots=True)
class SignInPrompt:
    """How the person is asked: ``show`` gets the authorization URL (to print, to open in
    a browser); the loopback redirect is awaited ``timeout`` seconds."""

    show: Callable[[str], None]
    timeout: float = 300.0


@dataclass(frozen=True, slots=True)
class SignedIn:
    server: str
    needed: bool
    """False: the server answered without asking for a sign-in (nothing was stored)."""
    tools: int
    expires_at: float | None = None
    refreshable: bool = False


class SignInFailed(GatewayError):
    """The sign-in did not complete; ``str()`` says why, for a person, and ``code`` is the
    diagnostic code of the adapter that raised it (None: not known)."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code
