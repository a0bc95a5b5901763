"""The loopback redirect of a sign-in (RFC 8252 §7.3): a listener on 127.0.0.1 that takes
the authorization server's redirect to ``/callback`` — the code, the state, the issuer
(RFC 9207) or an error — answers the browser with a short page, and hands the result to
the MCP SDK's OAuth client (its ``callback_handler``).

Only the first answer to ``/callback`` counts; any other path is a 404. A request line and
headers longer than ``_HEAD_LIMIT`` are cut off (a browser's never are).
"""

from __future__ import annotations

import contextlib
from types import TracebackType
from typing import Final
from urllib.parse import parse_qs, urlsplit

import anyio
from anyio.abc import SocketAttribute, SocketStream, TaskGroup
from anyio.streams.stapled import MultiListener

__all__ = ["LoopbackRedirect", "RedirectResult"]

_HEAD_LIMIT: Final = 16 * 1024
_PAGE: Final = (
    "<!doctype html><meta charset=utf-8><title>Extension Gateway</title>"
    "<p>{text}</p><p>You may close this tab.</p>"
)


class RedirectResult:
    def __init__(self, query: dict[str, list[str]]) -> None:
        def one(name: str) -> str | None:
            values = query.get(name)
            return values[0] if values else None

        self.code, self.state, self.iss = one("code"), one("state"), one("iss")
        self.error, self.error_description = one("error"), one("error_description")


class LoopbackRedirect:
    """``async with LoopbackRedirect(port) as redirect:`` — ``redirect.port`` is bound
    (0 asks for any free one); ``await redirect.wait()`` is the first callback."""

    def __init__(self, port: int = 0, path: str = "/callback") -> None:
        self._wanted, self._path = port, path
        self._listener: MultiListener[SocketStream] | None = None
        self._group: TaskGroup | None = None
        self._arrived = anyio.Event()
        self._result: RedirectResult | None = None

    @property
    def port(self) -> int:
        assert self._listener is not None
        return int(self._listener.listeners[0].extra(SocketAttribute.local_port))

    async def __aenter__(self) -> LoopbackRedirect:
        listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=self._wanted)
        self._listener = listener
        self._group = anyio.create_task_group()
        await self._group.__aenter__()
        self._group.start_soon(listener.serve, self._answer)
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> bool | None:
        assert self._group is not None and self._listener is not None
        # The listener's task only: what the body raised passes on as it is (a task group
        # would wrap it in an exception group).
        self._group.cancel_scope.cancel()
        try:
            await self._group.__aexit__(None, None, None)
        finally:
            await self._listener.aclose()
        return None

    async def wait(self) -> RedirectResult:
        """The redirect's parameters, once they came (the caller bounds the wait)."""
        await self._arrived.wait()
        assert self._result is not None
        return self._result

    async def _answer(self, stream: SocketStream) -> None:
        async with stream:
            head = b""
            with anyio.move_on_after(30):
                while b"\r\n\r\n" not in head and len(head) < _HEAD_LIMIT:
                    try:
                        head += await stream.receive()
                    except (anyio.EndOfStream, anyio.BrokenResourceError):
                        return
            line = head.split(b"\r\n", 1)[0].decode("latin-1")
            parts = line.split(" ")
            target = urlsplit(parts[1]) if len(parts) == 3 and parts[0] == "GET" else None
            if target is None or target.path != self._path or self._arrived.is_set():
                await _reply(stream, 404, "Nothing here.")
                return
            self._result = RedirectResult(parse_qs(target.query))
            self._arrived.set()
            said = "Signed in." if self._result.code else "The sign-in did not complete."
            await _reply(stream, 200, f"{said} The gateway carries on in the terminal.")


async def _reply(stream: SocketStream, status: int, text: str) -> None:
    body = _PAGE.format(text=text).encode()
    reason = "OK" if status == 200 else "Not Found"
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n"
    )
    with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
        await stream.send(head.encode() + body)
