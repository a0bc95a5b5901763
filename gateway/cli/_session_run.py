"""One command in the warm session: the gateway kept open (``Holder``: opened once, opened
again whenever what its load read has changed — an install, trust, grants, settings,
enable or disable by another command, a workspace extension added or edited, a program a
package names appearing on PATH), and a ``list``/``call``/``command`` run on it exactly as
the one-shot CLI runs it (``gateway.cli._workspace.run_verb``), its output streamed to the
client as it is written (docs/session.md).

Each command gets a session of its own (``Gateway.use_session``) and reports what the
one-shot run would: what the load said, and what this command added. What it writes for
people goes through the same output hygiene (``PrintableStream``); ``--json`` keeps exact
values. A client that goes away cancels its command.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import sys
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any, TextIO, cast

import anyio
from anyio.abc import SocketStream
from anyio.streams.buffered import BufferedByteReceiveStream
from anyio.streams.memory import MemoryObjectSendStream

from gateway.base import Diagnostic, GatewayConfig, PrintableStream, find_code
from gateway.cli._main import explained
from gateway.cli._workspace import call_arguments, run_verb
from gateway.host import Gateway, open_gateway

__all__ = ["Holder", "run_command"]

_TROUBLE = frozenset(
    {"extension.start_failed", "extension.exited", "register.invalid", "sandbox.refused"}
)
"""A package that did not start or ended: a one-shot run would start it again."""


def _troubling(diagnostic: Diagnostic) -> bool:
    """A package that did not start, ended, or started without all it needed (a code
    marked ``incomplete``: a remote server unreachable): the next command loads again."""
    if diagnostic.code in _TROUBLE:
        return True
    found = find_code(diagnostic.code)
    return found is not None and found.incomplete


class Holder:
    """The session's gateway: opened in ``run``'s task (its task group lives there), opened
    again on ``reopen``; ``gateway`` is None until it is open, or when it failed to open."""

    def __init__(
        self,
        workspace: Path,
        trust: bool,
        plan: bool,
        config: GatewayConfig,
        log: Callable[[str], None],
    ) -> None:
        self.workspace = workspace
        self._log = log
        self.trust = trust
        self.plan = plan
        self.config = config
        self.gateway: Gateway | None = None
        self.said = 0
        """How many diagnostics its load said: every command reports them."""
        self.failure: str | None = None
        self.troubled = False
        """A package failed to start or exited during the last command: the next one loads
        again (a one-shot run would have started it afresh)."""
        self.loads = 0
        self._opened = anyio.Event()
        self._again = anyio.Event()
        self._closing = False
        self.closed = anyio.Event()
        """Set once its gateway has closed, every process it started stopped."""

    async def run(self) -> None:
        try:
            await self._hold()
        finally:
            self.closed.set()

    async def _hold(self) -> None:
        while not self._closing:
            self._again = anyio.Event()
            try:
                async with open_gateway(
                    self.workspace,
                    trust=True if self.trust else None,
                    plan=self.plan,
                    config=self.config,
                ) as gateway:
                    self.gateway, self.said, self.failure = gateway, len(gateway.diagnostics), None
                    self.loads += 1
                    self._opened.set()
                    await self._again.wait()
                    self.gateway = None
            except Exception as error:  # the client runs the command one-shot and says it
                self.gateway, self.failure = None, f"{type(error).__name__}: {error}"
                self._opened.set()
                await self._again.wait()

    async def current(self) -> Gateway | None:
        """The gateway, opened again first when what its load read has changed (or when it
        failed to open last time)."""
        await self._opened.wait()
        gateway = self.gateway
        if gateway is None:
            self._log(f"loading again (it failed: {self.failure})")
            await self.reopen()
        elif self.troubled:
            self._log("loading again: a package failed to start or exited")
            await self.reopen()
        elif await gateway.inputs_changed():
            self._log("loading again: what its load read has changed")
            await self.reopen()
        return self.gateway

    async def reopen(self) -> None:
        self.troubled = False
        self._opened = anyio.Event()
        self._again.set()
        await self._opened.wait()

    async def close(self) -> None:
        self._closing = True
        self._again.set()


class _Frames(io.TextIOBase):
    """A text stream whose writes go to the client as frames (``out`` or ``err``)."""

    def __init__(self, name: str, send: MemoryObjectSendStream[bytes], tty: bool) -> None:
        self._name = name
        self._send = send
        self._tty = tty

    def write(self, text: str) -> int:
        if text:
            with_flush = {self._name: text}
            self._send.send_nowait(json.dumps(with_flush).encode() + b"\n")
        return len(text)

    def flush(self) -> None:
        self._send.send_nowait(json.dumps({self._name: "", "flush": True}).encode() + b"\n")

    def isatty(self) -> bool:
        return self._tty

    def writable(self) -> bool:
        return True


def _namespace(fields: dict[str, Any]) -> argparse.Namespace:
    args = argparse.Namespace(**fields)
    args.workspace = Path(fields["workspace"])
    return args


async def run_command(
    holder: Holder,
    request: dict[str, Any],
    stream: SocketStream,
    reader: BufferedByteReceiveStream,
) -> None:
    """Run one ``run`` request and answer it: output frames, then ``{"exit": code}`` (or
    ``{"fallback": …}`` when the gateway could not be opened, before anything ran)."""
    args = _namespace(request["args"])
    gateway = await holder.current()
    if gateway is None:
        reply = {"fallback": True, "why": f"it could not load: {holder.failure}"}
        await stream.send(json.dumps(reply).encode() + b"\n")
        return
    send, receive = anyio.create_memory_object_stream[bytes](math.inf)
    tty = bool(request.get("tty"))
    machine = bool(getattr(args, "json", False))
    out = cast(TextIO, _Frames("out", send, tty))
    streams = sys.stdout, sys.stderr
    sys.stdout = out if machine else PrintableStream(out)
    sys.stderr = PrintableStream(cast(TextIO, _Frames("err", send, tty)))
    columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(request.get("columns") or 100)
    start = gateway.diagnostics.mark()
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(_forward, receive, stream)
            watch = anyio.CancelScope()
            with anyio.CancelScope() as command:
                group.start_soon(_cancel_when_gone, reader, command, watch)
                code = await _run(gateway, holder.said, args)
            watch.cancel()
            if not command.cancelled_caught:  # else no one is left to tell
                send.send_nowait(json.dumps({"exit": code}).encode() + b"\n")
            send.close()
    finally:
        sys.stdout, sys.stderr = streams
        if columns is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = columns
        said = gateway.diagnostics.since(start)
        holder.troubled = holder.troubled or any(_troubling(d) for d in said)
        # What this command said goes: the next one reports its own (as a one-shot run).
        gateway.diagnostics.truncate(holder.said)


async def _run(gateway: Gateway, said: int, args: argparse.Namespace) -> int:
    gateway.use_session(args.session)
    gateway.progress_listener = None
    mark = len(gateway.diagnostics)

    def reported() -> list[Diagnostic]:
        items = gateway.diagnostics.items
        return [*items[:said], *items[mark:]]

    try:
        return await run_verb(gateway, args, call_arguments(args), reported)
    except Exception as problem:
        code = explained(args, problem)
        if code is None:
            raise
        return code


async def _forward(receive: Any, stream: SocketStream) -> None:
    async with receive:
        async for frame in receive:
            await stream.send(frame)


async def _cancel_when_gone(
    reader: BufferedByteReceiveStream, command: anyio.CancelScope, watch: anyio.CancelScope
) -> None:
    """The client closed the connection (Ctrl-C): its command is cancelled. ``watch`` ends
    the watching once the command is done."""
    with watch:
        with suppress(anyio.EndOfStream, anyio.BrokenResourceError, OSError):
            await reader.receive()
        command.cancel()
