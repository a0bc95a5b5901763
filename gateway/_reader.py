"""The reading half of an extension process: one task that frames, decodes and
routes every line the extension writes — replies resolve waiters, updates become side
effects, questions go to the user — and notices when the extension goes away. A part of
``ExtensionProcess``."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import anyio
from anyio.abc import Process, TaskGroup, TaskStatus

from . import _codes
from ._errors import ExtensionError, ExtensionExited, UiAnswer
from ._framing import OversizedLine, read_lines
from .diagnostics import Severity
from .protocol import (
    HostRequest,
    HostResponse,
    MessageError,
    RegisterMessage,
    ResponseMessage,
    UiRequest,
    UiResponse,
    UpdateMessage,
    parse_extension_message,
)


class _Reader:
    """Mixed into ``ExtensionProcess`` (process.py holds its state)."""

    async def _run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        assert self._pipes is not None
        with self._scope:
            async with anyio.create_task_group() as tasks:
                task_status.started()
                async for line in read_lines(self._pipes.chunks(), self._config.line_cap):
                    self._handle_line(line, tasks)
                tasks.cancel_scope.cancel()
        self._reader_done.set()
        await self._on_eof()

    async def _on_eof(self) -> None:
        process = self._process
        if not self._registered.is_set():
            code = await self._exit_code(process)
            self._register_error = self._register_error or f"exited before register ({code})"
            self._registered.set()
            return
        if self._closing or self.registration is None:
            return
        self._alive = False
        code = await self._exit_code(process)
        message = f"extension {self.name} exited unexpectedly ({code})"
        self._fail_pending(ExtensionExited(message))
        self._diagnostics.add(_codes.EXTENSION_EXITED(message, package=self.name))
        if self._on_exit is not None:
            self._on_exit(self)

    @staticmethod
    async def _exit_code(process: Process | None) -> str:
        if process is None:
            return "not started"
        with anyio.CancelScope(shield=True), anyio.move_on_after(0.5):
            await process.wait()
        if process.returncode is None:
            return "stdout closed"
        if process.returncode < 0:
            return f"killed by signal {-process.returncode}"
        return f"exit code {process.returncode}"

    def _handle_line(self, line: bytes | OversizedLine, tasks: TaskGroup) -> None:
        if isinstance(line, bytes) and not line.strip():
            return
        message = self._decode(line)
        if not self._registered.is_set():
            self._accept_register(message, line)
            return
        if message is None:
            return
        if isinstance(message, ResponseMessage):
            self._resolve(message)
        elif isinstance(message, UpdateMessage):
            self._on_effects(self, message)
        elif isinstance(message, UiRequest):
            tasks.start_soon(self._answer_ui, message)
        elif isinstance(message, HostRequest):
            if self._host_handler is None:
                # Not offered (plain nimlet extension): the same as before the addition.
                self._warn(_codes.PROTOCOL_INVALID_MESSAGE, "unknown message type 'host_request'")
            else:
                tasks.start_soon(self._answer_host, message)
        else:  # a second register
            self._warn(_codes.PROTOCOL_INVALID_MESSAGE, "register sent twice; ignored")

    def _accept_register(self, message: Any, line: bytes | OversizedLine) -> None:
        self._first_line_seen = True
        if isinstance(message, RegisterMessage):
            self.registration = message
        elif self._register_error is None:
            self._register_error = "first line was not a register message"
        self._registered.set()
        if self.registration is None:
            # Strict: an invalid register fails startup; start() stops the process.
            self._scope.cancel()

    def _decode(self, line: bytes | OversizedLine) -> Any:
        """Parse one line; on failure record why and return None."""
        registering = not self._registered.is_set()
        if isinstance(line, OversizedLine):
            return self._reject(
                _codes.PROTOCOL_LINE_TOO_LONG,
                f"line of {line.size} bytes exceeds the {self._config.line_cap}-byte cap",
                registering,
            )
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as error:
            return self._reject(
                _codes.PROTOCOL_INVALID_UTF8,
                f"stdout line is not UTF-8 ({error.reason})",
                registering,
            )
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            excerpt = text[:80] + ("…" if len(text) > 80 else "")
            return self._reject(
                _codes.PROTOCOL_INVALID_JSON,
                f"stdout line is not JSON ({error.msg}): {excerpt}",
                registering,
            )
        try:
            return parse_extension_message(data)
        except MessageError as error:
            if not registering:
                self._fail_malformed_reply(data, str(error))
            code = _codes.REGISTER_INVALID if registering else _codes.PROTOCOL_INVALID_MESSAGE
            return self._reject(code, str(error), registering)

    def _fail_malformed_reply(self, data: Any, problem: str) -> None:
        """A malformed reply to a known request fails that request now, not at its timeout."""
        if not isinstance(data, dict) or data.get("type") != "response":
            return
        request_id = data.get("id")
        pending = self._pending.get(request_id) if isinstance(request_id, str) else None
        if pending is not None and not pending.done.is_set():
            pending.error = ExtensionError(f"malformed reply from {self.name}: {problem}")
            pending.done.set()

    def _reject(self, code: Any, reason: str, registering: bool) -> None:
        if registering:
            self._register_error = reason
            return None
        self._warn(code, reason)
        return None

    def _warn(self, code: Any, reason: str) -> None:
        self._diagnostics.add(code(f"extension {self.name}: {reason}", package=self.name))

    def _resolve(self, response: ResponseMessage) -> None:
        pending = self._pending.get(response.id)
        if pending is None or pending.done.is_set():
            if response.id in self._answered_set or (pending and pending.done.is_set()):
                self._warn(
                    _codes.PROTOCOL_DUPLICATE_REPLY, f"second reply to request {response.id}"
                )
            elif response.id in self._abandoned:
                self._abandoned.discard(response.id)
                self._warn(_codes.PROTOCOL_LATE_REPLY, f"late reply to request {response.id}")
            elif not response.id:
                # The spec's own guard example answers every line, initialize included.
                self._diagnostics.add(
                    _codes.PROTOCOL_UNKNOWN_ID(
                        f"extension {self.name}: reply without a request id ignored",
                        package=self.name,
                        severity=Severity.INFO,
                    )
                )
            else:
                self._warn(
                    _codes.PROTOCOL_UNKNOWN_ID, f"reply to unknown request id {response.id!r}"
                )
            return
        self._on_effects(self, response)
        self._remember_answered(response.id)
        pending.response = response
        pending.done.set()

    def _remember_answered(self, request_id: str) -> None:
        if len(self._answered) == self._answered.maxlen:
            self._answered_set.discard(self._answered[0])
        self._answered.append(request_id)
        self._answered_set.add(request_id)

    async def _answer_host(self, request: HostRequest) -> None:
        """``host.request`` (negotiated): time spent here does not count against the
        extension's pending deadlines, as for a user question."""
        assert self._host_handler is not None
        self._ui_begin()
        try:
            reply = await self._host_handler(self, request)
        except Exception as error:  # a host bug must not kill the reader
            reply = HostResponse(id=request.id, error=f"{request.method}: {error}")
        finally:
            self._ui_end()
        with contextlib.suppress(ExtensionError):
            await self._write(reply)

    async def _answer_ui(self, request: UiRequest) -> None:
        if request.method != "question":
            self._warn(
                _codes.UI_UNSUPPORTED_METHOD,
                f"ui_request method {request.method!r} is not supported; answered cancelled",
            )
            answer = UiAnswer(cancelled=True)
        else:
            self._ui_begin()
            try:
                answer = await self._ui_handler(self, request)
            finally:
                self._ui_end()
        with contextlib.suppress(ExtensionError):
            await self._write(
                UiResponse(id=request.id, answer=answer.answer, cancelled=answer.cancelled)
            )
