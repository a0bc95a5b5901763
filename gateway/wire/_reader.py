"""The reading half of an extension process: decodes and routes every line the extension
writes. Replies resolve their waiters (at once, on the caller's behalf), updates become side
effects, tool progress goes to whoever shows it, questions and host requests are handed to
the process to answer, and anything malformed is a diagnostic. It does no I/O itself: the
process's channel hands it lines (``gateway.wire._channel``), framed by the transport."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from gateway.base import DiagnosticCode, Diagnostics, Severity
from gateway.wire import _codes
from gateway.wire._errors import ExtensionError, MessageError
from gateway.wire._framing import OversizedLine
from gateway.wire._pending import PendingRequests, Stray
from gateway.wire.protocol import (
    HostRequest,
    RegisterMessage,
    ResponseMessage,
    ToolUpdate,
    UiRequest,
    UpdateMessage,
    parse_extension_message,
)

__all__ = ["MessageReader"]

_STRAY_CODES = {
    Stray.DUPLICATE: (_codes.PROTOCOL_DUPLICATE_REPLY, "second reply to request {}"),
    Stray.LATE: (_codes.PROTOCOL_LATE_REPLY, "late reply to request {}"),
    Stray.UNKNOWN: (_codes.PROTOCOL_UNKNOWN_ID, "reply to unknown request id {!r}"),
}


class MessageReader:
    """Everything the reader may do is passed in: where replies go (``pending``), where
    side effects go (``on_effects``), where tool progress goes (``on_tool_update``), who
    answers questions (``on_question``) and host requests (``on_host_request``), and who
    learns of the ``register`` line (``on_register``)."""

    def __init__(
        self,
        name: str,
        *,
        diagnostics: Diagnostics,
        pending: PendingRequests,
        on_effects: Callable[[ResponseMessage | UpdateMessage], None],
        on_question: Callable[[UiRequest], None],
        on_host_request: Callable[[HostRequest], None],
        on_register: Callable[[RegisterMessage | None, str | None], None],
        on_tool_update: Callable[[ToolUpdate], None] | None = None,
    ) -> None:
        self._name = name
        self._diagnostics = diagnostics
        self._pending = pending
        self._on_effects = on_effects
        self._on_question = on_question
        self._on_host_request = on_host_request
        self._on_register = on_register
        self._on_tool_update = on_tool_update
        self._registered = False

    # ------------------------------------------------------------------ one line

    def line(self, line: bytes | OversizedLine) -> None:
        """One line the extension wrote (a ``LineSink``)."""
        if isinstance(line, bytes) and not line.strip():
            return
        message, problem = self._decode(line)
        if not self._registered:
            self._registered = True
            if problem is None and not isinstance(message, RegisterMessage):
                problem = "first line was not a register message"
            self._on_register(message if problem is None else None, problem)
            return
        if problem is not None:
            return  # reported by _decode
        if isinstance(message, ResponseMessage):
            self._reply(message)
        elif isinstance(message, UpdateMessage):
            self._on_effects(message)
        elif isinstance(message, UiRequest):
            self._on_question(message)
        elif isinstance(message, ToolUpdate):
            if self._on_tool_update is not None:
                self._on_tool_update(message)
        elif isinstance(message, HostRequest):
            self._on_host_request(message)
        else:  # a second register
            self._warn(_codes.PROTOCOL_INVALID_MESSAGE, "register sent twice; ignored")

    def _reply(self, response: ResponseMessage) -> None:
        stray = self._pending.match(response)
        if not isinstance(stray, Stray):
            self._on_effects(response)  # the caller resumes with its side effects applied
            self._pending.deliver(stray, response)
            return
        if stray is Stray.NO_ID:
            # The spec's own guard example answers every line, initialize included.
            self._diagnostics.add(
                _codes.PROTOCOL_UNKNOWN_ID(
                    f"extension {self._name}: reply without a request id ignored",
                    package=self._name,
                    severity=Severity.INFO,
                )
            )
            return
        code, text = _STRAY_CODES[stray]
        self._warn(code, text.format(response.id))

    # ------------------------------------------------------------------ decoding

    def _decode(self, line: bytes | OversizedLine) -> tuple[Any, str | None]:
        """The message, or None and why not (reported, except for the register line)."""
        if isinstance(line, OversizedLine):
            return self._reject(
                _codes.PROTOCOL_LINE_TOO_LONG,
                f"line of {line.size} bytes exceeds the {line.cap}-byte cap",
            )
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as error:
            return self._reject(
                _codes.PROTOCOL_INVALID_UTF8, f"stdout line is not UTF-8 ({error.reason})"
            )
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            excerpt = text[:80] + ("…" if len(text) > 80 else "")
            return self._reject(
                _codes.PROTOCOL_INVALID_JSON, f"stdout line is not JSON ({error.msg}): {excerpt}"
            )
        except RecursionError:
            return self._reject(_codes.PROTOCOL_INVALID_JSON, "stdout line is nested too deeply")
        try:
            return parse_extension_message(data), None
        except MessageError as error:
            if self._registered:
                self._fail_malformed_reply(data, str(error))
            registering = not self._registered
            code = (
                _codes.EXTENSION_REGISTER_INVALID
                if registering
                else _codes.PROTOCOL_INVALID_MESSAGE
            )
            return self._reject(code, str(error))

    def _reject(self, code: DiagnosticCode, reason: str) -> tuple[None, str]:
        if self._registered:
            self._warn(code, reason)
        return None, reason

    def _fail_malformed_reply(self, data: Any, problem: str) -> None:
        """A malformed reply to a pending request fails that request now, not at its
        timeout."""
        if isinstance(data, dict) and data.get("type") == "response":
            request_id = data.get("id")
            if isinstance(request_id, str):
                self._pending.fail(
                    request_id, ExtensionError(f"malformed reply from {self._name}: {problem}")
                )

    def _warn(self, code: DiagnosticCode, reason: str) -> None:
        self._diagnostics.add(code(f"extension {self._name}: {reason}", package=self._name))
