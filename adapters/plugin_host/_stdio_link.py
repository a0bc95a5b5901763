"""A stdio MCP server as a child process, and JSON-RPC 2.0 over its pipes (one JSON
message a line), with the standard library and anyio: the plugin host's lean client
(``_stdio_client``) speaks MCP over it without importing the MCP SDK (~0.8 s of CPU).

Started as the SDK's ``stdio_client`` starts a server: the command with its arguments,
environment and working directory, its stderr to ours (the package's log: passed on by
``_stderr_tail``, which keeps its last line for a failed start), in a session of its own.
Closed as the SDK closes it: stdin closed, up to 2 s to exit; then SIGTERM to its process
group, up to 2 s; then SIGKILL, up to 2 s to be reaped.

What the server writes is hostile: a line that is not a JSON-RPC message is logged and
skipped (as the SDK skips it); a line over the wire's cap (``gateway.wire``'s framing,
16 MiB) is skipped too, and the requests in flight fail, since the answer it may have
carried is lost (rather than wait for the gateway's timeout). A request the server
makes is answered as the SDK's client without callbacks answers it: ``ping`` with
``{}``, sampling, elicitation and roots refused."""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

import anyio
from anyio.abc import Process, TaskGroup

from adapters.plugin_host._channel import log
from adapters.plugin_host._shapes import CONNECTION_CLOSED, MCPError, Progress
from adapters.plugin_host._stderr_tail import StderrTail
from gateway.wire import DEFAULT_LINE_CAP, LineFramer, OversizedLine

__all__ = ["Link", "open_link"]

TERMINATION_SECONDS = 2.0
"""Grace for the server to exit after its stdin closes (the SDK's)."""
FORCE_KILL_SECONDS = 2.0
"""After SIGTERM, before SIGKILL (the SDK's)."""
REAP_SECONDS = 2.0
GROUP_POLL_SECONDS = 0.01
"""How often the group is probed after SIGTERM (the SDK's): no event says that the last
member of a process group has died."""
CANCEL_SECONDS = 1.0
STDERR_SECONDS = 1.0
"""After the server exited, for the rest of its stderr (a grandchild may hold the pipe)."""

INVALID_REQUEST, METHOD_NOT_FOUND, INTERNAL_ERROR = -32600, -32601, -32603
REFUSED = {
    "sampling/createMessage": "Sampling not supported",
    "elicitation/create": "Elicitation not supported",
    "roots/list": "List roots not supported",
}
"""The SDK client's default answers (``mcp.client.session._default_*_callback``)."""


def printable(text: str, limit: int = 2000) -> str:
    """Server text for our log: control characters escaped, cut at ``limit``."""
    text = text[:limit]
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text)


class _Pending:
    __slots__ = ("done", "error", "on_progress", "result")

    def __init__(self, on_progress: Progress | None) -> None:
        self.done = anyio.Event()
        self.result: Any = None
        self.error: MCPError | None = None
        self.on_progress = on_progress


