"""How the plugin host reaches one remote MCP server: streamable HTTP, or SSE where the entry
declares it, through the MCP SDK's client transports, with the entry's headers (``${VAR}``
filled from the package's secrets and granted variables: never logged) and, unless a
header already carries ``Authorization``, the OAuth client of ``_oauth_client``.

Before connecting, what would fail less clearly later is said first: a header variable
with no value (``remote_mcp.header_unset``), a sandbox without the network grant
(``remote_mcp.not_granted``: the host tries to make a socket; the sandbox refuses one to a
package that was not granted ``network:HOST:PORT``). The SDK's transports and ``httpx2``
(``_remote_transport``, ~0.9 s of CPU to import) are imported when a server is connected
(``_reach`` made a connection first), not for a server that cannot be.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from adapters.plugin_host import _codes as codes
from adapters.plugin_host._config import RemoteSpec
from adapters.plugin_host._oauth_client import TokenKeeper
from adapters.plugin_host._reach import network_denied, reach
from adapters.plugin_host._remote_spec import VARIABLE

__all__ = ["RemoteLink", "expand_headers", "network_denied"]


def expand_headers(
    headers: Mapping[str, str], env: Mapping[str, str]
) -> tuple[dict[str, str], list[str]]:
    """The headers with ``${NAME}`` / ``${NAME:-default}`` filled from ``env``, and the
    names that have no value (``:-``'s default applies when unset or empty, as in a shell)."""
    missing: list[str] = []

    def fill(match: Any) -> str:
        name, default = match.group(1), match.group(2)
        value = env.get(name)
        if value:
            return value
        if default is not None:
            return str(default)
        if value is None and name not in missing:
            missing.append(name)
        return ""

    return {key: VARIABLE.sub(fill, value) for key, value in headers.items()}, missing


class RemoteLink:
    """One remote server: its headers, its OAuth client, its transport, and what to say
    when it cannot be reached."""

    def __init__(
        self, spec: RemoteSpec, package: str, sign_ins: str | None, env: Mapping[str, str]
    ) -> None:
        self.spec, self.package = spec, package
        self.headers, self.missing = expand_headers(spec.headers, env)
        static = any(name.lower() == "authorization" for name in self.headers)
        self.keeper: TokenKeeper | None = None
        if sign_ins is not None and not static:
            self.keeper = TokenKeeper(Path(sign_ins), spec.name, spec.url)

    @property
    def needs_sign_in(self) -> str | None:
        return self.keeper.needs_sign_in if self.keeper is not None else None

    def sign_in_text(self) -> str:
        return (
            f"MCP server {self.spec.name!r} needs a person to sign in "
            f"({self.needs_sign_in}); run `gateway auth {self.package}`"
        )

    def problem(self) -> tuple[str, str] | None:
        """(code, message) when the server cannot be connected at all."""
        name = self.spec.name
        if self.missing:
            names = ", ".join(self.missing)
            secrets = " ".join(f"`gateway secret set {self.package} {n}`" for n in self.missing)
            return codes.REMOTE_HEADER_UNSET.code, (
                f"MCP server {name!r} is not connected: its headers name {names}, which has no "
                f"value; set it: {secrets}"
            )
        if network_denied():
            return codes.REMOTE_NOT_GRANTED.code, (
                f"MCP server {name!r} ({self.spec.url}) is not connected: the package's "
                f"sandbox has no network for it; grant it: "
                f"`gateway permissions {self.package} {self.spec.grant}`"
            )
        return None

    def failure(self, why: str) -> tuple[str, str]:
        """(code, message) for a connection that failed with ``why``."""
        if self.keeper is not None and self.keeper.needs_sign_in is not None:
            return self.keeper.needs_code, self.sign_in_text()
        return codes.REMOTE_UNREACHABLE.code, (
            f"MCP server {self.spec.name!r} ({self.spec.url}) could not be connected: {why}"
        )

    async def reach(self) -> None:
        """What the SDK's client does before its first connection — the bearer of the
        sign-in read and, when its time has come, refreshed (``BearerAuth``, which runs
        before the request is sent) — then a connection without the SDK (``_reach``),
        raising what the SDK's client would when the server cannot be connected."""
        if self.keeper is not None:
            await self.keeper.bearer()
        await reach(self.spec.url)

    def transport(self) -> Any:
        """The SDK transport (an async context of the two streams), SSE or streamable HTTP."""
        from adapters.plugin_host._remote_transport import transport

        return transport(self.spec, self.headers, self.keeper)
