"""nanobot's command routing: exact commands, then prefixes, longest first.

``register_command("/review", h)`` answers exactly ``/review``; ``register_command(
"/review", h, prefix=True)`` registers the prefix ``/review `` (a space appended, as
upstream does) and answers ``/review anything``, with ``ctx.args`` the text after the
prefix. Matching is case-insensitive; ``ctx.raw`` and ``ctx.args`` keep the user's case.

The gateway knows commands by their first word: ``/git log `` and ``/git status`` both
arrive as the gateway command ``git`` and are routed here, from ``/git`` plus the
arguments. One leniency over upstream: a bare ``/review`` with only the ``/review ``
prefix registered goes to that handler with ``args == ""`` (upstream would hand the text
to the model), because a gateway user typing ``/review`` means the command.
"""

from __future__ import annotations

from ._channel import log
from ._shim_records import CommandContext, InboundMessage

# For type checkers only: importing typing would cost the sidecar ≈7 ms at start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["CommandRouter", "Route", "normalize_command"]


class Route:
    __slots__ = ("gateway_name", "handler", "key", "owner", "prefix")

    def __init__(self, owner: str, key: str, handler: Callable[..., Any], prefix: bool) -> None:
        self.owner, self.key, self.handler, self.prefix = owner, key, handler, prefix
        self.gateway_name = key[1:].split(" ", 1)[0]


def normalize_command(command: str, prefix: bool) -> str:
    """``Review`` → ``/review``; a prefix always ends with one space."""
    key = "/" + command.strip().lstrip("/").lower()
    if prefix:
        key = key.rstrip() + " "
    return key


class CommandRouter:
    def __init__(self) -> None:
        self.exact: dict[str, Route] = {}
        self.prefixes: list[Route] = []

    def find(self, key: str, prefix: bool) -> Route | None:
        if prefix:
            return next((r for r in self.prefixes if r.key == key), None)
        return self.exact.get(key)

    def add(self, route: Route) -> None:
        if route.prefix:
            self.prefixes.append(route)
            self.prefixes.sort(key=lambda r: len(r.key), reverse=True)
        else:
            self.exact[route.key] = route

    def remove(self, route: Route) -> None:
        if route.prefix:
            self.prefixes = [r for r in self.prefixes if r is not route]
        elif self.exact.get(route.key) is route:
            del self.exact[route.key]

    def routes(self) -> list[Route]:
        return [*self.exact.values(), *self.prefixes]

    def match(self, raw: str) -> tuple[Route, str] | None:
        text = raw.lower()
        route = self.exact.get(text)
        if route is not None:
            return route, ""
        for candidate in self.prefixes:
            if text.startswith(candidate.key):
                return candidate, raw[len(candidate.key) :]
        bare = next((r for r in self.prefixes if r.key == text + " "), None)
        return (bare, "") if bare is not None else None

    async def dispatch(
        self, name: str, arguments: str, session_id: str, loop: Any
    ) -> dict[str, Any]:
        raw = f"/{name} {arguments}".strip()
        found = self.match(raw)
        if found is None:
            return {"message": f"no /{name} handler matches {raw!r}"}
        route, args = found
        message = InboundMessage("gateway", "user", session_id, raw)
        context = CommandContext(
            msg=message,
            key=message.session_key,
            raw=raw,
            args=args,
            loop=loop,
            is_user_turn=True,
        )
        try:
            result = route.handler(context)
            if hasattr(result, "__await__"):
                result = await result
        except (Exception, SystemExit) as error:
            log(f"command {raw!r} of {route.owner} raised {error!r}")
            return {"message": f"/{name} failed: {error or type(error).__name__}"}
        return reply_fields(result)


def reply_fields(result: Any) -> dict[str, Any]:
    """A handler's return value as command reply fields (``message``, ``prompt``)."""
    if result is None:
        return {}
    if isinstance(result, str):
        return {"message": result} if result else {}
    if isinstance(result, dict):
        reply = {}
        for key in ("message", "prompt"):
            if result.get(key) is not None:
                reply[key] = str(result[key])
        return reply
    content = getattr(result, "content", None)
    if content is not None:
        return {"message": str(content)} if str(content) else {}
    return {"message": str(result)}