class Link:
    """The JSON-RPC connection to one server. ``closed`` is set when its output ends."""

    def __init__(self, process: Process, name: str, group: TaskGroup) -> None:
        self.process, self.name, self.group = process, name, group
        self.closed = anyio.Event()
        self.why = "Connection closed"
        self.stderr = StderrTail(_stderr())
        self._pending: dict[int, _Pending] = {}
        self._next_id = 0
        self._write = anyio.Lock()

    async def request(
        self, method: str, params: dict[str, Any], on_progress: Progress | None = None
    ) -> Any:
        """The result of one request; ``MCPError`` for an error answer or the connection's
        end. Cancelled, it tells the server (``notifications/cancelled``), as the SDK does."""
        self._next_id += 1
        request_id = self._next_id
        if on_progress is not None:  # the request id doubles as the token, as in the SDK
            params = {**params, "_meta": {**params.get("_meta", {}), "progressToken": request_id}}
        pending = self._pending[request_id] = _Pending(on_progress)
        try:
            if self.closed.is_set():
                raise MCPError(CONNECTION_CLOSED, self.why)
            message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
            with anyio.CancelScope(shield=True):  # a line is written whole or not at all;
                await self.send(message)  # a server not reading is ended by ``close``
            await pending.done.wait()
        except anyio.get_cancelled_exc_class():
            if method != "initialize" and not self.closed.is_set():
                with anyio.move_on_after(CANCEL_SECONDS, shield=True):
                    reason = {"requestId": request_id, "reason": "caller cancelled"}
                    await self.notify("notifications/cancelled", reason)
            raise
        finally:
            self._pending.pop(request_id, None)
        if pending.error is not None:
            raise pending.error
        return pending.result

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send a notification; dropped once the connection has ended."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        with suppress(MCPError):
            await self.send(message)

    async def send(self, message: dict[str, Any]) -> None:
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        try:
            data = (text + "\n").encode()
        except UnicodeEncodeError:  # a lone surrogate: escaped JSON is still valid UTF-8
            data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        stdin = self.process.stdin
        assert stdin is not None
        try:
            async with self._write:
                await stdin.send(data)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            self._end(self.why)
            raise MCPError(CONNECTION_CLOSED, self.why) from None

    async def read(self) -> None:
        """Read the server's output until it ends, one message a line."""
        stdout = self.process.stdout
        assert stdout is not None
        framer = LineFramer(DEFAULT_LINE_CAP)
        try:
            async for chunk in stdout:
                for line in framer.feed(chunk):
                    await self._receive(line)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
        for line in framer.finish():
            await self._receive(line)
        self._end(self.why)

    def _oversized(self, line: OversizedLine) -> None:
        """A line over the cap is skipped; the answer it may have been is lost, so the
        requests in flight fail now rather than wait for the gateway's timeout."""
        problem = f"the server wrote a line of {line.size} bytes, over the {line.cap >> 20} MiB cap"
        log(f"{self.name}: {problem}; skipped")
        for pending in self._pending.values():
            pending.error = MCPError(INTERNAL_ERROR, f"{problem}: its answer was lost")
            pending.done.set()

    def _end(self, why: str) -> None:
        if self.closed.is_set():
            return
        self.why = why
        self.closed.set()
        for pending in self._pending.values():
            pending.error = MCPError(CONNECTION_CLOSED, why)
            pending.done.set()

    async def _receive(self, line: bytes | OversizedLine) -> None:
        if isinstance(line, OversizedLine):
            return self._oversized(line)
        if not line.strip():
            return
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            # Stray output of the server's code (a print): kept in the log, not lost.
            text = printable(line.decode("utf-8", "replace"), 500)
            log(f"{self.name}: ignored a line that is not a JSON-RPC message: {text}")
            return
        method = message.get("method")
        if isinstance(method, str) and "id" in message:
            self.group.start_soon(self._answer, message["id"], method)
        elif isinstance(method, str):
            await self._notified(method, message.get("params"))
        elif "result" in message or "error" in message:
            self._resolve(message)
        else:
            log(f"{self.name}: ignored a message that is no request, notification or answer")

    def _resolve(self, message: dict[str, Any]) -> None:
        request_id = message.get("id")
        pending = (
            self._pending.get(request_id)
            if isinstance(request_id, int) and not isinstance(request_id, bool)
            else None
        )
        if pending is None or pending.done.is_set():
            log(f"{self.name}: ignored an answer to no request in flight")
            return
        if "error" in message:
            error = message["error"]
            code = error.get("code") if isinstance(error, dict) else None
            text = error.get("message") if isinstance(error, dict) else None
            if not isinstance(code, int) or isinstance(code, bool) or not isinstance(text, str):
                code, text = INTERNAL_ERROR, "the server sent a malformed error"
            pending.error = MCPError(code, text)
        else:
            pending.result = message["result"]
        pending.done.set()

    async def _answer(self, request_id: Any, method: str) -> None:
        if not isinstance(request_id, str | int) or isinstance(request_id, bool):
            log(f"{self.name}: ignored a {printable(method, 80)!r} request with a bad id")
            return
        answer: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
        if method == "ping":
            answer["result"] = {}
        elif method in REFUSED:
            answer["error"] = {"code": INVALID_REQUEST, "message": REFUSED[method]}
        else:
            error = {"code": METHOD_NOT_FOUND, "message": "Method not found", "data": method}
            answer["error"] = error
        with suppress(MCPError):
            await self.send(answer)

    async def _notified(self, method: str, params: Any) -> None:
        params = params if isinstance(params, dict) else {}
        if method == "notifications/progress":
            token = params.get("progressToken")
            pending = self._pending.get(token) if isinstance(token, int) else None
            progress, total = params.get("progress"), params.get("total")
            note = params.get("message")
            if pending is None or pending.on_progress is None or not _number(progress):
                return
            await pending.on_progress(
                float(progress),
                float(total) if _number(total) else None,
                note if isinstance(note, str) else None,
            )
        elif method == "notifications/message":
            data, level = params.get("data"), params.get("level")
            text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
            source = params.get("logger")
            where = f" {printable(source, 80)}" if isinstance(source, str) else ""
            level_text = printable(level, 20) if isinstance(level, str) else "info"
            log(f"{self.name}: [{level_text}]{where}: {printable(text)}")
        # list_changed and the others: the listing is read once, at start (as before)

    async def close(self) -> None:
        """Stop the server: stdin closed, then SIGTERM to its group, then SIGKILL."""
        process = self.process
        assert process.stdin is not None and process.stdout is not None
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
        if not await _exited(process, TERMINATION_SECONDS):
            await _terminate_group(process)
            if not await _exited(process, REAP_SECONDS):
                log(f"{self.name}: process {process.pid} is still alive after SIGKILL")
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdout.aclose()
        self._end(self.why)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


