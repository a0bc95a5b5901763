"""Serving requests after ``register``: every tool, command and event runs as its own task.

Upstream's Node sidecar handled one request at a time, so a hung call blocked every other
call until it timed out, and cancelling did nothing (nanobot-upstream.md §5.5). Here each
request is an asyncio task keyed by its id: calls overlap freely, ``cancel`` cancels the
task (the package sees ``CancelledError`` at its current ``await``) and no reply is sent for
it, as the host has stopped waiting. Events nobody here subscribed to are acknowledged at
once, without a task. With ``trace.context`` negotiated, each task carries its request's
own trace context (``_trace``), set first thing inside it.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Coroutine
from typing import Any

from ._channel import Channel, log
from ._registry import Registry
from ._tools import run_tool
from ._trace import enter

__all__ = ["serve"]

_READ_SIZE = 1 << 16
_LINE_CAP = 16 * 1024 * 1024
_DRAIN_SECONDS = 0.25
"""After ``shutdown`` or end of input, requests already running get this long to answer
(``printf … | sidecar`` debugging sees every reply) before they are cancelled; the host
waits longer than this before it signals the process."""


def serve(channel: Channel, registry: Registry, *, traced: bool = False) -> int:
    """Serve until ``shutdown`` or end of input; ``traced``: ``trace.context`` negotiated."""
    return asyncio.run(_serve(channel, registry, traced))


async def _serve(channel: Channel, registry: Registry, traced: bool) -> int:
    loop = asyncio.get_running_loop()
    eager = getattr(asyncio, "eager_task_factory", None)  # Python >= 3.12
    if eager is not None:
        # A call that never waits then answers inside the read callback: no extra trip
        # through the loop, and asyncio.current_task() is still right for the package.
        loop.set_task_factory(eager)
    server = _Server(channel, registry, loop, traced)
    loop.add_reader(channel.read_fd, server.on_readable)
    try:
        server.feed(channel.take_buffer())
        await server.closed
    finally:
        loop.remove_reader(channel.read_fd)
        running = list(server.tasks.values())
        if running:
            await asyncio.wait(running, timeout=_DRAIN_SECONDS)
        for task in running:
            task.cancel()
    return 0


class _Server:
    def __init__(
        self,
        channel: Channel,
        registry: Registry,
        loop: asyncio.AbstractEventLoop,
        traced: bool = False,
    ):
        self.channel = channel
        self.registry = registry
        self.loop = loop
        self.traced = traced
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.closed: asyncio.Future[None] = loop.create_future()
        self._buffer = b""

    # ------------------------------------------------------------------ input

    def on_readable(self) -> None:
        try:
            data = os.read(self.channel.read_fd, _READ_SIZE)
        except OSError:
            data = b""
        if not data:
            self.close()
            return
        self.feed(data)

    def feed(self, data: bytes) -> None:
        self._buffer += data
        while True:
            line, newline, rest = self._buffer.partition(b"\n")
            if not newline:
                if len(self._buffer) > _LINE_CAP:
                    log("dropped an input line over the 16 MiB cap")
                    self._buffer = b""
                return
            self._buffer = rest
            if line.strip():
                self.handle_line(line)

    def handle_line(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError as error:
            log(f"ignored a line that is not JSON: {error}")
            return
        if not isinstance(message, dict):
            return
        kind, request_id = message.get("type"), message.get("id")
        if kind == "shutdown":
            self.close()
        elif kind == "cancel":
            task = self.tasks.pop(str(request_id), None)
            if task is not None:
                task.cancel()
        elif not isinstance(request_id, str):
            if kind not in ("ui_response", "initialize"):
                log(f"ignored a {kind!r} message without an id")
        elif kind == "tool":
            self.start(request_id, self.tool(request_id, message))
        elif kind == "command":
            self.start(request_id, self.command(request_id, message))
        elif kind == "event":
            event = message.get("event")
            payload = message.get("payload")
            if event in self.registry.hooks.events() and isinstance(payload, dict):
                self.start(request_id, self.event(request_id, str(event), payload, message))
            else:
                self.reply(request_id, {})
        else:
            log(f"ignored a {kind!r} message")

    def close(self) -> None:
        if not self.closed.done():
            self.closed.set_result(None)

    # ------------------------------------------------------------------ requests

    def start(self, request_id: str, work: Coroutine[Any, Any, None]) -> None:
        task = self.loop.create_task(work)
        if not task.done():  # an eager task may have finished (and replied) already
            self.tasks[request_id] = task

    def reply(self, request_id: str, fields: dict[str, Any]) -> None:
        self.channel.send({"type": "response", "id": request_id, **fields})

    async def tool(self, request_id: str, message: dict[str, Any]) -> None:
        try:
            if self.traced:
                enter(message)
            name = str(message.get("name"))
            tool = self.registry.tool(name)
            arguments = message.get("arguments")
            if tool is None:
                content, is_error = f"unknown tool {name!r}", True
            else:
                content, is_error = await run_tool(tool, arguments or {})
            self.reply(request_id, {"content": content, "is_error": is_error})
        finally:
            self.tasks.pop(request_id, None)

    async def command(self, request_id: str, message: dict[str, Any]) -> None:
        try:
            if self.traced:
                enter(message)
            fields = await self.registry.router.dispatch(
                str(message.get("name")),
                str(message.get("arguments") or ""),
                self.registry.hooks.session_id,
                self.loop,
            )
            self.reply(request_id, fields)
        finally:
            self.tasks.pop(request_id, None)

    async def event(
        self, request_id: str, event: str, payload: dict[str, Any], message: dict[str, Any]
    ) -> None:
        try:
            if self.traced:
                enter(message)
            try:
                fields = await self.registry.hooks.handle(event, payload)
            except (Exception, SystemExit) as error:
                log(f"{event} hooks failed: {error!r}")
                fields = {}
            self.reply(request_id, fields)
        finally:
            self.tasks.pop(request_id, None)