async def _exited(process: Process, seconds: float) -> bool:
    """Whether it exited within ``seconds``. (The wait ends at its pipes' end too: a
    grandchild still holding them waits out the grace, then its group is ended.)"""
    with anyio.move_on_after(seconds):
        await process.wait()
        return True
    return False


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


async def _terminate_group(process: Process) -> None:
    """As the SDK's ``terminate_posix_process_tree``: the server started a session of its
    own, so its pid is its group's, and the group holds whatever it started."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    except PermissionError:
        pass
    with anyio.move_on_after(FORCE_KILL_SECONDS):
        while _group_alive(process.pid):
            _ = process.returncode
            await anyio.sleep(GROUP_POLL_SECONDS)
        return
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _stderr() -> int:
    """Where the server's stderr goes: ours (the package's log), by its descriptor; fd 2
    when ``sys.stderr`` is not a real file (a test's capture), as an inherited stderr."""
    try:
        return sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return 2


@asynccontextmanager
async def open_link(
    name: str, command: str, args: list[str], env: dict[str, str], cwd: str | None
) -> AsyncIterator[Link]:
    """Start the server and connect to it; on leaving, stop it (bounded, shielded) and
    read what is left of its stderr (``Link.stderr``)."""
    process = await anyio.open_process([command, *args], env=env, cwd=cwd, start_new_session=True)
    assert process.stderr is not None
    async with anyio.create_task_group() as group:
        link = Link(process, name, group)
        group.start_soon(link.read)
        group.start_soon(link.stderr.forward, process.stderr)
        try:
            yield link
        finally:
            with anyio.CancelScope(shield=True):
                await link.close()
                with anyio.move_on_after(STDERR_SECONDS):
                    await link.stderr.done.wait()  # the pipe ends with its last writer
            group.cancel_scope.cancel()
